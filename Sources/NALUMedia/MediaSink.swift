public import NALU
public import NALUIO
public import NALUMP4
public import NALUTS

/// Where a ``MediaSource``'s NAL units go: one shape for every output framing. NAL units are
/// pushed in decoding order, then ``finish()`` writes what is pending (the caller commits the
/// file).
///
/// Every requirement throws ``NALU/NALUError`` (typed), as ``NALU/ByteSink``'s do: a sink users
/// implement (or hand to ``Trimmer``'s `write(_:makeSink:)` and ``Concatenator/write(sinkFor:)``)
/// reports its failure as `.io` naming its output with its own text
/// (``NALU/NALUError/converting(_:field:)`` makes one from any error).
public protocol MediaSink: AnyObject {
    /// Takes the next NAL unit (escaped, header included).
    func push(_ unit: NALUnitView) throws(NALUError)
    /// Ends the stream: pending access units, an MP4 `moov`.
    func finish() throws(NALUError) -> MediaSinkReport
    /// Writes out whatever the sink still points to in NAL units it was lent
    /// (``NALU/NALUnitView/isLendable``); called before the reader reuses that memory.
    func returnLent() throws(NALUError)
    /// The clock of the source's times this sink writes (``SampleClock``), fed with the source's
    /// MP4 samples as they are read; `nil` when the sink writes no times or makes its own.
    var sampleClock: SampleClock? { get }
}

extension MediaSink {
    /// Pushes every NAL unit of `source`, then finishes. The NAL units are lent
    /// (``NALU/NALUnitView/isLendable``): a sink may keep pointers into the reader's buffer until
    /// ``returnLent()``, which the reader calls before reusing it.
    /// - Throws: ``NALU/NALUError`` (typed): the source's or the sink's.
    public func write(_ source: MediaSource) throws(NALUError) -> MediaSinkReport {
        try NALUError.typed(field: "input") {
            if let sink = self as? MP4FileSink, let report = try sink.writeParsingAhead(source, always: false) { return report }
            return try writeOnOneThread(source)
        }
    }

    /// ``write(_:)`` with every NAL unit read and pushed on the caller's thread.
    package func writeOnOneThread(_ source: MediaSource) throws -> MediaSinkReport {
        if let clock = sampleClock {
            try source.forEachNALUnit(sampleStarts: { clock.add($0) }, beforeReuse: { try self.returnLent() }) { unit in try push(unit) }
        } else {
            try source.forEachNALUnit(beforeReuse: { try self.returnLent() }) { unit in try push(unit) }
        }
        return try finish()
    }

    /// Nothing lent is kept: throws nothing (typed ``NALU/NALUError``, as the sinks' own).
    public func returnLent() throws(NALUError) {}

    /// No clock: the sink writes no times (Annex-B, length-prefixed).
    public var sampleClock: SampleClock? { nil }
}

/// What a sink did.
public struct MediaSinkReport: Sendable {
    /// The converters' counts (Annex-B and length-prefixed sinks).
    public var statistics: ConversionStatistics?
    /// The muxer's summary (MP4 sink).
    public var mp4: MP4MuxerSummary?
    /// The avcC/hvcC record of a length-prefixed output.
    public var record: [UInt8]?
    /// The transport stream muxer's summary (MPEG-TS sink).
    public var transportStream: TransportStreamMuxerSummary?
    /// Things the user should know although nothing failed, one line each, without prefix.
    public var notes: [String] = []

    public init(statistics: ConversionStatistics? = nil, mp4: MP4MuxerSummary? = nil, record: [UInt8]? = nil, notes: [String] = []) {
        self.statistics = statistics
        self.mp4 = mp4
        self.record = record
        self.notes = notes
    }
}

