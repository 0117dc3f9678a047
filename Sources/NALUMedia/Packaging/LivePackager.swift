#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUMP4
import NALUTS

/// Packages a live MPEG-TS stream (a pipe: `ffmpeg … -f mpegts -`) as it arrives: CMAF segments
/// (and LL-HLS parts) are written as soon as each is complete, each under a temporary name
/// renamed into place, and after each the playlists (and a dynamic MPD) are rewritten atomically
/// (temporary file + rename). The playlists list a sliding window of the last
/// ``PackagerOptions/window`` segments (`EXT-X-MEDIA-SEQUENCE` counts the ones that left); a
/// segment that left the window is deleted once it has been out of it for as long again (RFC
/// 8216 6.2.2: a removed segment stays available for its duration plus the playlist's). When the
/// input ends (or ``LiveInput`` is told to stop), the last segment is completed and the
/// playlists get `EXT-X-ENDLIST` (the MPD a `mediaPresentationDuration`).
///
/// The video is read from the transport stream's first H.264/H.265 stream with its PES times
/// (90 kHz, unwrapped: ISO/IEC 13818-1 2.4.3.7); each access unit (H.264 7.4.1.2.3, H.265
/// 7.4.2.4.4) is one sample, its duration the distance to the next one's decoding time. The init
/// segment is written at the first keyframe from its parameter sets (`avc1`/`hvc1`; those sets
/// leave the samples). Memory: one segment and one access unit.
public final class LivePackager {
    public let directory: String
    public let options: PackagerOptions
    private var notes: [String] = []
    private let name = "v0"

    /// - Parameter directory: an existing folder the package is written into.
    public init(directory: String, options: PackagerOptions) {
        self.directory = directory
        self.options = options
    }

    /// A picture read, waiting for the next one's decoding time (its duration).
    private struct Held {
        var bytes: [UInt8]
        var decode: Int64
        var presentation: Int64
        var isSync: Bool
    }

