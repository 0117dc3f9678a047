import NALU
import NALUIO
import NALUMP4
import NALUTS

/// The output of a ``TransportStreamWriter`` split into segment files: bytes go to the open
/// file; ``next(name:)`` commits it (renamed into place) and opens the next.
final class SegmentFileSink: ByteSink {
    let directory: String
    private var file: FileSink?
    private var name = ""

    init(directory: String) { self.directory = directory }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let file else { throw NALUError(.missing, field: "segment", detail: "no segment file is open") }
        try file.write(bytes)
    }

    /// Commits the open file, if any, and returns its size; opens `name` when given.
    @discardableResult
    func next(name: String?) throws -> Int64 {
        var bytes: Int64 = 0
        if let file {
            bytes = file.bytesWritten
            try file.commit()
        }
        file = nil
        if let name {
            self.name = name
            file = try FileSink(path: directory + "/" + name)
        }
        return bytes
    }
}

extension Packager {
    /// 90 kHz time stamps are this far after the presentation timeline's 0 (1.4 s, as FFmpeg's
    /// muxer starts), so that pictures decoded before it and AAC priming stay positive.
    static let transportStreamStart: Int64 = 126_000

    /// `ticks` of `timescale` in 90 kHz ticks, rounded down (128-bit product).
    static func ninetyKilohertz(_ ticks: Int64, _ timescale: UInt32) -> Int64 {
        let product = ticks.multipliedFullWidth(by: 90_000)
        let (quotient, _) = Int64(timescale).dividingFullWidth(product)
        return quotient
    }