/// Annex-B output (start codes; ITU-T H.264/H.265 Annex B): parameter sets from outside the
/// stream are written in band before keyframes (``LengthPrefixedToAnnexB``).
public final class AnnexBSink<Output: ByteSink>: MediaSink {
    // Reached through pointers to memory this object owns: a push (once per NAL unit) then
    // costs no dynamic exclusivity check, as stored `var`s of a class would.
    private let output: UnsafeMutablePointer<Output>
    private let converter: UnsafeMutablePointer<LengthPrefixedToAnnexB>

    /// - Parameters:
    ///   - outOfBandParameterSets: a source's record sets (``MediaSource/outOfBandParameterSets``).
    ///   - declarativeSEI: an hvcC's prefix SEI NAL units.
    public init(codec: Codec, output: Output, options: LengthPrefixedToAnnexB.Options,
                outOfBandParameterSets: [[UInt8]] = [], declarativeSEI: [[UInt8]] = []) throws(NALUError) {
        let converter = try LengthPrefixedToAnnexB(codec: codec, options: options, outOfBandParameterSets: outOfBandParameterSets,
                                                   declarativeSEI: declarativeSEI)
        self.output = .owning(output)
        self.converter = .owning(converter)
    }

    deinit {
        output.freeOwned()
        converter.freeOwned()
    }

    /// For `source`: its record's sets and SEI; MP4 input places inserted sets before the first
    /// slice, as FFmpeg's h264_mp4toannexb/hevc_mp4toannexb filters do.
    ///   - maxAccessUnitSize: bytes of one access unit held back at most (``AccessUnitLimit``).
    public convenience init(for source: MediaSource, output: Output, parameterSets: ParameterSetInsertion = .keyframes,
                            accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep,
                            maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws(NALUError) {
        let options = LengthPrefixedToAnnexB.Options(parameterSets: parameterSets, accessUnitDelimiters: accessUnitDelimiters,
                                                     placement: source.container.isMP4 ? .beforeFirstSlice : .accessUnitStart,
                                                     maxAccessUnitSize: maxAccessUnitSize)
        try self.init(codec: source.codec, output: output, options: options, outOfBandParameterSets: source.outOfBandParameterSets,
                      declarativeSEI: source.declarativeSEI)
    }

    /// - Throws: ``NALU/NALUError`` (typed), as every method of this sink: the stream's or the output's error.
    public func push(_ unit: NALUnitView) throws(NALUError) { try converter.pointee.push(unit, to: &output.pointee) }

    public func returnLent() throws(NALUError) { try output.pointee.returnLent() }

    public func finish() throws(NALUError) -> MediaSinkReport {
        try converter.pointee.finish(to: &output.pointee)
        return MediaSinkReport(statistics: converter.pointee.statistics)
    }
}

/// Length-prefixed output (ISO/IEC 14496-15 AVCC/HVCC framing) with its avcC/hvcC record:
/// parameter sets move to the record unless they are kept in band.
public final class LengthPrefixedSink<Output: ByteSink>: MediaSink {
    // Pointers to memory this object owns, as in ``AnnexBSink``: no exclusivity check per push.
    private let output: UnsafeMutablePointer<Output>
    private let converter: UnsafeMutablePointer<AnnexBToLengthPrefixed>

    /// - Throws: ``NALU/NALUError`` (typed), as every method of this sink: the stream's or the output's error.
    public init(codec: Codec, output: Output, options: AnnexBToLengthPrefixed.Options, outOfBandParameterSets: [[UInt8]] = []) throws(NALUError) {
        let converter = try AnnexBToLengthPrefixed(codec: codec, options: options, outOfBandParameterSets: outOfBandParameterSets)
        self.output = .owning(output)
        self.converter = .owning(converter)
    }

    deinit {
        output.freeOwned()
        converter.freeOwned()
    }

    public func push(_ unit: NALUnitView) throws(NALUError) { try converter.pointee.convert(unit, to: &output.pointee) }

    public func returnLent() throws(NALUError) { try output.pointee.returnLent() }