    /// Packages `input` until it ends.
    /// - Throws: ``NALUError``: `.unrecognisedFormat` when it is no transport stream,
    ///   `.unsupported` for other streams in it (unless ``PackagerOptions/dropsAudio``) and for
    ///   parameter sets that change, `.invalidValue` for decoding times that do not increase.
    public func package(_ input: LiveInput) throws -> PackageSummary {
        var prefix = [UInt8](repeating: 0, count: 4 * TransportStream.timestampedPacketSize)
        var filled = 0
        while filled < prefix.count {
            let count = try prefix.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if count <= 0 { break }
            filled += count
        }
        prefix.removeSubrange(filled...)
        guard let packetSize = ContainerDetection.transportStreamPacketSize(prefix) else {
            throw NALUError(.unrecognisedFormat, field: "input", byteOffset: 0,
                            detail: filled == 0 ? "empty input" : "live packaging reads an MPEG transport stream (sync byte 0x47 every 188 or 192 bytes); this input is not one")
        }
        let reader = TransportStreamReader(ReplaySource(prefix: prefix, source: input), packetSize: packetSize, chunkPackets: 8)
        try reader.readProgram()
        let video = reader.demuxer.video
        let others = (reader.demuxer.program?.elements ?? []).filter { $0.pid != video?.pid }
        if let other = others.first, !options.dropsAudio {
            throw NALUError(.unsupported, field: "input \(other)",
                            detail: "live packaging carries the video only; --no-audio packages the stream without its \(others.count) other stream(s)")
        }
        let codec: Codec = video?.streamType == TransportStreamType.hevc.rawValue ? .hevc : .h264
        var nalReader = AnnexBReader(ChunkedSource(source: reader, limit: 4096), chunkSize: 64 << 10)
        var splitter = AccessUnitSplitter(codec: codec)

        let writer = LiveWriter(directory: directory, options: options, name: name)
        var pending: [(offset: Int64, bytes: [UInt8])] = []
        var held: Held?
        var last: (decode: Int64, distance: Int64, offset: Int64)?
        var record: [[UInt8]]?
        var skipped = 0
        var first: Int64?

        func emit(_ sample: Held, duration: Int64) throws {
            guard duration > 0 else {
                throw NALUError(.invalidValue, field: "DTS", detail: "the decoding time does not increase after \(sample.decode) (90 kHz): a discontinuity in the stream, which live packaging does not carry")
            }
            let segmenter = writer.segmenter
            if let first, sample.isSync, segmenter.isOpen,
               Double(sample.decode &- first) / 90_000 + 1e-9 >= options.segmentDuration.doubleValue * Double(segmenter.segments.count + 1) {
                try segmenter.flush()
            }
            try sample.bytes.withUnsafeBytes { raw in
                try segmenter.append(raw, timing: SampleTiming(decode: sample.decode, presentation: sample.presentation, duration: duration,
                                                              timescale: 90_000), isSync: sample.isSync)
            }
        }

        func complete(_ summary: AccessUnitSummary) throws {
            let end = summary.offset + summary.size
            let count = pending.firstIndex { $0.offset >= end } ?? pending.count
            let units = pending[0..<count]
            defer { pending.removeFirst(count) }
            let stamps = reader.demuxer.timestamps(forAccessUnitAt: summary.offset + 4)
            let decode: Int64
            let presentation: Int64
            if let raw = stamps?.effectiveDecoding {
                decode = raw
                presentation = stamps?.presentation ?? raw
            } else if let last {
                decode = last.decode &+ last.distance
                presentation = decode &+ last.offset
            } else {
                throw NALUError(.missing, field: "PTS", byteOffset: summary.offset, detail: "the first access unit has no time stamps")
            }
            let isSync = summary.keyframe != nil
            if record == nil {
                guard isSync else {
                    skipped += 1
                    last = (decode, last.map { decode &- $0.decode } ?? 0, presentation &- decode)
                    return
                }
                var sets: [[UInt8]] = units.map(\.bytes).filter { Self.isParameterSet($0, codec) }
                if sets.isEmpty { sets = splitter.parameterSets.nalUnits }
                var unique: [[UInt8]] = []
                for set in sets where !unique.contains(set) { unique.append(set) }
                try writer.start(codec: codec, parameterSets: unique, description: splitter.parameterSets.streamDescription)
                record = unique
                first = decode
            }
            var bytes: [UInt8] = []
            for unit in units {
                if Self.isParameterSet(unit.bytes, codec) {
                    if record?.contains(unit.bytes) == true { continue }
                    throw NALUError(.unsupported, field: "parameter set", byteOffset: unit.offset,
                                    detail: "the stream's parameter sets change at \(Double(decode) / 90_000) s; live packaging keeps one set per stream")
                }
                let length = UInt32(unit.bytes.count)
                bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                bytes += unit.bytes
            }
            let distance = last.map { decode &- $0.decode } ?? 0
            last = (decode, distance > 0 ? distance : last?.distance ?? 0, presentation &- decode)
            if let previous = held { try emit(previous, duration: decode &- previous.decode) }
            held = Held(bytes: bytes, decode: decode, presentation: presentation, isSync: isSync)
        }

        try nalReader.forEachNALUnit { unit in
            let step = try splitter.push(unit)
            if let completed = step.completed { try complete(completed) }
            pending.append((unit.offset, Array(unit.bytes)))
        }
        if let completed = splitter.finish() { try complete(completed) }
        if let held {
            try emit(held, duration: max(1, last?.distance ?? 3003))
        }
        if skipped > 0 {
            notes.append("\(skipped) picture(s) before the first keyframe were not packaged: no segment can start with them")
        }
        try writer.finish()
        if record == nil {
            throw NALUError(.missing, field: "keyframe", byteOffset: input.bytesRead, detail: "the stream ended before its first keyframe: nothing to package")
        }
        return PackageSummary(video: [writer.track], audio: nil, manifests: writer.manifests, notes: notes + writer.notes)
    }

    /// VPS, SPS, PPS (H.265 32–34; H.264 7, 8).
    static func isParameterSet(_ unit: [UInt8], _ codec: Codec) -> Bool {
        guard let header = unit.first else { return false }
        switch codec {
        case .h264: return [7, 8].contains(header & 0x1F)
        case .hevc: return (32...34).contains(header >> 1 & 0x3F)
        }
    }
}
