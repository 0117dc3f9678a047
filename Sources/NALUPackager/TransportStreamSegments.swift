import NALU
import NALUIO
import NALUMP4
import NALUTS
import NALUMedia

/// The output of a ``TransportStreamWriter`` split into segment files: bytes go to the open
/// file; ``next(name:)`` commits it (renamed into place) and opens the next.
final class SegmentFileSink: ByteSink {
    let folder: PackageFolder
    private var file: FileSink?
    private var name = ""

    init(folder: PackageFolder) { self.folder = folder }

    func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
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
            file = try folder.open(name)
        }
        return bytes
    }
}

/// MPEG-TS segments of one video track written through a ``TransportStreamWriter``: each
/// length-prefixed sample becomes an access unit delimiter and its NAL units in Annex-B form
/// (parameter sets the ``VideoSampleFilter`` put in band included) in one PES packet; `flush()`
/// ends the open segment file (the writer's next packets start with PAT and PMT).
final class TransportStreamSegmenter: VideoSampleOutput {
    let writer: TransportStreamWriter<SegmentFileSink>
    let sink: SegmentFileSink
    let name: String
    let codec: Codec
    let lengthSize: Int
    let timescale: UInt32
    /// The presentation time (track ticks) that is 0 on the presentation timeline.
    let presentationOffset: Int64
    /// Called with each sample's decoding time before it is written (the audio that goes before it).
    var beforeSample: ((Int64) throws -> Void)?
    private(set) var segments: [PackagedSegment] = []
    /// Samples written.
    private(set) var count = 0
    private var open: (name: String, decode: Int64, presentation: Int64, duration: Int64, samples: Int, sync: Bool)?
    private var unit: [UInt8] = []
    private let delimiter: [UInt8]

    init(writer: TransportStreamWriter<SegmentFileSink>, sink: SegmentFileSink, name: String, codec: Codec, lengthSize: Int, timescale: UInt32,
         presentationOffset: Int64) {
        self.writer = writer
        self.sink = sink
        self.name = name
        self.codec = codec
        self.lengthSize = lengthSize
        self.timescale = timescale
        self.presentationOffset = presentationOffset
        delimiter = codec == .h264 ? [0, 0, 0, 1, 0x09, 0xF0] : [0, 0, 0, 1, 0x46, 0x01, 0x50]
    }

    /// A segment-starting CRA kept as a SAP of type 3 (`randomAccessLeadingSamples`) is still an
    /// IRAP picture (H.265 3.73), so its PES packet has `random_access_indicator`; the segment
    /// does not start with a sync sample (no `EXT-X-INDEPENDENT-SEGMENTS`).
    func append(_ sample: UnsafeRawBufferPointer, timing: SampleTiming, isSync: Bool, randomAccessLeadingSamples: Int?) throws {
        try beforeSample?(timing.decode)
        if open == nil {
            let number = String(segments.count + 1)
            let segmentName = name + "_" + String(repeating: "0", count: max(0, 5 - number.count)) + number + ".ts"
            try sink.next(name: segmentName)
            open = (segmentName, timing.decode, timing.presentation, 0, 0, isSync)
        }
        // Length-prefixed NAL units → Annex-B, after a delimiter (the source's own delimiters left out).
        unit.removeAll(keepingCapacity: true)
        unit += delimiter
        var position = 0
        while position < sample.count {
            guard position + lengthSize <= sample.count else {
                throw NALUError(.lengthPastEnd, field: "NALUnitLength", detail: "\(name) sample \(count + 1), byte \(position)")
            }
            var length = 0
            for index in 0..<lengthSize { length = length << 8 | Int(sample[position + index]) }
            position += lengthSize
            guard length <= sample.count - position else {
                throw NALUError(.lengthPastEnd, field: "NALUnitLength",
                                detail: "\(length) bytes past the end of \(name) sample \(count + 1) (byte \(position - lengthSize))")
            }
            // An empty NAL unit (a zero length, perhaps the sample's last bytes) has no header to read.
            if length > 0, !codec.isAccessUnitDelimiter(firstByte: sample[position]) {
                unit += [0, 0, 0, 1]
                unit.append(contentsOf: UnsafeRawBufferPointer(rebasing: sample[position..<(position + length)]))
            }
            position += length
        }
        let pts = try Packager.transportStreamTime(timing.presentation, offset: presentationOffset, timescale, field: "\(name) presentation time")
        let dts = try Packager.transportStreamTime(timing.decode, offset: presentationOffset, timescale, field: "\(name) decoding time")
        try unit.withUnsafeBytes { try writer.writeVideo($0, pts: pts, dts: dts, randomAccess: isSync || randomAccessLeadingSamples != nil) }
        if var current = open {
            current.duration += timing.duration
            current.samples += 1
            current.presentation = min(current.presentation, timing.presentation)
            open = current
        }
        count += 1
    }

