public import NALU
public import NALUIO
public import NALUMP4
public import NALUTS

/// Cuts a time range out of a stream without re-encoding, in two passes: ``index()`` reads the
/// timing of every access unit (``TrimIndex``), ``plan(start:end:)`` decides what to keep
/// (``TrimPlan``), and ``write(_:makeSink:)`` (or ``writeMP4(_:output:options:audio:)``,
/// ``writeAnnexB(_:output:options:)``) copies those access units into a sink.
///
/// The second pass reads the input again: an MP4 (a file, or a pipe already spooled by
/// ``MediaSource``) through its sample table, an elementary stream by opening its path again.
/// An elementary stream on standard input cannot be read twice and is refused.
///
/// ```swift
/// let trimmer = try Trimmer(path: "in.mp4")
/// let plan = try trimmer.plan(start: MediaTime(parsing: "1"), end: MediaTime(parsing: "2"))
/// let report = try trimmer.writeMP4(plan, output: FileSink(path: "out.mp4"), options: MP4MuxerOptions())
/// ```
public final class Trimmer {
    /// The input path (`"-"`: standard input).
    public let path: String
    public let options: MediaSourceOptions
    /// The input as first opened.
    public let source: MediaSource
    /// Frames per second for streams without timing (`--fps`), or `nil`.
    public let frameRate: Rational?
    private var cachedIndex: TrimIndex?
    /// The audio tracks the last ``writeMP4(_:output:options:audio:)`` or
    /// ``writeTransportStream(_:output:options:audio:)`` cut.
    public private(set) var audioCuts: [TrimAudioCut] = []
    /// The PIDs of a transport stream input's audio streams the last write carried.
    public private(set) var transportStreamAudioCuts: [UInt16] = []
    /// The PID of the first of them, if any.
    public var transportStreamAudioCut: UInt16? { transportStreamAudioCuts.first }
    /// The other tracks (subtitles, timecode, metadata) the last
    /// ``writeMP4(_:output:options:audio:)`` cut (``TrimTrackCut``).
    public private(set) var trackCuts: [TrimTrackCut] = []
    /// The track_IDs of such tracks with nothing in the range (``TrimTrackCut/cuts(for:source:segmentDuration:movieTimescale:)``).
    public private(set) var tracksEmptyInRange: [UInt32] = []
    /// Every input track the last write carried or had nothing of in its range: the audio, the
    /// other tracks, a transport stream's audio streams as `0x1_0000 | PID`.
    public var carriedTrackIDs: Set<UInt32> {
        Set(audioCuts.map(\.reader.track.trackID) + trackCuts.map(\.reader.track.trackID) + tracksEmptyInRange
            + transportStreamAudioCuts.map { UInt32($0) | 0x1_0000 })
    }
    private var passes = 0

    /// Opens `path` (see ``MediaSource/init(path:options:)``).
    /// - Throws: ``NALU/NALUError`` (typed): what ``MediaSource/init(path:options:)`` throws; the index's errors (a malformed stream, no frame rate).
    public init(path: String, options: MediaSourceOptions = MediaSourceOptions(), frameRate: Rational? = nil) throws(NALUError) {
        self.path = path
        self.options = options
        self.frameRate = frameRate
        source = try MediaSource(path: path, options: options)
    }

    /// The timing index (the first pass; read once, then kept).
    public func index() throws(NALUError) -> TrimIndex {
        return try NALUError.typed(field: "trim") {
            if let cachedIndex { return cachedIndex }
            let index = try TrimIndex(source: try sourceForPass(), frameRate: frameRate)
            cachedIndex = index
            return index
        }
    }

    /// Plans the cut of `[start, end)` (see ``TrimPlan``); `end` `nil` runs to the end.
    public func plan(start: MediaTime, end: MediaTime?) throws(NALUError) -> TrimPlan {
        return try NALUError.typed(field: "trim") {
            try TrimPlan(index: index(), start: start, end: end)
        }
    }

