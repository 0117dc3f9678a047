public import NALU
public import NALUIO
public import NALUMP4
public import NALUTS

/// Joins streams of one codec end to end, without re-encoding: each input in turn, from any mix
/// of Annex-B, length-prefixed (with its record) and MP4/MOV inputs, into one sink.
///
/// - **Codecs**: every input must have the first's; H.264 with H.265 is refused before anything
///   is written (``init(paths:options:)``).
/// - **Parameter sets**: each input's own go in front of its first keyframe: in band for
///   Annex-B and length-prefixed output (an MP4 input's record sets are written before its
///   keyframes, as ``AnnexBSink`` does), and for MP4 output a new sample description whenever
///   they change (a new size or profile; ``MP4Muxer``), or in band with `avc3`/`hev1`.
/// - **Joins**: an end of sequence NAL unit (H.264 7.4.1.2.3, H.265 7.4.2.4.4) ends every input
///   but the last, so the next one's picture order counts start again (H.265: its first IRAP
///   gets `NoRaslOutputFlag` 1) whatever it starts with. A CRA an H.265 input starts with
///   becomes a BLA picture, so the pictures before it are still output, and its RASL pictures,
///   which cannot decode, are dropped (``LeadingPictureFilter``).
/// - **Timing**: MP4 output of MP4/MOV inputs (of any video timescales) keeps each input's
///   sample times and what its edit list shows, laid end to end under one edit where no picture
///   is hidden between inputs (``ConcatTiming``): every input shows exactly the pictures it
///   shows alone, in ffmpeg and in players that honour one edit (GStreamer). MPEG-TS output
///   keeps them too when one edit shows every input. Otherwise (elementary inputs, a rate
///   given, a transport stream of inputs that hide pictures between them) the output is timed
///   at one constant frame rate (the option's, else the first input's: its MP4 track's, else
///   its SPS VUI's), so each input's pictures follow the last picture of the one before;
///   ``ConcatReport/frameRates`` says when inputs differ.
///
/// Audio: MP4 and MPEG-TS output join MP4/MOV inputs' sound tracks when they match
/// (``ConcatAudio``), and transport stream inputs' audio streams (``ConcatTransportStreamAudio``:
/// each input's frames kept with its pictures); elementary outputs carry the video only (the
/// report lists the other tracks).
///
/// **Inputs open one at a time**: a first pass opens each input to learn what must be known up
/// front (its codec, container and other tracks; the first one's frame rate) and closes it; each
/// is opened again when its turn comes and closed when it is done, so memory and descriptors do
/// not grow with the number of inputs (issue 32: ~140 KB and a descriptor per input, and 1,020
/// inputs failed under `ulimit -n 1024`). What cannot be read twice — standard input, a pipe, any
/// input that is not a regular file — stays open from the first pass. Joining the audio of MP4
/// inputs keeps each one's audio track (and its file) open for the whole run (``ConcatAudio``).
public final class Concatenator {
    /// The inputs in order, as the first pass found them.
    public let inputs: [ConcatInput]
    public let codec: Codec
    /// The first input's frame rate (``frameRate(of:)``), read in the first pass.
    private let firstFrameRate: Rational?
    /// Inputs that cannot be opened again (not regular files), open since the first pass.
    private var kept: [Int: MediaSource] = [:]
    /// Asked before each input and each NAL unit of a write: `true` stops it with a
    /// ``NALU/NALUError`` `.cancelled` (the caller discards its output).
    public var isCancelled: (@Sendable () -> Bool)?
    /// Told at each input's turn how many pictures the inputs before it wrote (the joined audio
    /// of transport stream inputs places each input's frames from it).
    private var inputBegins: ((_ position: Int, _ picturesBefore: Int) -> Void)?

