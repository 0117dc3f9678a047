public import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUIO
public import NALUMP4
public import NALUMedia

/// Cuts `[start, end)` out of a stream frame-exactly without an edit list (issue 34): the
/// pictures before the first copy point and after the last copyable one are decoded and
/// re-encoded with the source's own settings (``MatchedEncoding``), the groups of pictures
/// between are copied bit for bit (``SmartCutPlan``).
///
/// The output shows exactly the pictures presenting in `[start, end)`, each at its source time
/// less the first one's. MP4 output has no edit list: decoding times are the sorted presentation
/// times, composition offsets may be negative (`ctts` version 1, ISO/IEC 14496-12 8.6.1.3). The
/// re-encoded pictures' parameter sets go in band before their IDR picture and, in MP4, into a
/// sample entry of their own whenever they differ from the copied pictures' (``NALUMP4/MP4Muxer``
/// starts one at every change).
///
/// Inputs: anything ``NALUMedia/MediaSource`` reads (MP4/MOV, MPEG-TS, Annex-B, length-prefixed
/// with a record); an MP4 is planned from its sample table and read only from the decode-start
/// keyframe on. Outputs: ``writeMP4(start:end:output:options:audio:)``,
/// ``writeAnnexB(start:end:output:)``, ``writeLengthPrefixed(start:end:output:lengthSize:)``,
/// ``writeTransportStream(start:end:output:options:audio:)`` (an MP4's or a transport stream's
/// AAC cut along).
///
/// ```swift
/// let trimmer = try SmartTrimmer(path: "in.mp4", decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
/// let file = try FileSink(path: "cut.mp4")
/// let report = try trimmer.writeMP4(start: MediaTime(parsing: "1.2"), end: MediaTime(parsing: "3"),
///                                   output: file, options: MP4MuxerOptions())
/// try file.commit()   // written under a temporary name until now
/// ```
public final class SmartTrimmer {
    /// What a cut did.
    public struct Report: Sendable {
        public var plan: SmartCutPlan
        public var sink: MediaSinkReport
        /// Pictures re-encoded before and after the copied ones.
        public var headPictures: Int
        public var tailPictures: Int
        /// Access units copied unchanged.
        public var copiedAccessUnits: Int
        /// The audio tracks cut with the video.
        public var audioTracks: Int
        /// Their track_IDs in the input.
        public var audioTrackIDs: [UInt32] = []
        /// The track_IDs of the input's other tracks (subtitles, timecode, metadata) cut with
        /// the video (``NALUMedia/TrimTrackCut``), or with nothing in the range.
        public var otherTrackIDs: [UInt32] = []
    }

    public let path: String
    public let options: MediaSourceOptions
    public let decoder: any DecoderBackendFactory
    /// The encoder of the re-encoded pictures (x264 for H.264, x265 for HEVC; OpenH264 for a
    /// Constrained Baseline source, ``MatchedEncoding/openH264(_:sps:)``).
    public var encoder: any EncoderBackendFactory
    /// How the re-encoded pictures spend bits (default CRF 12: ≥ 40 dB PSNR on the test fixtures).
    public var rateControl: RateControl = .crf(12)
    /// x264/x265 preset for the re-encoded pictures (`nil`: the library's default,
    /// ``NALUEncoder/EncoderConfiguration/defaultPreset``, `medium`, as every nalu API that
    /// re-encodes; issue 39).
    public var preset: String?
    /// Lighter encoder and decoder settings for runs of re-encoded pictures at most
    /// ``ShortSegmentEncoding/maximumPictures`` long (default on: one thread, no x264 MB-tree
    /// lookahead; 455 → 175 MiB for 42 pictures of 1080p). `nil`: the libraries' own settings.
    public var shortSegmentEncoding: ShortSegmentEncoding? = ShortSegmentEncoding()
    /// Asked before each access unit and each re-encoded picture: `true` stops the cut with
    /// `CancellationError` (``NALUExport/ExportSession`` sets it from its task's cancellation).
    public var isCancelled: (@Sendable () -> Bool)?
    /// Called for each picture written (re-encoded or copied), for a caller's progress.
    public var pictureWritten: (() -> Void)?
    let trimmer: Trimmer