    /// The source for the next pass: the first pass reads ``source``; later ones read an MP4 again
    /// through its sample table, and open an elementary stream's path again.
    private func sourceForPass() throws(NALUError) -> MediaSource {
        defer { passes += 1 }
        if passes == 0 || source.mp4 != nil { return source }
        guard path != "-" else {
            throw NALUError(.unsupported, field: "standard input",
                            detail: "a cut reads an elementary stream twice (timing, then copy); save it to a file first, or pipe MP4")
        }
        let again = try MediaSource(path: path, options: options)
        guard again.codec == source.codec, again.container == source.container else {
            throw NALUError(.invalidValue, field: path, detail: "changed between the two passes")
        }
        return again
    }

    /// Copies the access units `plan` keeps into the sink `makeSink` returns. `makeSink` is called
    /// at the first access unit kept with the parameter sets a decoder needs there (the record's,
    /// then those the stream carried before, latest version of each id), which the sink must
    /// write or hold out of band; the sink is then fed the kept NAL units and finished.
    public func write(_ plan: TrimPlan, makeSink: ([[UInt8]]) throws -> any MediaSink) throws -> MediaSinkReport {
        try write(plan) { sets, _ in try makeSink(sets) }
    }

    /// ``write(_:makeSink:)`` with the clock of the pass's input (``MediaSource/sampleClock()``,
    /// fed with its MP4 samples as they are read), for a sink that keeps the source's times.
    public func write(_ plan: TrimPlan, makeSink: ([[UInt8]], SampleClock?) throws -> any MediaSink) throws -> MediaSinkReport {
        let input = try sourceForPass()
        let clock = plan.hasSourceTimes ? input.sampleClock() : nil
        var splitter = try input.splitter()
        var store = ParameterSetStore(codec: input.codec)
        for unit in input.outOfBandParameterSets { try store.add(unit) }
        var position = -1
        var sink: (any MediaSink)?
        var dropped = plan.droppedAccessUnits.makeIterator()
        var nextDropped = dropped.next()
        var droppingCurrent = false
        do {
            try input.forEachNALUnit(sampleStarts: { clock?.add($0) }) { unit in
                let step = try splitter.push(unit)
                if step.startsAccessUnit {
                    position += 1
                    if let value = nextDropped, value < position { nextDropped = dropped.next() }
                    droppingCurrent = nextDropped == position
                }
                // Past the last access unit kept: the rest of the input is not read.
                guard position <= plan.lastAccessUnit else { throw EndOfCut() }
                if position < plan.firstAccessUnit {
                    if step.header.isParameterSet {
                        do throws(NALUError) { try store.add(unit.array) } catch { throw error.offset(by: unit.offset) }
                    }
                    return
                }
                if sink == nil { sink = try makeSink(store.nalUnits, clock) }
                // A dropped picture's parameter sets still pass: later pictures may use them.
                if droppingCurrent && !step.header.isParameterSet { return }
                try sink?.push(unit)
            }
        } catch is EndOfCut {}
        guard let sink else {
            throw NALUError(.missing, field: "access unit", detail: "access unit \(plan.firstAccessUnit) was not found on the second pass")
        }
        return try sink.finish()
    }

    /// Writes the cut as MP4 (``MP4FileSink``) with the edit list that shows exactly the presented
    /// range. An input with its own times (MP4/MOV, MPEG-TS: ``TrimPlan/hasSourceTimes``) keeps
    /// them, in its timescale, and the edit list shows exactly `[start, end)`
    /// (``TrimPlan/sourceEditList(timescale:movieTimescale:)``); an elementary stream is timed at
    /// the plan's frame rate. `options.frameRate` and `options.editList` are set from the plan. With `audio`, an
    /// MP4/MOV input's sound tracks are cut to the same range (``TrimAudioCut``): their samples
    /// copied unchanged, interleaved with the video, each with its own edit list; the movie then
    /// has the video's timescale. ``audioCuts`` tells what was kept.
    /// - Throws: ``NALU/NALUError`` (typed): the input's, the muxer's or the output's error.
    public func writeMP4(_ plan: TrimPlan, output: FileSink, options: MP4MuxerOptions, audio: Bool = false) throws(NALUError) -> MediaSinkReport {
        do { return try mp4(plan, output: output, options: options, audio: audio) } catch { throw NALUError.converting(error, field: "trim") }
    }