    /// Writes parameter sets held outside the stream (an MP4 sample entry's, `--extradata`) in
    /// band, before the first NAL unit: with ``AnnexBToLengthPrefixed/Options/keepParameterSets``
    /// and no record written, the output then decodes on its own.
    public func writeInBand(_ parameterSets: [[UInt8]]) throws(NALUError) {
        for unit in parameterSets {
            try NALUError.typed(field: "parameter set") { try NALUnitView.withNALUnit(unit) { try push($0) } }
        }
    }

    /// The report carries the record of every parameter set seen.
    public func finish() throws(NALUError) -> MediaSinkReport {
        MediaSinkReport(statistics: converter.pointee.statistics, record: try converter.pointee.decoderConfigurationRecord().bytes)
    }
}

/// MP4 output of one video track (``MP4Muxer``) into a file; `faststart` spools the media data
/// beside the output. A stream whose parameter sets change gets a sample entry per record.
public final class MP4FileSink: MediaSink {
    public let output: FileSink
    public let muxer: MP4Muxer<FileSink>

    /// - Throws: ``NALU/NALUError`` (typed): options the muxer refuses (`.invalidValue` naming the option).
    public init(codec: Codec, output: FileSink, options: MP4MuxerOptions) throws(NALUError) {
        self.output = output
        var spool: SpoolFile?
        if options.layout == .faststart {
            // Beside the output: the same file system as the final copy, usually.
            let path = output.path
            var directory: String?
            if path != "-", let slash = path.lastIndex(of: "/") {
                directory = slash == path.startIndex ? "/" : String(path[..<slash])
            } else if path != "-" {
                directory = "."
            }
            spool = try SpoolFile(directory: directory)
        }
        muxer = try MP4Muxer(codec: codec, sink: output, options: options, spool: spool)
    }

    /// The clock of the source's times, when the samples keep them (``init(for:output:options:)``).
    public private(set) var sampleClock: SampleClock?

    /// For `source`: its record's sets go in first. Without a frame rate in `options`, an MP4/MOV
    /// or transport stream input keeps its own times (``SampleClock``,
    /// ``MP4Muxer/useSourceTiming(timescale:lookup:)``): the track's timescale, every sample's
    /// decoding time, composition offset and duration, and (MP4) an edit list equivalent to the
    /// input's (unless `options` give one). An elementary stream is timed at the frame rate of
    /// `options`, else its SPS VUI's.
    /// `parameterSets` replaces the source's record sets (edited ones).
    /// - Throws: ``NALU/NALUError`` (typed): options the muxer refuses, the source's sample table, a parameter set the muxer refuses.
    public convenience init(for source: MediaSource, output: FileSink, options: MP4MuxerOptions,
                            parameterSets: [[UInt8]]? = nil) throws(NALUError) {
        let (timed, clock) = try Self.options(options, keepingTimesOf: source)
        try self.init(codec: source.codec, output: output, options: timed)
        if let clock { try keepTimes(clock) }
        // No callback is set yet (``MP4Muxer/willAppendVideoSample``): the push throws only NALUError.
        for unit in parameterSets ?? source.outOfBandParameterSets {
            try NALUError.typed(field: "parameter set") { try push(nalUnit: unit) }
        }
    }

    /// `options` for an output that keeps `source`'s times, and the clock to give
    /// ``keepTimes(_:)``: without a frame rate in `options`, an MP4/MOV or transport stream
    /// input's (an MP4's edit list too, unless `options` give one); else `options` unchanged
    /// and no clock.
    public static func options(_ options: MP4MuxerOptions, keepingTimesOf source: MediaSource) throws(NALUError) -> (MP4MuxerOptions, SampleClock?) {
        return try NALUError.typed(field: "sample times") {
            var options = options
            guard options.frameRate == nil, let clock = source.sampleClock() else { return (options, nil) }
            if let track = source.mp4?.track, options.editList == nil {
                let movieTimescale = track.editList.isEmpty ? options.movieTimescale : options.movieTimescale ?? track.movieTimescale
                options.movieTimescale = movieTimescale
                options.editList = source.videoEditList(decodeOrigin: try source.firstDecodeTime(), movieTimescale: movieTimescale ?? track.timescale)
                options.editListFollowsSampleTimes = true
            } else if options.layout == .fragmented, options.editList == nil, let start = source.transportStreamVideoStart,
                      let first = source.transportStream?.firstTimestamps.first, let firstDecode = first.decoding ?? first.presentation {
                // A transport stream into fragments: `moov` goes first, so the edit that shows the
                // first picture at time 0 is known from the first PES time stamps, not from the
                // samples (the other layouts compute it at the end). Duration 0: the rest of the media.
                options.editList = [MP4EditListEntry(segmentDuration: 0, mediaTime: start &- firstDecode)]
                options.editListFollowsSampleTimes = true
            }
            return (options, clock)
        }
    }