    /// Opens `path`: MP4/MOV, MPEG-TS, or an Annex-B or length-prefixed elementary stream
    /// (``NALUMedia/MediaSource``). An elementary stream is timed at `frameRate` (`--fps`), else
    /// its SPS VUI's, as ``NALUMedia/Trimmer`` times it; it is read twice, so it must be a file.
    /// - Throws: ``NALU/NALUError``: the input's (opening, reading), `.unsupported` for an
    ///   elementary stream or transport stream on standard input.
    public init(path: String, options: MediaSourceOptions = MediaSourceOptions(), frameRate: Rational? = nil,
                decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws(NALUError) {
        self.path = path
        self.options = options
        self.decoder = decoder
        self.encoder = encoder
        trimmer = try NALUError.typed(field: path) { try Trimmer(path: path, options: options, frameRate: frameRate) }
        if path == "-" && trimmer.source.mp4 == nil {
            throw NALUError(.unsupported, field: "standard input",
                            detail: "a smart cut reads an elementary stream or transport stream twice; save it to a file first, or pipe MP4")
        }
    }

    /// The input as first opened.
    public var source: MediaSource { trimmer.source }

    private var cachedIndex: TrimIndex?

    /// The timing index the cut is planned on: an MP4/MOV input's from its sample table
    /// (``NALUMedia/TrimIndex/fromSampleTable(_:frameRate:)``: only the sync samples are read),
    /// another input's from a pass over the stream (``NALUMedia/Trimmer/index()``).
    /// - Throws: ``NALU/NALUError`` from reading the input.
    public func index() throws(NALUError) -> TrimIndex {
        if let cachedIndex { return cachedIndex }
        // Not `??`: its autoclosure throws `any Error`.
        let index: TrimIndex
        if let table = try TrimIndex.fromSampleTable(trimmer.source, frameRate: trimmer.frameRate) { index = table } else { index = try trimmer.index() }
        cachedIndex = index
        return index
    }

    /// Plans the cut (see ``SmartCutPlan``) and the ordinary trim plan of the same range (its
    /// audio cut is reused).
    /// - Throws: ``NALU/NALUError``: the input's, or a range with no picture (a stream fault: the
    ///   plan decodes nothing).
    public func plan(start: MediaTime, end: MediaTime?) throws(NALUError) -> (smart: SmartCutPlan, trim: TrimPlan) {
        let index = try self.index()
        let trim = try TrimPlan(index: index, start: start, end: end)
        let smart = try SmartCutPlan(index: index, startTick: trim.startTick, endTick: trim.endTick)
        return (smart, trim)
    }

    /// Writes the cut as MP4, with the input's audio cut to the same range when `audio`: an
    /// MP4/MOV input's sound tracks (copied samples, ``NALUMedia/TrimAudioCut``), a transport
    /// stream input's audio streams (AAC, AC-3, MPEG audio). An input with its own times keeps them (the track timescale, or
    /// 90 kHz); an elementary stream is timed at its frame rate.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeMP4(start: MediaTime, end: MediaTime?, output: FileSink, options: MP4MuxerOptions,
                         audio: Bool = true) throws(SmartCutError) -> Report {
        try SmartCutError.typed { try mp4(start: start, end: end, output: output, options: options, audio: audio) }
    }

