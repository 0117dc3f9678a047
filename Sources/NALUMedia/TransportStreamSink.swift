public import NALU
public import NALUTS
public import NALUMP4

/// MPEG-2 transport stream output (``TransportStreamMuxer``): one program with the video
/// stream, each access unit one PES packet with PTS/DTS from the picture order, delimiters and
/// in-band parameter sets added, PAT/PMT and PCR repeated.
public final class TransportStreamSink<Output: ByteSink>: MediaSink {
    public let muxer: TransportStreamMuxer<Output>

    /// - Throws: ``NALU/NALUError`` (typed): options or parameter sets the muxer refuses.
    public init(codec: Codec, output: Output, options: TransportStreamMuxerOptions,
                outOfBandParameterSets: [[UInt8]] = [], declarativeSEI: [[UInt8]] = []) throws(NALUError) {
        muxer = try TransportStreamMuxer(codec: codec, sink: output, options: options,
                                         outOfBandParameterSets: outOfBandParameterSets, declarativeSEI: declarativeSEI)
    }

    /// The clock of the source's times, when the PES packets keep them (``init(for:output:options:)``).
    public private(set) var sampleClock: SampleClock?

    /// For `source`: its record's parameter sets and SEI go in band before keyframes; for MP4
    /// input just before the first slice, as FFmpeg's h264_mp4toannexb/hevc_mp4toannexb place them.
    /// Without a frame rate in `options`, an MP4/MOV or transport stream input keeps its own
    /// times (``SampleClock``, ``NALUTS/TransportStreamMuxer/useSourceTiming(timescale:presentationOrigin:lookup:)``):
    /// converted to 90 kHz, an MP4's edit list applied as a shift (the picture at the first
    /// edit's `media_time` presents at the first PTS, where its audio starts too; pictures the
    /// edit list hid stay before it, as a transport stream cannot hide them).
    /// - Throws: ``NALU/NALUError`` (typed): options or parameter sets the muxer refuses; the source's sample table.
    public convenience init(for source: MediaSource, output: Output, options: TransportStreamMuxerOptions) throws(NALUError) {
        var options = options
        if source.container.isMP4 { options.placement = .beforeFirstSlice }
        try self.init(codec: source.codec, output: output, options: options,
                      outOfBandParameterSets: source.outOfBandParameterSets, declarativeSEI: source.declarativeSEI)
        if options.frameRate == nil { try keepTimes(of: source) }
    }

    /// Times the access units from `source`'s own times (MP4/MOV, MPEG-TS; nothing for an
    /// elementary stream), as ``init(for:output:options:)`` describes: before the first NAL unit.
    public func keepTimes(of source: MediaSource) throws(NALUError) {
        try NALUError.typed(field: "sample times") {
            guard let clock = source.sampleClock() else { return }
            // The picture shown at the edit's start presents at the first PTS (``MediaSource/videoMediaOrigin()``).
            let origin: Int64? = source.mp4 == nil ? nil : try source.videoMediaOrigin()
            try muxer.useSourceTiming(timescale: clock.timescale, presentationOrigin: origin,
                                      lookup: clock.lookup(decodingEarlierBy: try source.decodeAdvance()))
            sampleClock = clock
        }
    }

    /// The AAC track's feeder, when the output carries one.
    public internal(set) var audio: TransportStreamAudioFeeder?
    /// The feeders of an MP4/MOV input's sound tracks carried (``carry(_:of:decodeTimes:)``).
    public internal(set) var mp4Audio: [TransportStreamAudioFeeder] = []
    /// The feeders of a transport stream input's audio streams carried (``carry(_:of:range:)``).
    public internal(set) var carriedAudio: [TransportStreamToTransportStreamAudioFeeder] = []

    /// For `source` (MP4/MOV), with the AAC track `audio` (``MediaSource/transportStreamAudioTrack()``)
    /// as an ADTS stream interleaved with the video by time (``TransportStreamAudioFeeder``);
    /// `decodeTimes` limits it to a range of its decoding times (trimming).
    /// - Throws: ``NALU/NALUError`` (typed): what ``init(for:output:options:)`` throws; audio the muxer cannot carry.
    public convenience init(for source: MediaSource, output: Output, options: TransportStreamMuxerOptions,
                            audio: (reader: MP4TrackReader<AnyRandomAccessSource>, audioSpecificConfig: [UInt8])?,
                            decodeTimes: Range<Int64>? = nil) throws(NALUError) {
        try self.init(for: source, output: output, options: options)
        guard let audio, let video = source.mp4 else { return }
        try muxer.addAudio(audioSpecificConfig: audio.audioSpecificConfig)
        let feeder = TransportStreamAudioFeeder(reader: audio.reader, movieTimescale: video.track.movieTimescale,
                                                videoDelay: editListStart(video.track.editList).delay, decodeTimes: decodeTimes)
        feeder.attach(to: muxer)
        self.audio = feeder
    }