    /// Times the samples from `clock` (``MP4Muxer/useSourceTiming(timescale:lookup:)``), which
    /// ``MediaSink/write(_:)`` feeds: before the first NAL unit.
    public func keepTimes(_ clock: SampleClock) throws(NALUError) {
        try NALUError.typed(field: "sample times") {
            try muxer.useSourceTiming(timescale: clock.timescale, lookup: clock.lookup)
            sampleClock = clock
        }
    }

    /// For `source` (an MPEG-TS) with its AAC stream `audio` (``TransportStreamAudioReader``)
    /// carried beside the video as an `mp4a` track, timed against where the first picture
    /// presents (``TransportStreamAudioReader/origin(in:)``); `parameterSets` as for
    /// ``init(for:output:options:parameterSets:)``.
    /// - Throws: ``NALU/NALUError`` (typed): what ``init(for:output:options:parameterSets:)`` throws; audio the muxer cannot carry.
    public convenience init(for source: MediaSource, output: FileSink, options: MP4MuxerOptions,
                            transportStreamAudio audio: TransportStreamAudioReader, parameterSets: [[UInt8]]? = nil) throws(NALUError) {
        try self.init(for: source, output: output, options: options, transportStreamAudio: [audio], parameterSets: parameterSets)
    }

    /// For `source` (an MPEG-TS) with its audio streams `audio` (AAC, AC-3, MPEG audio:
    /// ``MediaSource/transportStreamAudioStreams()``) each carried beside the video as a sound
    /// track (``TransportStreamAudioReader/mp4SampleEntry``, its language in `mdhd`), in program
    /// order, timed against where the first picture presents; `parameterSets` as for
    /// ``init(for:output:options:parameterSets:)``.
    /// - Throws: ``NALU/NALUError`` (typed): what ``init(for:output:options:parameterSets:)`` throws; audio the muxer cannot carry.
    public convenience init(for source: MediaSource, output: FileSink, options: MP4MuxerOptions,
                            transportStreamAudio audio: [TransportStreamAudioReader], parameterSets: [[UInt8]]? = nil) throws(NALUError) {
        var options = options
        let origins = audio.map { $0.origin(in: source) }
        options.passthroughTracks = zip(audio, origins).map { $0.mp4Track(origin: $1) }
        options.movieTimescale = TransportStreamAudioMP4Feeder.movieTimescale
        try self.init(for: source, output: output, options: options, parameterSets: parameterSets)
        let feeders = zip(audio, origins).enumerated().map { TransportStreamAudioMP4Feeder(reader: $1.0, track: $0, origin: $1.1) }
        transportStreamAudioFeeders = feeders
        muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
            for feeder in feeders { try feeder.advance(to: time, timescale: timescale, writer: writer) }
        }
    }

    /// The feeders of a transport stream input's audio streams, when it carries them.
    public private(set) var transportStreamAudioFeeders: [TransportStreamAudioMP4Feeder] = []

    /// The passthrough tracks' copier, when there are any.
    public private(set) var passthrough: MP4PassthroughInterleaver<AnyRandomAccessSource>?