    /// Opens every input once, in turn, and checks they share a codec.
    /// - Parameter options: per input (`options[i]` for `paths[i]`), or one for all when it has one
    ///   element.
    /// - Throws: what ``MediaSource/init(path:options:)`` throws; ``NALUError`` `.unsupported`
    ///   with field `concat` naming two inputs of different codecs
    ///   (`a.h264 is H.264 and b.h265 is H.265`).
    /// - Parameter lengthPrefixedRecord: the avcC/hvcC record of the inputs that turn out to be
    ///   length-prefixed (`--extradata`): each file input is opened without it first, and again
    ///   with it when it is neither MP4 nor Annex-B; standard input takes it at once.
    public init(paths: [String], options: [MediaSourceOptions] = [MediaSourceOptions()],
                lengthPrefixedRecord: DecoderConfigurationRecord? = nil) throws(NALUError) {
        guard !paths.isEmpty else { throw NALUError(.missing, field: "concat", detail: "no input") }
        var inputs: [ConcatInput] = []
        var firstFrameRate: Rational?
        for (position, path) in paths.enumerated() {
            var option = options.count == paths.count ? options[position] : options.first ?? MediaSourceOptions()
            if let record = lengthPrefixedRecord, path == "-" { option.record = record }
            var source = try MediaSource(path: path, options: option)
            if let record = lengthPrefixedRecord, path != "-", case .lengthPrefixed = source.container {
                option.record = record
                source = try MediaSource(path: path, options: option)
            }
            if let first = inputs.first, source.codec != first.codec {
                throw NALUError(.unsupported, field: "concat",
                                detail: "\(first.path) is \(Self.name(first.codec)) and \(path) is \(Self.name(source.codec))")
            }
            let identity = path == "-" ? nil : FileIdentity(path: path)
            if identity?.isRegularFile != true { kept[position] = source }
            if position == 0 { firstFrameRate = try Self.frameRate(of: source) }
            let hasAudio = source.otherTracks.contains { $0.handler == "soun" }
                || (source.transportStream?.otherStreams.contains(where: \.isAudio) ?? false)
            let dataStreams = source.transportStream?.otherStreams.filter { !$0.isAudio }.map(\.description) ?? []
            inputs.append(ConcatInput(path: path, codec: source.codec, container: source.container, otherTracks: source.otherTracks,
                                      dataStreams: dataStreams, hasAudio: hasAudio,
                                      options: option, identity: identity))
        }
        self.inputs = inputs
        self.firstFrameRate = firstFrameRate
        codec = inputs[0].codec
    }

    /// Input `position` for its turn: the one kept from the first pass, else the file opened again
    /// (and checked to be the same file with the same codec).
    private func open(_ position: Int, keeping: Bool = false) throws(NALUError) -> MediaSource {
        if let source = kept[position] {
            if !keeping { kept[position] = nil }
            return source
        }
        let input = inputs[position]
        let source = try MediaSource(path: input.path, options: input.options)
        guard FileIdentity(path: input.path) == input.identity, source.codec == input.codec, source.container == input.container else {
            throw NALUError(.unsupported, field: "concat", detail: "\(input.path) changed while the inputs were joined")
        }
        return source
    }

    /// The joins of the inputs' sound tracks (``ConcatAudio/plans(count:open:)``: the k-th of each
    /// into the k-th), when some input has a sound track and every input is MP4/MOV, opened for
    /// it in turn. Empty with the reason when they cannot all be joined; empty without one when
    /// some input is a transport stream (``planStreamAudio(timing:frameRate:reason:)`` joins them).
    private func planAudio() throws(NALUError) -> (audio: [ConcatAudio], reason: String?) {
        guard inputs.contains(where: { !$0.otherTracks.filter { $0.handler == "soun" }.isEmpty }) else { return ([], nil) }
        if inputs.contains(where: { $0.container.isTransportStream }) { return ([], nil) }
        if let other = inputs.first(where: { !$0.container.isMP4 }) { return ([], "\(other.path) is not MP4/MOV") }
        // One input open at a time, in the plan and in the join (issue 40 item 16).
        return try ConcatAudio.plans(count: inputs.count) { (position) throws(NALUError) in try self.open(position, keeping: true) }
    }

    /// The first input's movie metadata (an MP4/MOV's rotation, creation times, user data), or
    /// `nil` for other containers.
    /// - Throws: ``NALU/NALUError`` (typed): the first input cannot be opened again or its movie box is malformed.
    public func firstMovieMetadata() throws(NALUError) -> MP4MovieMetadata? {
        guard inputs.first?.container.isMP4 == true else { return nil }
        return try open(0, keeping: true).movieMetadata()
    }

    /// The times of the join when every input keeps its own (``ConcatTiming``): no rate given,
    /// every input an MP4/MOV or a transport stream, each transport stream read again for its
    /// turn (one read from a pipe is timed at a rate); `nil` otherwise.
    private func ownTiming(frameRate: Rational?) throws(NALUError) -> ConcatTiming? {
        guard frameRate == nil, inputs.allSatisfy({ $0.container.isMP4 || $0.container.isTransportStream }),
              !inputs.indices.contains(where: { inputs[$0].container.isTransportStream && kept[$0] != nil }) else { return nil }
        return try ConcatTiming(count: inputs.count, open: { (position) throws(NALUError) in try open(position, keeping: true) })
    }