    func flush() throws {
        guard let current = open else { return }
        try writer.startSegment()
        let bytes = try sink.next(name: nil)
        segments.append(PackagedSegment(name: current.name, decodeTime: current.decode, presentationTime: current.presentation &- presentationOffset,
                                        duration: current.duration, bytes: bytes, samples: current.samples, startsWithSyncSample: current.sync))
        open = nil
    }
}

extension Packager {
    /// 90 kHz time stamps are this far after the presentation timeline's 0 (1.4 s, as FFmpeg's
    /// muxer starts), so that pictures decoded before it and AAC priming stay positive.
    static let transportStreamStart: Int64 = 126_000

    /// `time − offset` ticks of `timescale` as a 90 kHz time stamp from ``transportStreamStart``
    /// (truncated, 128-bit product: ``NALU/CheckedNumber/rescale(_:from:to:)``).
    /// - Throws: ``NALUError`` `.invalidValue` naming `field` when it does not fit 64 bits.
    static func transportStreamTime(_ time: Int64, offset: Int64, _ timescale: UInt32, field: String) throws -> Int64 {
        let ticks = try PackagedTime.difference(time, offset, field: field)
        guard let scaled = CheckedNumber.rescale(ticks, from: Int64(timescale), to: 90_000),
              let stamp = CheckedNumber.sum(transportStreamStart, scaled) else {
            throw NALUError(.invalidValue, field: field, detail: "\(ticks) ticks at \(timescale) per second do not fit a 90 kHz time stamp")
        }
        return stamp
    }

