#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
import NALUIO
import NALUMP4
import NALUTS
import NALUMedia

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
/// leave the samples); new sets at a later keyframe start a new init segment and period
/// (``LiveWriter/changeParameterSets(codec:parameterSets:description:at:)``). An H.265 CRA picture that starts a segment and has RASL pictures is
/// handled as ``PackagerOptions/openGOP`` says (``VideoSampleFilter``): kept in a `rap ` sample
/// group, its segment and part not independent, or rewritten as BLA with its RASL pictures
/// dropped. The transport stream's first ADTS AAC stream, read in the same pass, is the audio
/// rendition `a0` (``LiveAudio``: its own init segment, segments cut where the video's start,
/// its own playlist in the multivariant playlist's `EXT-X-MEDIA` group and an audio adaptation
/// set in the MPD), unless ``PackagerOptions/dropsAudio``. Memory: one segment of each track and
/// one access unit (and a CRA's leading pictures, and the audio that waits for the video).
public final class LivePackager {
    public let directory: String
    public let options: PackagerOptions
    private var notes: [String] = []
    private let name = "v0"

    /// - Parameter directory: an existing folder the package is written into.
    public init(directory: String, options: PackagerOptions) {
        self.directory = directory
        self.options = options
        folder = PackageFolder(path: directory)
    }

    /// Where the files go, and the input they may not replace.
    private let folder: PackageFolder

    /// A picture read, waiting for the next one's decoding time (its duration).
    private struct Held {
        var bytes: [UInt8]
        var decode: Int64
        var presentation: Int64
        var isSync: Bool
        /// A keyframe whose parameter sets differ from those before: the new sets and the
        /// picture size they give (a new init segment and period start with it).
        var newSets: [[UInt8]]? = nil
        var description: StreamDescription? = nil
    }

    /// Packages `input` until it ends.
    /// - Throws: ``NALUError``: `.unrecognisedFormat` when it is neither a transport stream nor
    ///   an Annex-B stream, `.unsupported` for streams in a transport stream other than the
    ///   video and one AAC stream (unless ``PackagerOptions/dropsAudio``) and for parameter sets
    ///   that change at a picture that is no keyframe, `.tooLarge` for audio that runs far ahead of the video, `.invalidValue` for
    ///   decoding times that do not increase, `.missing` for an Annex-B stream without VUI timing.
    public func package(_ input: LiveInput) throws(NALUError) -> PackageSummary {
        do {
            return try packageLive(input)
        } catch {
            throw NALUError.converting(error, field: "input")
        }
    }