    /// The least common multiple of two timescales, `nil` past 31 bits.
    static func leastCommonMultiple(_ a: UInt32, _ b: UInt32) -> UInt32? {
        guard a > 0, b > 0 else { return nil }
        var (x, y) = (UInt64(a), UInt64(b))
        while y != 0 { (x, y) = (y, x % y) }
        let multiple = UInt64(a) / x * UInt64(b)
        return multiple <= UInt64(Int32.max) ? UInt32(multiple) : nil
    }

    /// `H.264` / `H.265`.
    static func name(_ codec: Codec) -> String { codec == .h264 ? "H.264" : "H.265" }

    /// The end of sequence NAL unit of `codec`: H.264 `nal_unit_type` 10 with `nal_ref_idc` 0
    /// (7.3.2.6, no payload), H.265 EOS_NUT (36) with `nuh_layer_id` 0 and `TemporalId` 0.
    public static func endOfSequence(_ codec: Codec) -> [UInt8] {
        switch codec {
        case .h264: [AVCNALUnitType.endOfSequence.rawValue]
        case .hevc: HEVCNALUnitHeader(nalUnitType: .endOfSequence).bytes
        }
    }

    /// The frame rate of each input: its MP4 track's, else its SPS VUI's (from the parameter sets
    /// read so far: the record's, or `nil` for an elementary stream until it is read).
    /// An MP4/MOV source's rate when all its pictures but the last last as long (reads its sample
    /// table, not its media), else `nil`.
    private static func constantRate(of source: MediaSource) throws(NALUError) -> Rational? {
        guard let mp4 = source.mp4 else { return nil }
        var iterator = mp4.samples()
        var duration: UInt32?
        var pending: UInt32?
        while let sample = try iterator.next() {
            if let previous = pending {
                if duration == nil { duration = previous } else if duration != previous { return nil }
            }
            pending = sample.duration
        }
        guard let duration = duration ?? pending, duration > 0 else { return nil }
        return Rational(Int64(mp4.track.timescale), Int64(duration)).reduced
    }

    /// What a join timed at one rate nobody gave needs to know, asked before the join (while
    /// the inputs read once are still kept): why (``retimingReason()``), and each MP4/MOV input's
    /// constant rate (``constantRate(of:)``; only this fallback reads their sample tables again).
    private func retimingPlan() throws(NALUError) -> (reason: String, rates: [Rational?]) {
        (retimingReason(), try inputs.indices.map { (position) throws(NALUError) in inputs[position].container.isMP4 ? try Self.constantRate(of: open(position, keeping: true)) : nil })
    }

    /// The inputs with their own times (MP4/MOV, MPEG-TS) that a join timed at `rate` re-times:
    /// all but MP4/MOV inputs whose constant rate (`rates`) it is.
    private func retimed(at rate: Rational?, rates: [Rational?]) -> [Int] {
        inputs.indices.filter { inputs[$0].hasOwnTimes && (rate == nil || rates[$0] != rate?.reduced) }
    }

    /// The inputs at whose joins pictures their edit lists hide are shown (``ConcatReport/hiddenPicturesShown``):
    /// none when `timing` lays them out with their edits (`editsKept`, MP4 output) or one edit shows
    /// them all; else the joins ``ConcatTiming`` breaks, laid out for the MP4/MOV inputs (an
    /// elementary or transport stream input hides nothing).
    private func hiddenPicturesShown(timing: ConcatTiming?, editsKept: Bool) throws(NALUError) -> [Int] {
        if timing != nil, editsKept { return [] }
        var layout = timing
        if layout == nil, inputs.allSatisfy(\.container.isMP4) {
            layout = try ConcatTiming(count: inputs.count, open: { (position) throws(NALUError) in try open(position, keeping: true) })
        }
        guard let layout, layout.presentationOrigin == nil else { return [] }
        return layout.brokenJoins
    }

    /// Why a join is timed at one rate although no rate was given (asked before the join, while
    /// the inputs read once are still kept): the first input without times of its own, a
    /// transport stream read once (standard input), or timescales with no common multiple.
    private func retimingReason() -> String {
        if let bare = inputs.first(where: { !$0.hasOwnTimes }) { return "\(bare.path) has no times of its own" }
        if let once = inputs.indices.first(where: { inputs[$0].container.isTransportStream && kept[$0] != nil }) {
            return "\(inputs[once].path) is read once (not a file): its times cannot be read ahead"
        }
        return "their timescales have no common multiple below 2^31"
    }