    /// MPEG-TS segments (RFC 8216 3.2) of an MP4/MOV input's video, with its audio track (the
    /// first input's one: AAC as ADTS, AC-3, MPEG audio, with its language) in the same program
    /// when `withAudio` (several are renditions of their own: ``packageTransportStreamAudio(_:inputPath:name:boundaries:)``): each segment starts with PAT and PMT, then a
    /// keyframe's PES packet (with its parameter sets in band and an access unit delimiter);
    /// continuity counters run on across segments (one ``TransportStreamWriter``). Times are
    /// the source's, on the presentation timeline (after the edit lists), at 90 kHz from
    /// ``transportStreamStart``. The samples go through a ``VideoSampleFilter``: parameter sets
    /// before each segment start, sync sample and sample description change (a track whose sets
    /// change mid-stream is carried), and an H.265 CRA starting a segment with RASL pictures
    /// handled as ``PackagerOptions/openGOP`` says.
    func packageTransportStream(_ source: MediaSource, name: String, withAudio: Bool) throws -> (video: PackagedTrack, audioCodecs: String?) {
        guard let mp4 = source.mp4 else {
            throw NALUError(.unsupported, field: source.path, detail: "\(source.container) input cannot be packaged yet: give an MP4/MOV")
        }
        let track = mp4.track
        let inBand = try inBandParameterSets(track, path: source.path, entries: false)
        let record = track.decoderConfiguration
        let codec = track.codec
        let codecs = try CodecString.video(codec: codec, parameterSets: record.parameterSets, entry: codec == .h264 ? "avc1" : "hvc1")
        var packaged = PackagedTrack(kind: .video, inputPath: source.path, name: name, initName: nil, timescale: track.timescale,
                                     codecs: codecs, width: track.width, height: track.height)
        if inBand != nil {
            // RESOLUTION: the largest pictures.
            packaged.width = track.sampleDescriptions.map(\.width).max() ?? track.width
            packaged.height = track.sampleDescriptions.map(\.height).max() ?? track.height
        }
        let videoOffset = try PackagedTime.check(track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0, timescale: track.timescale,
                                                 field: "\(source.path) edit list media_time")
        packaged.presentationOffset = videoOffset

        var lanes: [AudioLane] = []
        var configuration = TransportStreamWriterConfiguration(videoStreamType: codec == .h264 ? .h264 : .hevc)
        var audioCodecs: [String] = []
        // The audio tracks a transport stream carries (AAC, AC-3, MPEG audio), each its own
        // stream of the program with its language, in track order (the packager muxes one).
        if withAudio {
            for track in try source.transportStreamAudioTracks() {
                let reader = track.reader
                configuration.audioStreams.append(track.stream)
                lanes.append(AudioLane(reader: reader, samples: reader.samples(),
                                       offset: try PackagedTime.check(reader.track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0,
                                                                      timescale: reader.track.timescale, field: "\(source.path) audio edit list media_time")))
                if let codecs = Self.codecs(track), !audioCodecs.contains(codecs) { audioCodecs.append(codecs) }
            }
        }
        let sink = SegmentFileSink(folder: folder)
        let writer = try TransportStreamWriter(sink: sink, configuration: configuration)
        let segmenter = TransportStreamSegmenter(writer: writer, sink: sink, name: name, codec: codec, lengthSize: record.lengthSize,
                                                 timescale: track.timescale, presentationOffset: videoOffset)
        let filter = VideoSampleFilter(codec: codec, lengthSize: record.lengthSize, policy: options.openGOP,
                                       inBandParameterSets: inBand ?? [record.parameterSets])
        filter.parameterSetsAtEverySyncSample = true

        var audioFrame = [UInt8]()
        /// Writes each audio stream's frames that start before `seconds` on the presentation timeline.
        func writeAudio(before seconds: Double?) throws {
            for index in lanes.indices {
                while true {
                    if lanes[index].pending == nil { lanes[index].pending = try lanes[index].samples.next() }
                    guard let next = lanes[index].pending else { break }
                    let lane = lanes[index]
                    let scale = lane.reader.track.timescale
                    try PackagedTime.check(next.pts, timescale: scale, field: "\(source.path) audio presentation time", byteOffset: next.offset)
                    if let seconds, Double(next.pts - lane.offset) / Double(scale) >= seconds { break }
                    try lane.reader.read(next, into: &audioFrame)
                    let pts = try Self.transportStreamTime(next.pts, offset: lane.offset, scale, field: "\(source.path) audio presentation time")
                    try audioFrame.withUnsafeBytes { raw in try writer.writeAudio(raw, pts: pts, stream: index) }
                    lanes[index].pending = nil
                }
            }
        }
        // Audio up to each picture's decoding time goes before it.
        segmenter.beforeSample = { decode in try writeAudio(before: Double(decode - videoOffset) / Double(track.timescale)) }
        defer { segmenter.beforeSample = nil }
        var bytes = MP4SampleReader()
        var iterator = mp4.samples()
        var first: Int64?
        while let next = try iterator.next() {
            try checkSize(next)
            let startsSegment = try startsSegment(next, first: &first, timescale: track.timescale, segments: segmenter.segments.count + 1,
                                                  path: source.path)
            try filter.push(next, timing: PackagedTime.timing(decode: next.dts, presentation: next.pts, duration: Int64(next.duration),
                                                              timescale: track.timescale, name: "\(source.path) video", byteOffset: next.offset),
                            startsSegment: startsSegment, reader: mp4, bytes: &bytes, into: segmenter)
        }
        try filter.finish(into: segmenter)
        try writeAudio(before: nil)
        try writer.finish()
        try segmenter.flush()
        notes += Self.openGOPNotes(filter, path: source.path, name: name, transportStream: true)
        packaged.segments = segmenter.segments
        let ticks = segmenter.segments.reduce(Int64(0)) { $0 + $1.duration }
        if ticks > 0 { packaged.frameRate = Double(segmenter.count) * Double(track.timescale) / Double(ticks) }
        return (packaged, audioCodecs.isEmpty ? nil : audioCodecs.joined(separator: ","))
    }
}

extension Packager {
    /// The CODECS entry (RFC 6381 3.3) of an audio track in MPEG-TS segments: its sample entry's
    /// (``CodecString/audio(sampleEntry:)``), or for QuickTime's `.mp2`/`.mp3` entries, which
    /// have no `esds`, MPEG audio's objectTypeIndication by its `stream_type` (0x6B MPEG-1, 0x69 MPEG-2).
    static func codecs(_ track: TransportStreamAudioTrack) -> String? {
        if let codecs = track.reader.track.sampleEntries.first.flatMap({ CodecString.audio(sampleEntry: $0) }) { return codecs }
        guard case .mpegAudio = track.stream.format else { return nil }
        return track.stream.streamType == .mpeg2Audio ? "mp4a.69" : "mp4a.6B"
    }
}