    private func mp4(start: MediaTime, end: MediaTime?, output: FileSink, options: MP4MuxerOptions, audio: Bool) throws -> Report {
        let (plan, requested) = try self.plan(start: start, end: end)
        // The output starts with its first picture (no edit list): so does its audio.
        let trim = requested.startingAtFirstPicture
        let index = try self.index()
        let timing = try outputTiming(plan, index: index)
        let timescale = timing.timescale
        var options = options
        options.frameRate = nil
        options.movieTimescale = timescale
        options.negativeCompositionOffsets = true
        options.editList = nil
        let videoDuration = UInt64(clamping: timing.presentedDuration)
        let cuts = audio ? try TrimAudioCut.cuts(for: trim, source: trimmer.source, segmentDuration: videoDuration) : []
        // Subtitle, timecode and metadata tracks clipped to the range, the timecode moved to
        // the first picture's.
        let (others, empty) = try TrimTrackCut.cuts(for: trim, source: trimmer.source, segmentDuration: videoDuration, movieTimescale: timescale)
        let copied = TrimTrackCut.copied(audio: cuts, others: others)
        if !copied.tracks.isEmpty { options.passthroughTracks = copied.tracks }
        // A transport stream's audio streams (AAC, AC-3, MPEG audio), each cut to the presented range (its PTS, 90 kHz).
        let tsAudio = audio && cuts.isEmpty ? try trimmer.source.transportStreamAudioStreams() : []
        var tsFeeders: [TransportStreamAudioMP4Feeder] = []
        if !tsAudio.isEmpty {
            let range = trim.presentedRange(timescale: 90_000)
            // After the copied tracks (none for a transport stream input, which has no MP4 tracks).
            options.passthroughTracks = copied.tracks + tsAudio.map(\.mp4Track)
            for (track, stream) in tsAudio.enumerated() {
                let origin = index.hasSourceTimes ? 0 : stream.origin(in: trimmer.source)
                tsFeeders.append(TransportStreamAudioMP4Feeder(reader: stream, track: copied.tracks.count + track, origin: origin &+ range.lowerBound,
                                                               range: (origin &+ range.lowerBound)..<(origin &+ range.upperBound),
                                                               presentedDuration: videoDuration, movieTimescale: timescale))
            }
        }
        let sink = try MP4FileSink(codec: index.codec, output: output, options: options)
        try sink.muxer.useSourceTiming(timescale: timescale, lookup: timing.lookup)
        if !copied.tracks.isEmpty || !tsFeeders.isEmpty {
            let interleaver = copied.tracks.isEmpty ? nil : MP4PassthroughInterleaver(tracks: copied.readers, cuts: copied.cuts)
            sink.muxer.willAppendVideoSample = { (writer, time, timescale) throws(NALUError) in
                try interleaver?.advance(to: time, timescale: timescale, writer: writer)
                for feeder in tsFeeders { try feeder.advance(to: time, timescale: timescale, writer: writer) }
            }
        }
        let writer = OutputWriter(codec: index.codec, timing: timing, pictureWritten: pictureWritten) { try sink.muxer.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        let ids = cuts.map(\.reader.track.trackID) + tsAudio.map { UInt32($0.pid) | 0x1_0000 }
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: ids.count, audioTrackIDs: ids,
                      otherTrackIDs: others.map(\.reader.track.trackID) + empty)
    }