    private static func frameRate(of source: MediaSource) throws(NALUError) -> Rational? {
        if let rate = try source.containerFrameRate() { return rate.reduced }
        var store = ParameterSetStore(codec: source.codec)
        for unit in source.outOfBandParameterSets { try store.add(unit) }
        return store.streamDescription?.frameRate?.reduced
    }

    /// Feeds every input to `sinkFor` in turn: `sinkFor(position, source)` returns the sink of
    /// input `position` (the same one each time, or a new one over the same output), which gets
    /// the input's NAL units, then an end of sequence unless it is the last, and is finished when
    /// the next input has another sink (or at the end).
    public func write(sinkFor: (Int, MediaSource) throws -> any MediaSink) throws -> ConcatReport {
        try write(timing: nil, sinkFor: sinkFor)
    }

    /// ``write(sinkFor:)``, each input's MP4 samples noted in `timing`.
    private func write(timing: ConcatTiming?, sinkFor: (Int, MediaSource) throws -> any MediaSink) throws -> ConcatReport {
        var report = ConcatReport()
        var current: (any MediaSink)?
        var lastReport: MediaSinkReport?
        for position in inputs.indices {
            timing?.begin(position)
            inputBegins?(position, report.pictures.reduce(0, +))
            // Opened now, closed at the end of its turn.
            let source = try open(position)
            timing?.attach(source, at: position)
            let sink = try sinkFor(position, source)
            if let current, current !== sink { lastReport = try current.finish() }
            current = sink
            var splitter = try source.splitter()
            var filter = LeadingPictureFilter(codec: codec, follows: position > 0)
            var pictures = 0
            let isCancelled = self.isCancelled
            try source.forEachNALUnit(sampleStarts: { timing?.add($0) }) { unit in
                if let isCancelled, isCancelled() { throw CancellationError() }
                let step = try splitter.push(unit)
                if step.isFirstVCL { pictures += 1 }
                try filter.push(unit, step: step, to: sink)
            }
            try filter.finish(to: sink)
            report.droppedLeadingPictures.append(filter.droppedPictures)
            pictures -= filter.droppedPictures
            if position + 1 < inputs.count {
                try NALUnitView.withNALUnit(Self.endOfSequence(codec)) { try sink.push($0) }
            }
            report.pictures.append(pictures)
            report.frameRates.append(try Self.frameRate(of: source) ?? splitter.parameterSets.streamDescription?.frameRate?.reduced)
            report.otherTracks.append(source.otherTracks)
        }
        if let current { lastReport = try current.finish() }
        report.sink = lastReport
        return report
    }

    /// Joins into one MP4 video track (``MP4FileSink``): a sample description per parameter-set
    /// change (or in band with `avc3`/`hev1`); MP4/MOV inputs (of any video timescales) keep their
    /// times and edit lists (``ConcatTiming``) unless `options.frameRate` is given; others are
    /// timed at `options.frameRate`, else the first input's rate.
    ///
    /// With `audio`, MP4/MOV inputs whose sound tracks can be joined (``ConcatAudio``) get one
    /// audio track of all their samples per sound track (the k-th of every input joined into
    /// the k-th, its language kept) beside the video; ``ConcatReport/audioJoined`` says whether,
    /// and ``ConcatReport/audioNotJoined`` why not. Transport stream inputs get one sound track
    /// per audio stream (``ConcatTransportStreamAudio``, ``ConcatTransportStreamInputMP4Feeder``).
    /// - Throws: ``NALU/NALUError`` (typed): an input's, the muxer's or the output's error.
    public func writeMP4(output: FileSink, options: MP4MuxerOptions, audio: Bool = false) throws(NALUError) -> ConcatReport {
        do { return try mp4(output: output, options: options, audio: audio) } catch { throw NALUError.converting(error, field: "concat") }
    }