    /// MPEG-TS segments (RFC 8216 3.2) of an MP4/MOV input's video, with its AAC track (the first
    /// input's) in the same program as ADTS: each segment starts with PAT and PMT, then a
    /// keyframe's PES packet (with its parameter sets in band and an access unit delimiter);
    /// continuity counters run on across segments (one ``TransportStreamWriter``). Times are
    /// the source's, on the presentation timeline (after the edit lists), at 90 kHz from
    /// ``transportStreamStart``.
    func packageTransportStream(_ source: MediaSource, name: String, withAudio: Bool) throws -> (video: PackagedTrack, audioCodecs: String?) {
        guard let mp4 = source.mp4 else {
            throw NALUError(.unsupported, field: source.path, detail: "\(source.container) input cannot be packaged yet: give an MP4/MOV")
        }
        let track = mp4.track
        guard track.additionalSampleDescriptions.isEmpty else {
            throw NALUError(.unsupported, field: source.path,
                            detail: "the video track has \(track.sampleDescriptions.count) sample descriptions (parameter sets change); packaging it is not supported yet")
        }
        let record = track.decoderConfiguration
        let codec = track.codec
        let codecs = try CodecString.video(codec: codec, parameterSets: record.parameterSets, entry: codec == .h264 ? "avc1" : "hvc1")
        var packaged = PackagedTrack(kind: .video, inputPath: source.path, name: name, initName: nil, timescale: track.timescale,
                                     codecs: codecs, width: track.width, height: track.height)
        let videoOffset = track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0
        packaged.presentationOffset = videoOffset

        var audio: (reader: MP4TrackReader<AnyRandomAccessSource>, samples: MP4SampleIterator<AnyRandomAccessSource>, offset: Int64)?
        var configuration = TransportStreamWriterConfiguration(videoStreamType: codec == .h264 ? .h264 : .hevc)
        var audioCodecs: String?
        if withAudio, let (reader, config) = try source.transportStreamAudioTrack() {
            configuration.audio = try ADTSHeader(audioSpecificConfig: config)
            audio = (reader, reader.samples(), reader.track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0)
            audioCodecs = reader.track.sampleEntries.first.flatMap { CodecString.audio(sampleEntry: $0) }
        }
        let sink = SegmentFileSink(directory: directory)
        let writer = try TransportStreamWriter(sink: sink, configuration: configuration)
        let lengthSize = record.lengthSize
        let delimiter: [UInt8] = codec == .h264 ? [0, 0, 0, 1, 0x09, 0xF0] : [0, 0, 0, 1, 0x46, 0x01, 0x50]
        var parameterSets: [UInt8] = []
        for unit in record.parameterSets { parameterSets += [0, 0, 0, 1] + unit }

        var sample = [UInt8]()
        var unit = [UInt8]()
        var audioFrame = [UInt8]()
        var pendingAudio: MP4Sample?
        var segments: [PackagedSegment] = []
        var open: (name: String, decode: Int64, presentation: Int64, duration: Int64, samples: Int)?
        var first: Int64?
        var count = 0
        func close() throws {
            guard let current = open else { return }
            try writer.startSegment()
            let bytes = try sink.next(name: nil)
            segments.append(PackagedSegment(name: current.name, decodeTime: current.decode, presentationTime: current.presentation &- videoOffset,
                                            duration: current.duration, bytes: bytes, samples: current.samples, startsWithSyncSample: true))
            open = nil
        }
        /// Writes the audio frames that start before `seconds` on the presentation timeline.
        func writeAudio(before seconds: Double?) throws {
            guard var lane = audio else { return }
            defer { audio = lane }
            while true {
                if pendingAudio == nil { pendingAudio = try lane.samples.next() }
                guard let next = pendingAudio else { return }
                let scale = lane.reader.track.timescale
                if let seconds, Double(next.pts &- lane.offset) / Double(scale) >= seconds { return }
                try lane.reader.read(next, into: &audioFrame)
                try audioFrame.withUnsafeBytes { raw in
                    try writer.writeAudio(raw, pts: Self.transportStreamStart + Self.ninetyKilohertz(next.pts &- lane.offset, scale))
                }
                pendingAudio = nil
            }
        }
        var iterator = mp4.samples()
        while let next = try iterator.next() {
            if first == nil {
                guard next.isSync else {
                    throw NALUError(.invalidValue, field: source.path, byteOffset: next.offset,
                                    detail: "the first video sample is not a sync sample: a segment cannot start with it")
                }
                first = next.dts
            }
            if next.isSync, open != nil, let first, due(elapsed: next.dts &- first, timescale: track.timescale, segments: segments.count + 1) {
                try close()
            }
            // Audio up to this picture's decoding time goes before it.
            try writeAudio(before: Double(next.dts &- videoOffset) / Double(track.timescale))
            if open == nil {
                let number = String(segments.count + 1)
                let segmentName = name + "_" + String(repeating: "0", count: max(0, 5 - number.count)) + number + ".ts"
                try sink.next(name: segmentName)
                open = (segmentName, next.dts, next.pts, 0, 0)
            }
            try mp4.read(next, into: &sample)
            // Length-prefixed NAL units → Annex-B: a delimiter, the parameter sets before a keyframe.
            unit.removeAll(keepingCapacity: true)
            unit += delimiter
            if next.isSync { unit += parameterSets }
            var position = 0
            while position < sample.count {
                guard position + lengthSize <= sample.count else {
                    throw NALUError(.lengthPastEnd, field: "NALUnitLength", byteOffset: next.offset + Int64(position), detail: "sample \(next.index + 1)")
                }
                var length = 0
                for index in 0..<lengthSize { length = length << 8 | Int(sample[position + index]) }
                position += lengthSize
                guard length <= sample.count - position else {
                    throw NALUError(.lengthPastEnd, field: "NALUnitLength", byteOffset: next.offset + Int64(position - lengthSize),
                                    detail: "\(length) bytes past the end of sample \(next.index + 1)")
                }
                let type = codec == .h264 ? Int(sample[position] & 0x1F) : Int(sample[position] >> 1 & 0x3F)
                let isDelimiter = codec == .h264 ? type == 9 : type == 35
                if !isDelimiter, length > 0 {
                    unit += [0, 0, 0, 1]
                    unit.append(contentsOf: sample[position..<(position + length)])
                }
                position += length
            }
            let pts = Self.transportStreamStart + Self.ninetyKilohertz(next.pts &- videoOffset, track.timescale)
            let dts = Self.transportStreamStart + Self.ninetyKilohertz(next.dts &- videoOffset, track.timescale)
            try unit.withUnsafeBytes { try writer.writeVideo($0, pts: pts, dts: dts, randomAccess: next.isSync) }
            if var current = open {
                current.duration += Int64(next.duration)
                current.samples += 1
                current.presentation = min(current.presentation, next.pts)
                open = current
            }
            count += 1
        }
        try writeAudio(before: nil)
        try writer.finish()
        try close()
        packaged.segments = segments
        let ticks = segments.reduce(Int64(0)) { $0 + $1.duration }
        if ticks > 0 { packaged.frameRate = Double(count) * Double(track.timescale) / Double(ticks) }
        return (packaged, audioCodecs)
    }
}