    /// ``package(_:)``'s work.
    private func packageLive(_ input: LiveInput) throws -> PackageSummary {
        folder.protect(input.identity, as: "input")
        // No playlist of an older package may name the segments this run replaces.
        folder.removePlaylistsBeforeFirstWrite(renditions: 1)
        var prefix = [UInt8](repeating: 0, count: 4 * TransportStream.timestampedPacketSize)
        var filled = 0
        while filled < prefix.count {
            let count = try prefix.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if count <= 0 { break }
            filled += count
        }
        prefix.removeSubrange(filled...)
        guard filled > 0 else { throw NALUError(.unrecognisedFormat, field: "input", byteOffset: 0, detail: "empty input") }
        if let packetSize = ContainerDetection.transportStreamPacketSize(prefix) {
            let reader = TransportStreamReader(ReplaySource(prefix: prefix, source: input), packetSize: packetSize, chunkPackets: 8)
            try reader.readProgram()
            let video = reader.demuxer.video
            let others = (reader.demuxer.program?.elements ?? []).filter { $0.pid != video?.pid }
            // The first ADTS AAC stream is the audio rendition; anything else stops the run.
            let aac = others.first { $0.streamType == Self.adtsStreamType }
            let refused = others.filter { $0 != aac }
            if !refused.isEmpty, !options.dropsAudio {
                let names = refused.map(\.description).joined(separator: ", ")
                throw NALUError(.unsupported, field: "input \(refused[0])",
                                detail: "live packaging carries the video and one AAC (ADTS, stream_type 0x0F) stream; \(names) cannot be packaged; --no-audio packages the video alone")
            }
            var audio: LiveAudio?
            if let aac, !options.dropsAudio {
                let made = LiveAudio(pid: aac.pid, folder: folder, options: options)
                reader.demuxer.auxiliaryPID = aac.pid
                reader.demuxer.onAuxiliaryPacket = { packet, _ in made.push(packet) }
                audio = made
            }
            let codec: Codec = video?.streamType == TransportStreamType.hevc.rawValue ? .hevc : .h264
            var nalReader = AnnexBReader(ChunkedSource(source: reader, limit: 4096), chunkSize: 64 << 10, maxNALUnitSize: options.maxAccessUnitSize)
            return try run(codec: codec, input: input, timing: .transportStream(reader), audio: audio) { body in
                try nalReader.forEachCompleteNALUnit(body)
                // Stopped: the NAL unit read last may be cut short.
                if !input.stopped { try nalReader.finish(body) }
            }
        }
        guard prefix.starts(with: [0, 0, 1]) || prefix.starts(with: [0, 0, 0, 1]) else {
            throw NALUError(.unrecognisedFormat, field: "input", byteOffset: 0,
                            detail: "live packaging reads an MPEG transport stream (sync byte 0x47 every 188 or 192 bytes) or an Annex-B H.264/H.265 stream; this input is neither")
        }
        // An Annex-B stream (`nalu encode … -o -`): the codec from its first NAL unit headers.
        var headers: [(UInt8, UInt8)] = []
        for index in 0..<max(0, prefix.count - 4) where prefix[index] == 0 && prefix[index + 1] == 0 && prefix[index + 2] == 1 {
            headers.append((prefix[index + 3], prefix[index + 4]))
        }
        guard let codec = FormatDetection.codec(fromHeaders: headers) else {
            throw NALUError(.unrecognisedFormat, field: "codec", byteOffset: 0,
                            detail: "the first NAL unit headers of the Annex-B stream are neither H.264's nor H.265's")
        }
        var nalReader = AnnexBReader(ReplaySource(prefix: prefix, source: ChunkedSource(source: input, limit: 64 << 10)), chunkSize: 64 << 10, maxNALUnitSize: options.maxAccessUnitSize)
        return try run(codec: codec, input: input, timing: .frameRate) { body in
            try nalReader.forEachCompleteNALUnit(body)
            if !input.stopped { try nalReader.finish(body) }
        }
    }

    /// Where the pictures' times come from.
    private enum Timing {
        /// The PES time stamps of a transport stream (90 kHz).
        case transportStream(TransportStreamReader<ReplaySource<LiveInput>>)
        /// An elementary stream: the SPS's VUI frame rate, and the presentation order from the
        /// picture order counts (``PresentationOrderer``), as ``NALUMP4/MP4Muxer`` times one.
        case frameRate
    }

    /// ISO/IEC 13818-1 Table 2-34: ISO/IEC 13818-7 audio with ADTS transport syntax.
    static let adtsStreamType: UInt8 = 0x0F