    private func mp4(output: FileSink, options: MP4MuxerOptions, audio: Bool) throws -> ConcatReport {
        var options = options
        var joins: [ConcatAudio] = []
        var reason: String?
        if audio { (joins, reason) = try planAudio() }
        let joined = joins.first
        // MP4 and transport stream inputs keep their times and edit lists (without a rate given).
        let timing = try ownTiming(frameRate: options.frameRate)
        let rateChosenHere = timing == nil && options.frameRate == nil
        let retiming = rateChosenHere ? try retimingPlan() : nil
        if rateChosenHere { options.frameRate = firstFrameRate }
        // Timed at one rate, the output has no edits to hide pictures between pieces.
        let shownHidden = try hiddenPicturesShown(timing: timing, editsKept: true)
        // Transport stream inputs' audio streams, alone or with MP4 inputs' sound tracks, joined
        // (``ConcatTransportStreamAudio``).
        let streams = audio ? try planStreamAudio(timing: timing, frameRate: options.frameRate, reason: &reason) : []
        // The movie timescale: the audio's (else the first input's; 90 kHz for joined streams),
        // and a multiple of the video's too when it fits, so that every edit is exact (a 29.97
        // fps video's pictures are no whole number of 48 kHz ticks: rounded edits showed a
        // picture twice; issue 41 item 5; a fragmented file's 1/1000 s would round the edit
        // into a hidden picture).
        var movieTimescale = joined?.movieTimescale ?? (streams.isEmpty ? timing?.movieTimescale : TransportStreamAudioMP4Feeder.movieTimescale)
        if let base = movieTimescale, let timing, let common = Self.leastCommonMultiple(base, timing.timescale) {
            movieTimescale = common
        }
        if let timing {
            options.editList = timing.editList(movieTimescale: movieTimescale ?? timing.movieTimescale)
            options.editListFollowsSampleTimes = true
        }
        if let movieTimescale { options.movieTimescale = movieTimescale }
        let streamsTimescale = options.movieTimescale ?? TransportStreamAudioMP4Feeder.movieTimescale
        if !streams.isEmpty {
            options.passthroughTracks = streams.map { ConcatTransportStreamInputMP4Feeder.track($0, movieTimescale: streamsTimescale) }
        }
        if let joined {
            // Every joined track's edit in the movie timescale (a multiple of the video's and
            // the first sound track's media timescales).
            options.passthroughTracks = joins.map { $0.track(movieTimescale: movieTimescale ?? joined.movieTimescale) }
        }
        // Subtitle, timecode and data tracks joined after the audio (``ConcatTracks``).
        // (MP4 inputs keeping their times: the movie timescale is known for the edit lists.)
        let (others, othersReason) = inputs.allSatisfy({ $0.container.isMP4 })
            ? try ConcatTracks.plan(count: inputs.count) { (position) throws(NALUError) in try self.open(position, keeping: true) } : (nil, nil)
        if let others, let movieTimescale = options.movieTimescale ?? timing?.movieTimescale {
            options.movieTimescale = movieTimescale
            options.passthroughTracks += others.tracks(movieTimescale: movieTimescale)
        }
        let sink = try MP4FileSink(codec: codec, output: output, options: options)
        if let timing { try sink.muxer.useSourceTiming(timescale: timing.timescale, lookup: timing.lookup) }
        let feeders = joins.enumerated().map { ConcatAudioFeeder($1, track: $0) }
        let joinsTracks = others != nil && options.movieTimescale != nil
        // The other tracks' writer tracks come after the joined audio tracks'.
        let trackFeeders = joinsTracks ? others?.feeders(firstWriterTrack: feeders.count) ?? [] : []
        if !feeders.isEmpty || !trackFeeders.isEmpty {
            sink.muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
                for feeder in feeders { try feeder.advance(to: time, timescale: timescale, writer: writer) }
                for other in trackFeeders { try other.advance(to: time, timescale: timescale, writer: writer) }
            }
        }
        let streamFeeders = streams.enumerated().map {
            ConcatTransportStreamInputMP4Feeder($1, track: $0, movieTimescale: streamsTimescale)
        }
        if !streamFeeders.isEmpty {
            sink.muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
                for feeder in streamFeeders { try feeder.advance(to: time, timescale: timescale, writer: writer) }
            }
        }
        defer { inputBegins = nil }
        var report = try write(timing: timing) { _, source in
            // Each input's record sets go in before its first picture.
            for unit in source.outOfBandParameterSets { try sink.push(nalUnit: unit) }
            return sink
        }
        // With the inputs' own times there is no one rate to differ from.
        report.outputFrameRate = timing == nil ? report.sink?.mp4?.frameRate : nil
        report.hiddenPicturesShown = shownHidden
        if let retiming {
            report.timesNotKept = retimed(at: report.outputFrameRate, rates: retiming.rates)
            report.timesNotKeptReason = report.timesNotKept.isEmpty ? nil : retiming.reason
        }
        report.audioJoined = feeders.isEmpty ? nil : feeders.reduce(0) { $0 + $1.appended }
        report.audioTracksJoined = feeders.count
        if !streamFeeders.isEmpty {
            report.audioJoined = streamFeeders.reduce(0) { $0 + $1.appended }
            report.audioTracksJoined = streamFeeders.count
            report.audioFramesDroppedAtJoins = streamFeeders.map(\.dropped)
        }
        report.audioNotJoined = reason
        report.tracksJoined = joinsTracks ? others.map { $0.descriptions.map(\.trackID) } ?? [] : []
        report.tracksNotJoined = others != nil && !joinsTracks ? "the output is timed at a frame rate" : othersReason
        return report
    }

    /// Joins into one MPEG-TS program (``TransportStreamSink``): one muxer for every input, so
    /// continuity counters and timestamps run on across the joins; each input's record sets go in
    /// band before its first picture. MP4/MOV inputs that one edit would show end to end
    /// (``ConcatTiming/presentationOrigin``) keep their own times, start delays and gaps
    /// included; otherwise the join is timed at `options.frameRate`, else the first input's rate.
    ///
    /// With `audio`, MP4/MOV inputs whose sound tracks join (``ConcatAudio``) and are AAC that
    /// ADTS can carry, AC-3 or MPEG audio get one audio stream per sound track (its language
    /// kept), each input's frames timed by its own edit; the AAC
    /// priming frame of every input after the first is left out (a transport stream cannot hide
    /// it), so ``ConcatReport/audioJoined`` counts one frame less per join. Transport stream
    /// inputs' audio streams are joined stream by stream, each frame at its own PTS against its
    /// input's first picture (``ConcatTransportStreamAudio``).
    /// - Throws: ``NALU/NALUError`` (typed): an input's, the muxer's or the output's error.
    public func writeTransportStream<Output: ByteSink>(output: Output, options: TransportStreamMuxerOptions,
                                                       audio: Bool = false) throws(NALUError) -> ConcatReport {
        do { return try transportStream(output: output, options: options, audio: audio) } catch { throw NALUError.converting(error, field: "concat") }
    }

    private func transportStream<Output: ByteSink>(output: Output, options: TransportStreamMuxerOptions, audio: Bool) throws -> ConcatReport {
        var options = options
        // MP4 and transport stream inputs that one edit shows end to end keep their times (start
        // delays and gaps included); a transport stream has no edit list to hide pictures between inputs.
        let timing = try ownTiming(frameRate: options.frameRate)
        let origin = timing?.presentationOrigin
        // A transport stream has no edit list: pictures hidden between pieces are shown.
        let shownHidden = try hiddenPicturesShown(timing: timing, editsKept: false)
        let retiming = timing == nil && options.frameRate == nil ? try retimingPlan() : nil
        if origin == nil, options.frameRate == nil { options.frameRate = firstFrameRate }
        if origin != nil { options.placement = .beforeFirstSlice }
        let sink = try TransportStreamSink(codec: codec, output: output, options: options)
        if let timing, let origin {
            try sink.muxer.useSourceTiming(timescale: timing.timescale, presentationOrigin: origin,
                                           lookup: timing.lookup(decodingEarlierBy: timing.decodeAdvance))
        }
        var joins: [ConcatAudio] = []
        var reason: String?
        if audio { (joins, reason) = try planAudio() }
        var feeders: [ConcatTransportStreamAudioFeeder] = []
        // Every joined track a transport stream can carry, or none (nothing joined in part).
        let formats = joins.map { join in
            join.track.sampleEntries.count == 1 ? join.track.sampleEntries.first.flatMap(MediaSource.transportStreamFormat) : nil
        }
        if formats.contains(where: { $0 == nil }) {
            reason = "the audio is not AAC that ADTS can carry, AC-3 or MPEG audio"
        } else {
            for (join, format) in zip(joins, formats) {
                guard let format else { continue }
                let language = MP4Track.language(code: join.track.languageCode)
                let index = try sink.muxer.addAudio(TransportStreamAudioStream(format: format.0, streamType: format.1, language: language))
                let feeder = ConcatTransportStreamAudioFeeder(join, stream: index)
                feeder.attach(to: sink.muxer)
                feeders.append(feeder)
            }
        }
        // Transport stream inputs' audio streams, alone or with MP4 inputs' sound tracks, joined
        // (``ConcatTransportStreamAudio``), on the inputs' own times when they keep them.
        var streamFeeders: [ConcatTransportStreamInputAudioFeeder] = []
        for stream in audio ? try planStreamAudio(timing: origin == nil ? nil : timing, frameRate: options.frameRate, reason: &reason) : [] {
            let feeder = ConcatTransportStreamInputAudioFeeder(stream, muxerStream: try sink.muxer.addAudio(stream.format.transportStreamStream))
            feeder.attach(to: sink.muxer)
            streamFeeders.append(feeder)
        }
        defer { inputBegins = nil }
        var report = try write(timing: origin == nil ? nil : timing) { _, source in
            for unit in source.outOfBandParameterSets {
                try NALUnitView.withNALUnit(unit) { try sink.push($0) }
            }
            return sink
        }
        report.audioJoined = feeders.isEmpty ? nil : feeders.reduce(0) { $0 + $1.pushed }
        report.audioTracksJoined = feeders.count
        if !streamFeeders.isEmpty {
            report.audioJoined = streamFeeders.reduce(0) { $0 + $1.pushed }
            report.audioTracksJoined = streamFeeders.count
            report.audioFramesDroppedAtJoins = streamFeeders.map(\.dropped)
        }
        report.audioNotJoined = reason
        report.hiddenPicturesShown = shownHidden
        if let retiming {
            report.outputFrameRate = options.frameRate
            report.timesNotKept = retimed(at: options.frameRate, rates: retiming.rates)
            report.timesNotKeptReason = report.timesNotKept.isEmpty ? nil : retiming.reason
        }
        return report
    }

    /// Joins as Annex-B: each input through its own ``AnnexBSink`` over `output`, so an MP4
    /// input's record sets are written before its keyframes.
    /// - Throws: ``NALU/NALUError`` (typed): an input's or the output's error.
    public func writeAnnexB<Output: ByteSink & AnyObject>(output: Output, parameterSets: ParameterSetInsertion = .keyframes,
                                                          accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep,
                                                          maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws(NALUError) -> ConcatReport {
        do {
            return try annexB(output: output, parameterSets: parameterSets, accessUnitDelimiters: accessUnitDelimiters, maxAccessUnitSize: maxAccessUnitSize)
        } catch { throw NALUError.converting(error, field: "concat") }
    }

    private func annexB<Output: ByteSink & AnyObject>(output: Output, parameterSets: ParameterSetInsertion, accessUnitDelimiters: AccessUnitDelimiterPolicy,
                                                      maxAccessUnitSize: Int) throws -> ConcatReport {
        try write { _, source in
            try AnnexBSink(for: source, output: output, parameterSets: parameterSets, accessUnitDelimiters: accessUnitDelimiters,
                           maxAccessUnitSize: maxAccessUnitSize)
        }
    }

    /// Joins length-prefixed (`lengthSize`-byte lengths), every input's parameter sets in band in
    /// front of it (one record cannot describe inputs whose sets differ).
    /// - Throws: ``NALU/NALUError`` (typed): an input's or the output's error.
    public func writeLengthPrefixed<Output: ByteSink & AnyObject>(output: Output, lengthSize: Int = 4) throws(NALUError) -> ConcatReport {
        do { return try lengthPrefixed(output: output, lengthSize: lengthSize) } catch { throw NALUError.converting(error, field: "concat") }
    }

    private func lengthPrefixed<Output: ByteSink & AnyObject>(output: Output, lengthSize: Int) throws -> ConcatReport {
        try write { _, source in
            let sink = try LengthPrefixedSink(codec: codec, output: output, options: .init(lengthSize: lengthSize, keepParameterSets: true),
                                              outOfBandParameterSets: source.outOfBandParameterSets)
            try sink.writeInBand(source.outOfBandParameterSets)
            return sink
        }
    }
}