    /// Writes the cut as Annex-B (H.264/H.265 Annex B byte stream): the re-encoded pictures'
    /// parameter sets in band before their IDR picture, the copied pictures' before the copy
    /// point; pictures present in picture order count order, so no timing is written.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeAnnexB<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output) throws(SmartCutError) -> Report {
        try SmartCutError.typed { try annexB(start: start, end: end, output: output) }
    }

    private func annexB<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output) throws -> Report {
        let (plan, _) = try self.plan(start: start, end: end)
        let index = try self.index()
        let sink = try AnnexBSink(codec: index.codec, output: output, options: .init(placement: .beforeFirstSlice))
        let writer = OutputWriter(codec: index.codec, timing: try outputTiming(plan, index: index), pictureWritten: pictureWritten) { try sink.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: 0)
    }

    /// The output's times: source ticks scaled to a timescale (a tick of an elementary stream's
    /// index is a frame period, `timeBase.numerator / timeBase.denominator` s).
    func outputTiming(_ plan: SmartCutPlan, index: TrimIndex, decodeAdvance: Int64 = 0) throws -> OutputTiming {
        let base = index.timeBase
        guard base.numerator > 0, base.denominator > 0, base.denominator <= Int64(UInt32.max), let first = plan.presentationTimes.first else {
            throw NALUError(.invalidValue, field: "timescale", detail: "no time base")
        }
        return OutputTiming(times: plan.presentationTimes, origin: first, frameDuration: index.frameDuration,
                            timescale: UInt32(base.denominator), scale: base.numerator, decodeAdvance: decodeAdvance)
    }

    /// One pass over the input: decodes what the head and tail need, re-encodes them, copies the
    /// rest, handing NAL units to `writer` in output decoding order.
    func run(_ plan: SmartCutPlan, index: TrimIndex, writer: OutputWriter) throws {
        // An MP4 is read again through its sample table; other inputs are opened again.
        let input = trimmer.source.mp4 != nil ? trimmer.source : try MediaSource(path: path, options: options)
        let codec = input.codec
        var store = ParameterSetStore(codec: codec)
        for unit in input.outOfBandParameterSets { try store.add(unit) }
        let copied = Set(plan.copied)
        let firstCopied = plan.copied.first
        let headSet = Set(plan.head)
        let tailSet = Set(plan.tail)
        let headRange = plan.headDecodeStart.flatMap { start in plan.head.max().map { start...$0 } }
        let tailRange = plan.tailDecodeStart.flatMap { start in plan.tail.max().map { start...$0 } }
        var headDecoder: DecoderSession?
        var tailDecoder: DecoderSession?
        var headDone = plan.head.isEmpty
        var tailDone = plan.tail.isEmpty
        var pending: [(nalUnits: [[UInt8]], pts: Int64?)] = []  // copied access units waiting for the head
        var tailPackets: [(nalUnits: [[UInt8]], pts: Int64?)] = []  // re-encoded tail pictures waiting for the copy
        var copyParameterSets: [[UInt8]]?  // the sets in force at the copy point
        // The source's HDR10 SEI, into the re-encoded keyframes (issue 41 item 14).
        var hdr = HDRSEICarriage(codec: codec, declarativeSEI: input.declarativeSEI)
        let lastNeeded = max(plan.copied.last ?? -1, headRange?.upperBound ?? -1, tailRange?.upperBound ?? -1)
        /// The decoder threads for a run of `count` pictures (0: the library chooses).
        func decoderThreads(_ count: Int) -> Int {
            guard let short = shortSegmentEncoding, short.applies(to: count) else { return 0 }
            return short.decoderThreads
        }

        /// An encoder for the `count` pictures of the head or the tail, configured from the first
        /// of them and the source's parameter sets.
        func session(first: DecodedFrame, count: Int) throws -> EncoderSession {
            let sets = store.nalUnits
            guard let sps = sets.first(where: { isSPS($0, codec) }) else {
                throw NALUError(.missing, field: "sequence parameter set", detail: "none before the pictures to re-encode")
            }
            let pps = sets.first { isPPS($0, codec) }
            var configuration = try MatchedEncoding.configuration(
                codec: codec, sps: sps, pps: pps, width: first.width, height: first.height, pixelFormat: first.pixelFormat,
                frameRate: index.frameRate, timeBase: index.timeBase, count: count, rateControl: rateControl,
                interlace: try trimmer.source.interlace(options: options))
            configuration.preset = preset
            if let short = shortSegmentEncoding, short.applies(to: count) {
                configuration = short.apply(to: configuration, encoder: encoder.name)
            }
            if encoder.name == "openh264" { configuration = try MatchedEncoding.openH264(configuration, sps: sps) }
            return try EncoderSession(configuration: configuration, factory: encoder)
        }
        // The head's pictures are written as they are encoded (they come first); the tail's wait
        // for the copy. Each decoded picture goes to the encoder at once (the decoder gives them
        // in presentation order), so no more pictures are held than the decoder's and the
        // encoder's own windows, whatever the length of the head or the tail.
        let head = StreamingEncode(count: plan.head.count, keep: headSet, session: session) { nalUnits, pts in
            try writer.write(hdr.inserting(into: nalUnits), pts: pts)
        }
        let tail = StreamingEncode(count: plan.tail.count, keep: tailSet, session: session) { nalUnits, pts in
            tailPackets.append((hdr.inserting(into: nalUnits), pts))
        }
        head.isCancelled = isCancelled
        tail.isCancelled = isCancelled
        func finishHead() throws {
            guard !headDone else { return }
            headDone = true
            if let decoder = headDecoder { try head.encode(decoder.flush()) }
            try check(head.encoded, plan.head.count, "head")
            try head.finish()
            for unit in pending { try writer.write(unit.nalUnits, pts: unit.pts) }
            pending = []
        }
        func finishTail() throws {
            guard !tailDone else { return }
            tailDone = true
            if let decoder = tailDecoder { try tail.encode(decoder.flush()) }
            try check(tail.encoded, plan.tail.count, "tail")
            try tail.finish()
            for unit in tailPackets { try writer.write(unit.nalUnits, pts: unit.pts) }
            tailPackets = []
        }

        // Before the first access unit needed, only parameter sets are kept.
        let firstNeeded = min(headRange?.lowerBound ?? Int.max, firstCopied ?? Int.max, tailRange?.lowerBound ?? Int.max)
        func handle(_ position: Int, _ nalUnits: [[UInt8]], byteOffset: Int64, keyframe: KeyframeClass?, pictureType: PictureType?) throws {
            var nalUnits = nalUnits
            if let isCancelled, isCancelled() { throw CancellationError() }
            guard position <= lastNeeded else { throw EndOfPass() }
            guard position < index.entries.count else { return }
            if position < firstCopied ?? Int.max {
                for nal in nalUnits where codec.isParameterSet(nal) { try store.add(nal) }
            }
            guard position >= firstNeeded else { return }
            for nal in nalUnits { hdr.take(nal) }
            let pts = index.entries[position].presentationTime
            let coded = CodedAccessUnit(nalUnits: nalUnits, index: position, byteOffset: byteOffset, pts: pts,
                                        keyframe: keyframe, pictureType: pictureType)
            if let headRange, headRange.contains(position) {
                if headDecoder == nil {
                    headDecoder = try DecoderSession(codec: codec, parameterSets: store.nalUnits, factory: decoder,
                                                     threadCount: decoderThreads(plan.head.count))
                }
                try head.encode(headDecoder?.decode(coded) ?? [])
                if position == headRange.upperBound { try finishHead() }
            }
            if let tailRange, tailRange.contains(position) {
                if tailDecoder == nil {
                    // The tail's decoder starts with the sets in force there.
                    var tailStore = store
                    if let sets = copyParameterSets { for set in sets { try tailStore.add(set) } }
                    tailDecoder = try DecoderSession(codec: codec, parameterSets: tailStore.nalUnits, factory: decoder,
                                                     threadCount: decoderThreads(plan.tail.count))
                }
                try tail.encode(tailDecoder?.decode(coded) ?? [])
            }
            if copied.contains(position) {
                if position == firstCopied {
                    // The copied pictures' own parameter sets first (a new sample entry when
                    // they differ from the re-encoded ones'), the CRA made a BLA.
                    copyParameterSets = store.nalUnits
                    let inBand = Set(nalUnits.filter { codec.isParameterSet($0) })
                    nalUnits = store.nalUnits.filter { !inBand.contains($0) } + nalUnits
                    if plan.rewritesCopyPointAsBLA { nalUnits = nalUnits.map(craAsBLA) }
                }
                if headDone { try writer.write(nalUnits, pts: pts) } else { pending.append((nalUnits, pts)) }
            }
            if let tailRange, position == tailRange.upperBound {
                try finishHead()
                try finishTail()
            }
        }

        do {
            if let mp4 = input.mp4 {
                try forEachSample(of: mp4, firstNeeded: firstNeeded, lastNeeded: lastNeeded) { position, nalUnits, offset in
                    try handle(position, nalUnits, byteOffset: offset, keyframe: index.entries[position].keyframe, pictureType: nil)
                }
            } else {
                // Each NAL unit read, in order (`nil`: skipped before the first access unit
                // needed); an access unit is its summary's `nalUnitCount` of them.
                var units: [[UInt8]?] = []
                var consumed = 0
                var next = 0  // the position of the access unit being read (`body` comes before its first NAL unit)
                _ = try input.forEachAccessUnit(nalUnit: { view, header in
                    units.append(next >= firstNeeded || header.isParameterSet ? Array(view.bytes) : nil)
                }) { unit in
                    next = unit.summary.index + 1
                    let split = min(units.count, consumed + unit.summary.nalUnitCount)
                    let nalUnits = units[consumed..<split].compactMap { $0 }
                    consumed = split
                    if consumed > 64 {
                        units.removeFirst(consumed)
                        consumed = 0
                    }
                    try handle(unit.summary.index, nalUnits, byteOffset: unit.summary.offset, keyframe: unit.summary.keyframe,
                               pictureType: unit.summary.pictureType)
                }
            }
        } catch is EndOfPass {}
        try finishHead()
        try finishTail()
    }

    /// An MP4 input's samples (one access unit each) by their positions, read from the file only
    /// from `firstNeeded` to `lastNeeded`: the sample table says where each one is, so the
    /// pictures before the cut are not read. A sample switching to another sample entry is
    /// preceded by that entry's parameter sets (before `firstNeeded`, `body` gets them alone).
    private func forEachSample(of mp4: MP4VideoTrackReader<AnyRandomAccessSource>, firstNeeded: Int, lastNeeded: Int,
                               _ body: (Int, [[UInt8]], Int64) throws -> Void) throws {
        let descriptions = mp4.track.sampleDescriptions
        var current = 1
        var samples = mp4.samples()
        var buffer: [UInt8] = []
        while let sample = try samples.next() {
            let position = sample.index
            guard position <= lastNeeded else { return }
            let entry = sample.sampleDescriptionIndex
            guard entry >= 1 && entry <= descriptions.count else {
                throw NALUError(.invalidValue, field: "sample_description_index", byteOffset: sample.offset,
                                detail: "sample \(sample.index + 1) names entry \(entry) of \(descriptions.count)")
            }
            var nalUnits: [[UInt8]] = []
            if entry != current {
                current = entry
                nalUnits = descriptions[entry - 1].record.parameterSets
            }
            guard position >= firstNeeded else {
                if !nalUnits.isEmpty { try body(position, nalUnits, sample.offset) }
                continue
            }
            try mp4.read(sample, into: &buffer)
            try buffer.withUnsafeBytes { bytes in
                try LengthPrefixed.forEachNALUnit(in: bytes, lengthSize: descriptions[entry - 1].record.lengthSize, baseOffset: sample.offset,
                                                  within: "sample") { nalUnits.append(Array($0.bytes)) }
            }
            try body(position, nalUnits, sample.offset)
        }
    }

    private func check(_ got: Int, _ expected: Int, _ part: String) throws {
        guard got == expected else {
            throw NALUError(.missing, field: "picture", detail: "\(expected - got) of the \(expected) pictures to re-encode (\(part)) did not decode")
        }
    }
}