    private func mp4(_ plan: TrimPlan, output: FileSink, options: MP4MuxerOptions, audio: Bool) throws -> MediaSinkReport {
        var options = options
        let timing: (timescale: UInt32, frameDuration: UInt32)
        if plan.hasSourceTimes {
            // The source's timescale and times; the edit list shows exactly [start, end).
            let timescale = UInt32(clamping: plan.timeBase.denominator)
            timing = (timescale, 1)
            options.frameRate = nil
            options.movieTimescale = timescale
            options.editList = plan.sourceEditList(timescale: timescale, movieTimescale: timescale)
            options.editListFollowsSampleTimes = true
        } else {
            options.frameRate = plan.frameRate
            let frameTiming = try MP4FrameTiming(frameRate: plan.frameRate)
            timing = (frameTiming.timescale, frameTiming.frameDuration)
            options.editList = plan.mp4EditList(timescale: timing.timescale, frameDuration: timing.frameDuration)
        }
        let videoDuration = options.editList?.reduce(UInt64(0)) { $0 &+ $1.segmentDuration } ?? 0
        let cuts = audio ? try TrimAudioCut.cuts(for: plan, source: source, segmentDuration: videoDuration) : []
        audioCuts = cuts
        // A transport stream's audio streams, each cut to the same presented range (``TransportStreamAudioMP4Feeder``).
        let tsAudio = audio ? try source.transportStreamAudioStreams() : []
        transportStreamAudioCuts = tsAudio.map(\.pid)
        var tsFeeders: [TransportStreamAudioMP4Feeder] = []
        if !tsAudio.isEmpty {
            let range = plan.presentedRange(timescale: 90_000)
            let segment = options.editList.map { $0.reduce(UInt64(0)) { $0 &+ $1.segmentDuration } }
            options.movieTimescale = timing.timescale
            options.passthroughTracks = tsAudio.map(\.mp4Track)
            for (index, stream) in tsAudio.enumerated() {
                // Source-timed, the presented range is on the source's own clock already; else it
                // counts from the first picture's time stamp.
                let start = plan.hasSourceTimes ? 0 : stream.origin(in: source)
                tsFeeders.append(TransportStreamAudioMP4Feeder(reader: stream, track: index, origin: start &+ range.lowerBound,
                                                               range: (start &+ range.lowerBound)..<(start &+ range.upperBound),
                                                               presentedDuration: segment, movieTimescale: timing.timescale))
            }
        }
        // Subtitle, timecode and metadata tracks, clipped to the same range.
        let (others, empty) = try TrimTrackCut.cuts(for: plan, source: source, segmentDuration: videoDuration, movieTimescale: timing.timescale)
        trackCuts = others
        tracksEmptyInRange = empty
        let copied = TrimTrackCut.copied(audio: cuts, others: others)
        if !copied.tracks.isEmpty {
            options.movieTimescale = timing.timescale
            options.passthroughTracks = copied.tracks
        }
        let report = try write(plan) { parameterSets, clock in
            let sink = try MP4FileSink(codec: source.codec, output: output, options: options)
            if let clock { try sink.muxer.useSourceTiming(timescale: clock.timescale, lookup: clock.lookup) }
            for unit in parameterSets { try sink.push(nalUnit: unit) }
            if !copied.tracks.isEmpty {
                let interleaver = MP4PassthroughInterleaver(tracks: copied.readers, cuts: copied.cuts)
                sink.muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
                    try interleaver.advance(to: time, timescale: timescale, writer: writer)
                }
            }
            if !tsFeeders.isEmpty {
                sink.muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
                    for feeder in tsFeeders { try feeder.advance(to: time, timescale: timescale, writer: writer) }
                }
            }
            return sink
        }
        guard let summary = report.mp4, summary.timescale == timing.timescale, plan.hasSourceTimes || summary.frameDuration == timing.frameDuration else {
            throw NALUError(.invalidValue, field: "timescale", detail: "the muxer chose another timescale than the edit list assumed")
        }
        return report
    }

    /// Writes the plan as an MPEG-TS program (``TransportStreamSink``): the parameter sets in
    /// force in band before the first picture, timed at the plan's frame rate.
    ///
    /// With `audio`, an MP4/MOV input's AAC, AC-3 and MPEG audio tracks
    /// (``MediaSource/transportStreamAudioTracks()``) are cut as for MP4 (``TrimAudioCut``) and
    /// carried, one stream each: the audio at the range's start presents with the first picture
    /// in the range, after the lead-in pictures the transport stream shows (it has no edit list).
    /// A transport stream input's audio streams are cut the same way. ``audioCuts`` and
    /// ``transportStreamAudioCuts`` tell what was kept.
    /// - Throws: ``NALU/NALUError`` (typed): the input's, the muxer's or the output's error.
    public func writeTransportStream<Output: ByteSink>(_ plan: TrimPlan, output: Output,
                                                       options: TransportStreamMuxerOptions, audio: Bool = false) throws(NALUError) -> MediaSinkReport {
        do { return try transportStream(plan, output: output, options: options, audio: audio) } catch { throw NALUError.converting(error, field: "trim") }
    }

    private func transportStream<Output: ByteSink>(_ plan: TrimPlan, output: Output,
                                                   options: TransportStreamMuxerOptions, audio: Bool) throws -> MediaSinkReport {
        var options = options
        options.frameRate = plan.hasSourceTimes ? nil : options.frameRate ?? plan.frameRate
        if source.container.isMP4 { options.placement = .beforeFirstSlice }
        let carried = audio ? try source.transportStreamAudioTracks() : []
        let allCuts = carried.isEmpty ? [] : try TrimAudioCut.cuts(for: plan, source: source, segmentDuration: 0)
        let mp4Audio = carried.compactMap { track in
            allCuts.first { $0.reader.track.trackID == track.reader.track.trackID }.map { (stream: track.stream, cut: $0) }
        }
        audioCuts = mp4Audio.map(\.cut)
        let rate = (options.frameRate ?? plan.frameRate).reduced
        // A transport stream's audio: the range's frames, the lead-in pictures' time before them.
        let tsAudio = audio ? try source.transportStreamAudioStreams() : []
        transportStreamAudioCuts = tsAudio.map(\.pid)
        return try write(plan) { parameterSets, clock in
            let sink = try TransportStreamSink(codec: source.codec, output: output, options: options, outOfBandParameterSets: parameterSets,
                                               declarativeSEI: source.declarativeSEI)
            if let clock {
                // The first picture kept (a lead-in picture: no edit list hides them) presents at
                // the first PTS; the range's start that much later, where its audio starts.
                let firstKept = plan.firstShownSourceTime &- (plan.firstShownTick &- plan.firstKeptTick)
                try sink.muxer.useSourceTiming(timescale: clock.timescale, presentationOrigin: firstKept,
                                               lookup: clock.lookup(decodingEarlierBy: try source.decodeAdvance()))
            }
            for (stream, cut) in mp4Audio {
                try addAudio(stream, cut: cut, plan: plan, rate: rate, sourceTimed: clock != nil, to: sink)
            }
            for stream in tsAudio where clock != nil || rate.numerator > 0 {
                // Source-timed, the presented range is on the source's own clock already; else it
                // counts from the first picture's time stamp.
                let start = clock != nil ? 0 : stream.origin(in: source)
                let index = try sink.muxer.addAudio(try stream.transportStreamStream())
                let range = plan.presentedRange(timescale: 90_000)
                // The lead-in pictures' time at 90 kHz: from the source's times, else the rate.
                let leadIn: Int64
                if clock != nil {
                    let ticks = plan.presentedStart &- plan.firstKeptTick
                    let (product, overflow) = ticks.multipliedReportingOverflow(by: 90_000 &* plan.timeBase.numerator)
                    leadIn = overflow || plan.timeBase.denominator <= 0 ? 0 : product / plan.timeBase.denominator
                } else {
                    let (product, overflow) = Int64(plan.leadInPictures).multipliedReportingOverflow(by: 90_000 &* rate.denominator)
                    leadIn = overflow ? 0 : product / rate.numerator
                }
                let origin = start &+ range.lowerBound &- leadIn
                TransportStreamToTransportStreamAudioFeeder(reader: stream, origin: origin,
                                                            range: (start &+ range.lowerBound)..<(start &+ range.upperBound), stream: index)
                    .attach(to: sink.muxer)
            }
            return sink
        }
    }

    /// Carries an MP4/MOV sound track's cut into `sink` as audio stream `stream`, its first frame
    /// at the range's start less the lead-in pictures' time.
    private func addAudio<Output: ByteSink>(_ stream: TransportStreamAudioStream, cut: TrimAudioCut, plan: TrimPlan, rate: Rational,
                                            sourceTimed: Bool, to sink: TransportStreamSink<Output>) throws(NALUError) {
        guard let video = source.mp4 else { return }
        if sourceTimed {
            let index = try sink.muxer.addAudio(stream)
            // The range's start on the audio's media timeline, less the lead-in's duration.
            let start = cut.decodeTimes.lowerBound &+ (cut.editList.first?.mediaTime ?? 0)
            let scale = Int64(cut.reader.track.timescale)
            let leadIn = plan.presentedStart &- plan.firstKeptTick
            let (product, overflow) = leadIn.multipliedReportingOverflow(by: scale)
            let leadInAudio = overflow || plan.timeBase.denominator <= 0 ? 0
                : product &* plan.timeBase.numerator / plan.timeBase.denominator
            let feeder = TransportStreamAudioFeeder(reader: cut.reader, movieTimescale: video.track.movieTimescale, videoDelay: 0,
                                                    decodeTimes: cut.decodeTimes, origin: start &- leadInAudio, stream: index)
            feeder.attach(to: sink.muxer)
        } else if rate.numerator > 0 {
            let index = try sink.muxer.addAudio(stream)
            // The range's start on the audio's media timeline, less the lead-in's duration.
            let start = cut.decodeTimes.lowerBound &+ (cut.editList.first?.mediaTime ?? 0)
            let (leadIn, overflow) = Int64(plan.leadInPictures).multipliedReportingOverflow(by: Int64(cut.reader.track.timescale) &* rate.denominator)
            let feeder = TransportStreamAudioFeeder(reader: cut.reader, movieTimescale: video.track.movieTimescale, videoDelay: 0,
                                                    decodeTimes: cut.decodeTimes,
                                                    origin: start &- (overflow ? 0 : leadIn / rate.numerator), stream: index)
            feeder.attach(to: sink.muxer)
        }
    }

    /// Writes the cut as Annex-B, the parameter sets in force written before the first keyframe
    /// (and before later keyframes that lack them, as ``AnnexBSink`` does).
    /// - Throws: ``NALU/NALUError`` (typed): the input's or the output's error.
    public func writeAnnexB<Output: ByteSink>(_ plan: TrimPlan, output: Output,
                                              options: LengthPrefixedToAnnexB.Options = .init()) throws(NALUError) -> MediaSinkReport {
        do { return try annexB(plan, output: output, options: options) } catch { throw NALUError.converting(error, field: "trim") }
    }

    private func annexB<Output: ByteSink>(_ plan: TrimPlan, output: Output, options: LengthPrefixedToAnnexB.Options) throws -> MediaSinkReport {
        try write(plan) { parameterSets in
            try AnnexBSink(codec: source.codec, output: output, options: options, outOfBandParameterSets: parameterSets,
                           declarativeSEI: source.declarativeSEI)
        }
    }

    /// Writes the cut length-prefixed (`lengthSize`-byte lengths), the parameter sets in band
    /// before the first access unit; the report's record holds them too.
    /// - Throws: ``NALU/NALUError`` (typed): the input's or the output's error.
    public func writeLengthPrefixed<Output: ByteSink>(_ plan: TrimPlan, output: Output, lengthSize: Int = 4) throws(NALUError) -> MediaSinkReport {
        do { return try lengthPrefixed(plan, output: output, lengthSize: lengthSize) } catch { throw NALUError.converting(error, field: "trim") }
    }

    private func lengthPrefixed<Output: ByteSink>(_ plan: TrimPlan, output: Output, lengthSize: Int) throws -> MediaSinkReport {
        try write(plan) { parameterSets in
            let sink = try LengthPrefixedSink(codec: source.codec, output: output,
                                              options: .init(lengthSize: lengthSize, keepParameterSets: true),
                                              outOfBandParameterSets: parameterSets)
            try sink.writeInBand(parameterSets)
            return sink
        }
    }
}

/// Ends the second pass at the first access unit after the cut.
private struct EndOfCut: Error {}