/// One input of a ``Concatenator``, as its first pass found it.
public struct ConcatInput: Sendable {
    /// The path given, or `"-"`.
    public let path: String
    public let codec: Codec
    public let container: MediaContainer
    /// Tracks of an MP4/MOV input other than the video track read.
    public let otherTracks: [MP4OtherTrack]
    /// A transport stream input's streams that are neither its video nor audio (private data,
    /// …), described: no join carries them.
    public let dataStreams: [String]
    /// Whether it has sound: an MP4/MOV sound track or a transport stream's audio stream.
    public let hasAudio: Bool
    /// Whether it carries times of its own: an MP4/MOV or an MPEG-TS (an elementary stream has none).
    public var hasOwnTimes: Bool { container.isMP4 || container.isTransportStream }
    /// The options it is opened with (the record, when it is length-prefixed).
    let options: MediaSourceOptions
    /// The file, to check that the one opened for its turn is the one the first pass read.
    let identity: FileIdentity?
}

/// What a ``Concatenator`` joined.
public struct ConcatReport: Sendable {
    /// Pictures of each input written, in order.
    public var pictures: [Int] = []
    /// RASL pictures dropped at the start of each input (``LeadingPictureFilter``).
    public var droppedLeadingPictures: [Int] = []
    /// Each input's own frame rate, where it says one.
    public var frameRates: [Rational?] = []
    /// The rate the output is timed at, when it is timed at one rate (MP4; MPEG-TS when the
    /// inputs' own times are not kept).
    public var outputFrameRate: Rational?
    /// The inputs (by position) with their own times (MP4/MOV, MPEG-TS) that a join timed at one
    /// rate the caller did not give re-timed (all but MP4/MOV inputs of that constant rate):
    /// their times are lost (``timesNotKeptReason`` says why), which the caller reports.
    public var timesNotKept: [Int] = []
    /// Why the join was timed at one rate, when ``timesNotKept`` is not empty.
    public var timesNotKeptReason: String?
    /// The inputs (by position) at whose joins pictures their edit lists hide are shown: an
    /// MPEG-TS output (no edit list), or an MP4 output timed at one rate (no edits kept). A loss
    /// the caller reports (``ConcatTiming/brokenJoins``; `--smart` joins re-encode those heads instead).
    public var hiddenPicturesShown: [Int] = []
    /// Each MP4 input's tracks other than the video track read (not joined).
    public var otherTracks: [[MP4OtherTrack]] = []
    /// Audio samples or frames joined (all tracks or streams), or `nil` when no audio was joined.
    public var audioJoined: Int?
    /// How many sound tracks were joined (one output track or stream each).
    public var audioTracksJoined = 0
    /// Why the inputs' audio was not joined, when some input has audio (``ConcatAudio``).
    public var audioNotJoined: String?
    /// Transport stream inputs: each joined stream's frames left out where one input's audio
    /// overlapped the next's by more than half a frame (``ConcatTransportStreamAudio``).
    public var audioFramesDroppedAtJoins: [Int] = []
    /// MP4 output: the first input's subtitle, timecode and data tracks joined (their
    /// track_IDs; every input had the same, ``ConcatTracks``), and why they were not, when some
    /// input has them.
    public var tracksJoined: [UInt32] = []
    public var tracksNotJoined: String?
    /// The last sink's report (MP4: the muxer's summary).
    public var sink: MediaSinkReport?