/// H.265: a CRA picture's NAL unit header (type 21) as BLA_N_LP (18): no leading pictures follow
/// (the plan re-encodes them), and a decoder starts a new coded video sequence here (H.265
/// 7.4.2.2, Table 7-1).
func craAsBLA(_ nal: [UInt8]) -> [UInt8] {
    guard nal.count > 1, let header = try? HEVCNALUnitHeader(nal), header.nalUnitType == .cra else { return nal }
    var copy = nal
    let rewritten = HEVCNALUnitHeader(nalUnitType: .blaNLP, nuhLayerId: header.nuhLayerId, nuhTemporalIdPlus1: header.nuhTemporalIdPlus1).bytes
    copy.replaceSubrange(0..<rewritten.count, with: rewritten)
    return copy
}

func isSPS(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? AVCNALUnitType(rawValue: first) == .sps : HEVCNALUnitType(rawValue: first >> 1) == .sps
}

func isPPS(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? AVCNALUnitType(rawValue: first) == .pps : HEVCNALUnitType(rawValue: first >> 1) == .pps
}

func isVCL(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? AVCNALUnitType(rawValue: first).isVCL : HEVCNALUnitType(rawValue: first >> 1).isVCL
}

/// Ends the pass once every access unit needed has been read.
private struct EndOfPass: Error {}