    public func push(_ unit: NALUnitView) throws(NALUError) { try muxer.push(unit) }

    public func finish() throws(NALUError) -> MediaSinkReport {
        let summary = try muxer.finish()
        var notes: [String] = []
        if summary.frameRateAssumed {
            notes.append("the stream has no VUI timing; timestamps assume \(summary.frameRate) fps (give --fps)")
        }
        if summary.trailingNALUnitsDropped > 0 {
            notes.append("\(summary.trailingNALUnitsDropped) NAL units after the last picture belong to no access unit and were dropped")
        }
        var report = MediaSinkReport(statistics: summary.statistics, notes: notes)
        report.transportStream = summary
        return report
    }
}

extension TransportStreamSink {
    /// Carries `audio` (an MP4/MOV input's AAC track, ``MediaSource/transportStreamAudioTrack()``)
    /// as ADTS beside the video, interleaved by time and keeping the input's A/V offset (edit
    /// lists), as ``init(for:output:options:audio:decodeTimes:)`` does. Nothing for `nil`.
    public func attachAudio(_ audio: (reader: MP4TrackReader<AnyRandomAccessSource>, audioSpecificConfig: [UInt8])?, source: MediaSource) throws(NALUError) {
        try NALUError.typed(field: "audio track") {
            guard let audio, let video = source.mp4 else { return }
            try muxer.addAudio(audioSpecificConfig: audio.audioSpecificConfig)
            let feeder = TransportStreamAudioFeeder(reader: audio.reader, movieTimescale: video.track.movieTimescale,
                                                    videoDelay: editListStart(video.track.editList).delay)
            feeder.attach(to: muxer)
            self.audio = feeder
        }
    }
}

extension TransportStreamSink {
    /// Carries `source`'s (an MPEG-TS) AAC stream `audio` into this program at its own PTS,
    /// timed against where the first picture presents (``TransportStreamAudioReader/origin(in:)``).
    /// The stream keeps its coding, `stream_type` and language (``TransportStreamAudioReader/transportStreamStream()``).
    @discardableResult
    public func carry(_ audio: TransportStreamAudioReader, of source: MediaSource, range: Range<Int64>? = nil) throws(NALUError) -> TransportStreamToTransportStreamAudioFeeder {
        return try NALUError.typed(field: "audio stream") {
            let index = try muxer.addAudio(try audio.transportStreamStream())
            let feeder = TransportStreamToTransportStreamAudioFeeder(reader: audio, origin: audio.origin(in: source), range: range, stream: index)
            feeder.attach(to: muxer)
            carriedAudio.append(feeder)
            return feeder
        }
    }
}

extension TransportStreamSink {
    /// Carries `tracks` (an MP4/MOV input's sound tracks, ``MediaSource/transportStreamAudioTracks()``)
    /// beside the video, one audio stream each in track order with its coding and language,
    /// interleaved by time and keeping the input's A/V offset (edit lists), as
    /// ``attachAudio(_:source:)`` does for one; `decodeTimes` limits each to a range of its
    /// decoding times (its timescale: trimming).
    public func carry(_ tracks: [TransportStreamAudioTrack], of source: MediaSource, decodeTimes: [Range<Int64>?]? = nil) throws(NALUError) {
        try NALUError.typed(field: "audio track") {
            guard let video = source.mp4 else { return }
            for (index, track) in tracks.enumerated() {
                let stream = try muxer.addAudio(track.stream)
                let range = decodeTimes.flatMap { index < $0.count ? $0[index] : nil }
                let feeder = TransportStreamAudioFeeder(reader: track.reader, movieTimescale: video.track.movieTimescale,
                                                        videoDelay: range == nil ? editListStart(video.track.editList).delay : 0,
                                                        decodeTimes: range, stream: stream)
                feeder.attach(to: muxer)
                mp4Audio.append(feeder)
            }
        }
    }
}