    /// For `source` (an MP4/MOV), with `tracks` of the same file copied unchanged beside the
    /// video (``MP4PassthroughTrack/init(copying:)``, interleaved by ``MP4PassthroughInterleaver``),
    /// in a movie of `movieTimescale` (the input's, so their edit lists stay exact).
    /// `decodeTimes` limits each track to a range of its decoding times (its timescale), as
    /// ``MP4PassthroughInterleaver/init(tracks:decodeTimes:)`` does.
    /// `parameterSets` replaces the source's record sets (edited ones).
    /// - Throws: ``NALU/NALUError`` (typed): what ``init(for:output:options:parameterSets:)`` throws; a track the muxer cannot carry.
    public convenience init(for source: MediaSource, output: FileSink, options: MP4MuxerOptions,
                            passthrough tracks: [MP4TrackReader<AnyRandomAccessSource>], movieTimescale: UInt32?,
                            decodeTimes: [Range<Int64>?]? = nil, parameterSets: [[UInt8]]? = nil) throws(NALUError) {
        var options = options
        options.passthroughTracks = tracks.map { MP4PassthroughTrack(copying: $0.track) }
        options.movieTimescale = movieTimescale
        // The input video's leading empty edits (it starts after the other tracks), in the same
        // movie timescale: the copy keeps the tracks' relative start.
        if !tracks.isEmpty, movieTimescale != nil, let video = source.mp4 {
            var delay: UInt64 = 0
            for edit in video.track.editList {
                guard edit.mediaTime == -1 else { break }
                let (sum, overflow) = delay.addingReportingOverflow(edit.segmentDuration)
                delay = overflow ? delay : sum
            }
            options.videoStartDelay = delay
        }
        try self.init(for: source, output: output, options: options, parameterSets: parameterSets)
        guard !tracks.isEmpty else { return }
        let interleaver = MP4PassthroughInterleaver(tracks: tracks, decodeTimes: decodeTimes)
        passthrough = interleaver
        muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
            try interleaver.advance(to: time, timescale: timescale, writer: writer)
        }
    }

    public func push(_ unit: NALUnitView) throws(NALUError) { try muxer.push(unit) }

    /// NAL units streamed to the file are lent to it (``MP4Muxer/returnLent()``).
    /// - Throws: ``NALU/NALUError`` (typed): the file's write error.
    public func returnLent() throws(NALUError) { try muxer.returnLent() }

    /// Feeds one NAL unit held in an array (out-of-band parameter sets).
    public func push(nalUnit: [UInt8]) throws(NALUError) { try muxer.push(nalUnit: nalUnit) }

    /// Feeds the NAL units of an Annex-B buffer (an encoder's access unit).
    public func push(annexB bytes: UnsafeRawBufferPointer) throws(NALUError) {
        try AnnexB.forEachNALUnit(in: bytes) { (range) throws(NALUError) in
            try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: bytes[range]), offset: Int64(range.lowerBound), prefixLength: 3) { (unit) throws(NALUError) in
                try muxer.push(unit)
            }
        }
    }

    public func finish() throws(NALUError) -> MediaSinkReport {
        report(try muxer.finish())
    }

    /// The report of a finished muxer.
    func report(_ summary: MP4MuxerSummary) -> MediaSinkReport {
        var notes: [String] = []
        if summary.parameterSetsInBandAfterChange {
            notes.append(summary.sampleDescriptionLimitReached
                         ? "the parameter sets change to more than \(MP4Muxer<FileSink>.maxSampleDescriptions) distinct sets; past that many sample entries they are kept in band, and the entries are \(summary.sampleEntry)"
                         : "the parameter sets change midway; fragmented MP4 cannot add a sample entry, so they are kept in band from the change on")
        }
        return MediaSinkReport(mp4: summary, notes: notes)
    }
}

/// A file output's `mdat` sizes are filled in after its media data, so ``MP4Writer`` writes
/// samples through instead of gathering each chunk in memory.
extension FileSink: MP4OverwritableSink {}