/// One audio track of an MPEG-TS segmented rendition (``Packager/packageTransportStream(_:name:withAudio:)``):
/// its samples in turn, the edit's `media_time` they are timed from, the next one read.
private struct AudioLane {
    let reader: MP4TrackReader<AnyRandomAccessSource>
    var samples: MP4SampleIterator<AnyRandomAccessSource>
    let offset: Int64
    var pending: MP4Sample?
}

extension Packager {
    /// The segment a sample presenting at `time` (seconds from the presentation's start) goes
    /// into, the current one being `segment`: past every boundary (the video's segment starts)
    /// it has reached, 1 ns early counting as reached (the audio's and the video's times are
    /// rounded in their own timescales).
    static func segment(at time: Double, from segment: Int, boundaries: [Double]) -> Int {
        var target = segment
        while target < boundaries.count, time + 1e-9 >= boundaries[target] { target += 1 }
        return target
    }

    /// An audio track of an MP4/MOV input as its own rendition of MPEG-TS segments (RFC 8216 3.2,
    /// an `EXT-X-MEDIA TYPE=AUDIO` rendition's media): a program of that one audio stream (AAC as
    /// ADTS, AC-3, MPEG audio, with its ISO 639 language descriptor), the PCR on its PID, each
    /// segment starting with PAT and PMT and cut at the video's segment times (`boundaries`, s on
    /// the presentation timeline), times at 90 kHz from ``transportStreamStart`` as the video's.
    func packageTransportStreamAudio(_ audio: TransportStreamAudioTrack, inputPath: String, name: String, boundaries: [Double]) throws -> PackagedTrack {
        let reader = audio.reader
        let track = reader.track
        let offset = try PackagedTime.check(track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0, timescale: track.timescale,
                                            field: "\(inputPath) track \(track.trackID) edit list media_time")
        var packaged = PackagedTrack(kind: .audio, inputPath: inputPath, name: name, initName: nil, timescale: track.timescale,
                                     codecs: Self.codecs(audio) ?? "", channels: track.sampleEntries.first.flatMap { CodecString.channels(sampleEntry: $0) },
                                     presentationOffset: offset)
        packaged.language = track.language.flatMap { $0 == "und" ? nil : $0 }
        var configuration = TransportStreamWriterConfiguration(videoStreamType: .h264)
        configuration.carriesVideo = false
        configuration.audioStreams = [audio.stream]
        let sink = SegmentFileSink(folder: folder)
        let writer = try TransportStreamWriter(sink: sink, configuration: configuration)
        var open: (name: String, decode: Int64, presentation: Int64, duration: Int64, samples: Int)?
        func flush() throws {
            guard let current = open else { return }
            try writer.startSegment()
            let bytes = try sink.next(name: nil)
            packaged.segments.append(PackagedSegment(name: current.name, decodeTime: current.decode, presentationTime: current.presentation &- offset,
                                                     duration: current.duration, bytes: bytes, samples: current.samples, startsWithSyncSample: true))
            open = nil
        }
        var segment = 0
        // One read per run of adjacent samples (SampleRuns).
        try SampleRuns.forEach(of: reader, check: checkSize) { sample, raw in
            let timing = try PackagedTime.timing(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration),
                                                 timescale: track.timescale, name: "\(inputPath) track \(track.trackID)", byteOffset: sample.offset)
            let target = Self.segment(at: Double(sample.pts - offset) / Double(track.timescale), from: segment, boundaries: boundaries)
            if target != segment {
                try flush()
                segment = target
            }
            if open == nil {
                let number = String(packaged.segments.count + 1)
                let segmentName = name + "_" + String(repeating: "0", count: max(0, 5 - number.count)) + number + ".ts"
                try sink.next(name: segmentName)
                open = (segmentName, timing.decode, timing.presentation, 0, 0)
            }
            let pts = try Self.transportStreamTime(sample.pts, offset: offset, track.timescale, field: "\(inputPath) audio presentation time")
            try writer.writeAudio(raw, pts: pts)
            open?.duration += timing.duration
            open?.samples += 1
        }
        // The last packets into the open segment, then it is committed.
        if open != nil { try writer.finish() }
        try flush()
        return packaged
    }
}