    private func run(codec: Codec, input: LiveInput, timing: Timing, audio: LiveAudio? = nil,
                     read: ((NALUnitView) throws -> Void) throws -> Void) throws -> PackageSummary {
        var splitter = AccessUnitSplitter(codec: codec)
        var counter = PictureOrderCounter()
        var queue = ReorderQueue<Held>()
        var assemblingPOC: (PictureOrderCount, reorderLimit: Int)?
        var frame: MP4FrameTiming?
        var writer: LiveWriter?
        var pending: [(offset: Int64, bytes: [UInt8])] = []
        // Bytes in `pending`: at most the access unit limit (a flood of filler after a picture).
        var pendingBytes = 0
        var held: Held?
        var last: (decode: Int64, distance: Int64, offset: Int64)?
        var record: [[UInt8]]?
        var skipped = 0
        var unparsedSlices = 0
        var first: Int64?
        // Open-GOP CRAs that start a segment (VideoSampleFilter); `started`: a sample was emitted.
        let filter = VideoSampleFilter(codec: codec, lengthSize: 4, policy: options.openGOP, inBandParameterSets: nil)
        var started = false

        func emit(_ sample: Held, duration: Int64) throws {
            guard let writer else { return }
            guard duration > 0 else {
                throw NALUError(.invalidValue, field: "DTS", detail: "the decoding time does not increase after \(sample.decode) ticks: a discontinuity in the stream, which live packaging does not carry")
            }
            let segmenter = writer.segmenter
            let timescale = Double(writer.track.timescale)
            var startsSegment = !started
            var newPeriod = false
            if let sets = sample.newSets, started {
                // What the filter holds precedes the change in decoding order.
                try filter.finish(into: segmenter)
                try writer.changeParameterSets(codec: codec, parameterSets: sets, description: sample.description, at: sample.decode)
                startsSegment = true
                newPeriod = true
            }
            if let first, sample.isSync, started,
               Double(sample.decode &- first) / timescale + 1e-9 >= options.segmentDuration.doubleValue * Double(segmenter.segments.count + 1) {
                startsSegment = true
            }
            started = true
            var bytes = sample.bytes
            if startsSegment, let sets = writer.inBandParameterSets {
                var prefix: [UInt8] = []
                for set in sets {
                    let length = UInt32(set.count)
                    prefix += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + set
                }
                bytes = prefix + bytes
            }
            try writer.audio?.video(decode: sample.decode, presentation: sample.presentation, startsSegment: startsSegment, newPeriod: newPeriod)
            try bytes.withUnsafeBytes { raw in
                try filter.push(raw, timing: PackagedTime.timing(decode: sample.decode, presentation: sample.presentation, duration: duration,
                                                                 timescale: writer.track.timescale, name: "input video"),
                                isSync: sample.isSync, description: 1, startsSegment: startsSegment, into: segmenter)
            }
        }

        /// Frame-rate timing: writes the queued pictures whose presentation index is known.
        func drain() throws {
            guard let frame else { return }
            var ready = 0
            while let next = queue.ready(ready) {
                var sample = next.entry.element
                sample.decode = Int64(next.decodeIndex) * Int64(frame.frameDuration)
                sample.presentation = Int64(next.presentation) * Int64(frame.frameDuration)
                if first == nil { first = sample.decode }
                try emit(sample, duration: Int64(frame.frameDuration))
                ready += 1
            }
            queue.removeFirst(ready)
        }

        func complete(_ summary: AccessUnitSummary, poc: (PictureOrderCount, reorderLimit: Int)?) throws {
            let end = summary.offset + summary.size
            let count = pending.firstIndex { $0.offset >= end } ?? pending.count
            let units = pending[0..<count]
            defer {
                pendingBytes -= pending[0..<count].reduce(0) { $0 + $1.bytes.count }
                pending.removeFirst(count)
            }
            var decode: Int64 = 0
            var presentation: Int64 = 0
            if case .transportStream(let reader) = timing {
                let stamps = reader.demuxer.timestamps(forAccessUnitAt: summary.offset + 4)
                if let raw = stamps?.effectiveDecoding {
                    decode = raw
                    presentation = stamps?.presentation ?? raw
                } else if let last {
                    decode = last.decode &+ last.distance
                    presentation = decode &+ last.offset
                } else {
                    throw NALUError(.missing, field: "PTS", byteOffset: summary.offset, detail: "the first access unit has no time stamps")
                }
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
                let description = splitter.parameterSets.streamDescription
                var timescale: UInt32 = 90_000
                if case .frameRate = timing {
                    guard let rate = description?.frameRate else {
                        throw NALUError(.missing, field: "frame rate", byteOffset: summary.offset,
                                        detail: "the SPS has no VUI timing: an elementary stream needs it to be timed (or send MPEG-TS, whose PES packets carry times)")
                    }
                    let timing = try MP4FrameTiming(frameRate: rate)
                    frame = timing
                    timescale = timing.timescale
                }
                let started = LiveWriter(folder: folder, options: options, name: name, timescale: timescale, audio: audio)
                try started.start(codec: codec, parameterSets: unique, description: description)
                writer = started
                record = unique
                if case .transportStream = timing { first = decode }
            }
            var bytes: [UInt8] = []
            var changed = false
            for unit in units {
                if Self.isParameterSet(unit.bytes, codec) {
                    if record?.contains(unit.bytes) == true { continue }
                    // New sets start a new init segment and period, at a keyframe only.
                    guard isSync else {
                        throw NALUError(.unsupported, field: "parameter set", byteOffset: unit.offset,
                                        detail: "the stream's parameter sets change at access unit \(summary.index), which is no keyframe: a new init segment cannot start there")
                    }
                    changed = true
                    continue
                }
                let length = UInt32(unit.bytes.count)
                bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                bytes += unit.bytes
            }
            var sample = Held(bytes: bytes, decode: decode, presentation: presentation, isSync: isSync)
            if changed {
                var unique: [[UInt8]] = []
                for set in units.map(\.bytes) where Self.isParameterSet(set, codec) && !unique.contains(set) { unique.append(set) }
                // An access unit that repeats only some of the sets: the others as the stream last gave them.
                if unique.count < (codec == .hevc ? 3 : 2) { unique = splitter.parameterSets.nalUnits }
                sample.newSets = unique
                sample.description = splitter.parameterSets.streamDescription
                record = unique
            }
            if case .frameRate = timing {
                queue.append(sample, size: bytes.count, poc: poc?.0, reorderLimit: poc?.reorderLimit, maxBytes: options.maxAccessUnitSize)
                return try drain()
            }
            let distance = last.map { decode &- $0.decode } ?? 0
            last = (decode, distance > 0 ? distance : last?.distance ?? 0, presentation &- decode)
            if let previous = held { try emit(previous, duration: decode &- previous.decode) }
            held = sample
        }

        // However the run ends (a DTS going back, a parameter-set change, a full disk), the
        // playlists end as at the end of the input: the open segment completed if the disk
        // allows, EXT-X-ENDLIST, no part or preload hint left dangling, the MPD's duration set.
        func packageStream() throws -> LiveWriter {
            try read { unit in
                let step: AccessUnitSplitter.Step
                do {
                    step = try splitter.push(unit)
                } catch let error as NALUError where record == nil && error.code == .missing && error.field.hasSuffix("parameter_set_id") {
                    // Joined mid-stream: a slice whose parameter sets have not come yet is
                    // before the first keyframe, which would not package it either. What was
                    // gathered for its access unit goes with it, so the first access unit (and
                    // its time stamp) starts after it.
                    unparsedSlices += 1
                    pending.removeAll()
                    pendingBytes = 0
                    if splitter.parameterSets.nalUnits.isEmpty { splitter = AccessUnitSplitter(codec: codec) }
                    return
                }
                if let completed = step.completed {
                    try complete(completed, poc: assemblingPOC)
                    assemblingPOC = nil
                }
                if case .frameRate = timing, step.isFirstVCL {
                    assemblingPOC = try splitter.pictureOrderCount(after: step, counter: &counter, offset: unit.offset)
                }
                if codec.isEndOfSequence(firstByte: unit.firstByte) { counter.endOfSequence() }
                guard unit.bytes.count <= options.maxAccessUnitSize - pendingBytes else {
                    throw AccessUnitLimit.error(limit: options.maxAccessUnitSize, at: unit.offset)
                }
                pendingBytes += unit.bytes.count
                pending.append((unit.offset, Array(unit.bytes)))
            }
            if !input.stopped {
                if let completed = splitter.finish() { try complete(completed, poc: assemblingPOC) }
            } else if !pending.isEmpty, record != nil {
                // Stopped: the access unit being read may be incomplete.
                notes.append("the picture being read when the input was stopped is not packaged: it may be incomplete")
            }
            if case .frameRate = timing {
                queue.flush()
                try drain()
            } else if let held {
                try emit(held, duration: max(1, last?.distance ?? 3003))
            }
            if unparsedSlices > 0 {
                notes.append("\(unparsedSlices) slice NAL unit(s) before the stream's first parameter sets (joined mid-stream) were not packaged: no segment can start with them")
            }
            if skipped > 0 {
                notes.append("\(skipped) picture(s) before the first keyframe were not packaged: no segment can start with them")
            }
            guard let writer, record != nil else {
                throw NALUError(.missing, field: "keyframe", byteOffset: input.bytesRead, detail: "the stream ended before its first keyframe: nothing to package")
            }
            try filter.finish(into: writer.segmenter)
            notes += Packager.openGOPNotes(filter, path: "input", name: name)
            try writer.finish()
            return writer
        }
        let finished: LiveWriter
        do {
            finished = try packageStream()
        } catch {
            if let writer {
                try? filter.finish(into: writer.segmenter)
                writer.endAfterFailure()
            }
            throw error
        }
        return PackageSummary(video: [finished.track], audio: finished.audioTrack, manifests: finished.manifests, notes: notes + finished.notes)
    }

    /// VPS, SPS, PPS (H.265 32–34; H.264 7, 8).
    static func isParameterSet(_ unit: [UInt8], _ codec: Codec) -> Bool {
        guard let header = unit.first else { return false }
        return codec.isParameterSet(firstByte: header)
    }
}