/// The output's times: the i-th access unit written decodes at the i-th presentation time (so
/// decoding times rise by a frame each and never pass the last presentation), less
/// `decodeAdvance` (an output whose decoding time may not pass the presentation time: MPEG-TS),
/// keyed by the offset given to its first VCL NAL unit; source ticks times `scale` give ticks of
/// `1/timescale` s.
final class OutputTiming: @unchecked Sendable {
    let times: [Int64]
    let origin: Int64
    let frameDuration: Int64
    let timescale: UInt32
    let scale: Int64
    let decodeAdvance: Int64
    private var byOffset: [Int64: SampleTiming] = [:]

    init(times: [Int64], origin: Int64, frameDuration: Int64, timescale: UInt32, scale: Int64 = 1, decodeAdvance: Int64 = 0) {
        self.times = times
        self.origin = origin
        self.frameDuration = max(1, frameDuration)
        self.timescale = timescale
        self.scale = max(1, scale)
        self.decodeAdvance = decodeAdvance
    }

    /// The presented duration, in ticks of `1/timescale` s.
    var presentedDuration: Int64 {
        guard let last = times.last else { return 0 }
        return (last &- origin &+ frameDuration) &* scale
    }

    /// Records the timing of the `count`-th picture, presenting at `presentation` (source ticks).
    func assign(offset: Int64, count: Int, presentation: Int64) {
        let decode = count < times.count ? times[count] : (times.last ?? 0) &+ Int64(count - times.count + 1) &* frameDuration
        let next = count + 1 < times.count ? times[count + 1] : decode &+ frameDuration
        byOffset[offset] = SampleTiming(decode: (decode &- origin) &* scale &- decodeAdvance, presentation: (presentation &- origin) &* scale,
                                        duration: (next &- decode) &* scale, timescale: timescale)
    }