    public init() {}

    /// The inputs (by position) whose frame rate differs from the output's.
    public var inputsAtAnotherRate: [Int] {
        guard let output = outputFrameRate?.reduced else { return [] }
        return frameRates.enumerated().compactMap { position, rate in
            guard let rate, rate.reduced != output else { return nil }
            return position
        }
    }
}

extension Concatenator {
    /// The joined audio streams of inputs among which some are transport streams, the others
    /// MP4/MOV (``ConcatTransportStreamAudio``), each input's turn wired to place its frames: by
    /// `timing` (the inputs' own times) when given, else with the pictures laid at `frameRate`.
    /// Empty unless some input has audio and some is a transport stream; empty with `reason`
    /// set when their audio cannot be joined (an elementary input among them, streams that
    /// differ in number or coding).
    fileprivate func planStreamAudio(timing: ConcatTiming?, frameRate: Rational?, reason: inout String?) throws(NALUError) -> [ConcatTransportStreamAudioStream] {
        guard inputs.contains(where: \.container.isTransportStream), inputs.contains(where: \.hasAudio) else { return [] }
        if let other = inputs.first(where: { !$0.container.isTransportStream && !$0.container.isMP4 }) {
            reason = "\(other.path) is not MP4/MOV or MPEG-TS"
            return []
        }
        let (join, why) = try ConcatTransportStreamAudio.plan(count: inputs.count, timing: timing, frameRate: frameRate ?? firstFrameRate) { (position) throws(NALUError) in
            try self.open(position, keeping: true)
        }
        reason = why
        guard let join else { return [] }
        inputBegins = { join.begin($0, picturesBefore: $1) }
        return join.formats.indices.map { join.stream($0) }
    }
}