    var lookup: SampleTimingLookup { { [self] offset in byOffset[offset] } }
}

/// Hands output access units to the muxer with made-up, increasing offsets, and times each.
final class OutputWriter {
    let codec: Codec
    let timing: OutputTiming
    let push: (NALUnitView) throws -> Void
    let pictureWritten: (() -> Void)?
    private var offset: Int64 = 0
    private(set) var pictures = 0

    init(codec: Codec, timing: OutputTiming, pictureWritten: (() -> Void)? = nil, push: @escaping (NALUnitView) throws -> Void) {
        self.codec = codec
        self.timing = timing
        self.pictureWritten = pictureWritten
        self.push = push
    }

    /// Writes one access unit's NAL units, presenting at `pts` (source ticks).
    func write(_ nalUnits: [[UInt8]], pts: Int64?) throws {
        var firstVCL = true
        for nal in nalUnits {
            if isVCL(nal, codec) && firstVCL, let pts {
                firstVCL = false
                timing.assign(offset: offset, count: pictures, presentation: pts)
                pictures += 1
                pictureWritten?()
            }
            try NALUnitView.withNALUnit(nal, offset: offset) { try push($0) }
            offset &+= Int64(nal.count) &+ 4
        }
    }
}

/// Encodes one run of re-encoded pictures (a smart cut's head or tail) picture by picture, as
/// the decoder gives them in presentation order: memory holds the encoder's lookahead and the
/// decoder's reference pictures, not the run (issue 39: 1080p smart cuts under 100 MiB).
final class StreamingEncode {
    /// Pictures of the run (the encoder's expected frame count).
    let count: Int
    /// Access-unit positions of the run's pictures (the decoder also gives the references).
    let keep: Set<Int>
    let makeSession: (DecodedFrame, Int) throws -> EncoderSession
    /// Gets each encoded picture's NAL units and presentation time, in decoding order.
    let emit: ([[UInt8]], Int64) throws -> Void
    var isCancelled: (@Sendable () -> Bool)?
    private var session: EncoderSession?
    private var lastPTS: Int64?
    /// Pictures handed to the encoder.
    private(set) var encoded = 0

    init(count: Int, keep: Set<Int>, session: @escaping (DecodedFrame, Int) throws -> EncoderSession,
         emit: @escaping ([[UInt8]], Int64) throws -> Void) {
        self.count = count
        self.keep = keep
        makeSession = session
        self.emit = emit
    }

    /// Encodes the frames of the run among `frames` (in presentation order; the first one
    /// configures the encoder).
    func encode(_ frames: [DecodedFrame]) throws {
        for frame in frames where keep.contains(frame.accessUnitIndex) {
            if let isCancelled, isCancelled() { throw CancellationError() }
            if let lastPTS, frame.pts <= lastPTS {
                throw NALUError(.invalidValue, field: "picture", detail: "access unit \(frame.accessUnitIndex) decoded out of presentation order")
            }
            lastPTS = frame.pts
            if session == nil { session = try makeSession(frame, count) }
            try session?.encode(frame.frame()) { try emit(EncoderFraming.nalUnits(in: $0.bytes, format: $0.format), $0.pts) }
            encoded += 1
        }
    }

    /// Flushes the encoder (its last pictures emitted) and releases it.
    func finish() throws {
        try session?.flush { try emit(EncoderFraming.nalUnits(in: $0.bytes, format: $0.format), $0.pts) }
        session = nil
    }
}
