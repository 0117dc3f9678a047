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
/// ```swift
/// let trimmer = try SmartTrimmer(path: "in.mp4", decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
/// let report = try trimmer.writeMP4(start: MediaTime(parsing: "1.2"), end: MediaTime(parsing: "3"),
///                                   output: FileSink(path: "cut.mp4"), options: MP4MuxerOptions())
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
    }

    public let path: String
    public let options: MediaSourceOptions
    public let decoder: any DecoderBackendFactory
    public let encoder: any EncoderBackendFactory
    /// How the re-encoded pictures spend bits (default CRF 12: ≥ 40 dB PSNR on the test fixtures).
    public var rateControl: RateControl = .crf(12)
    /// x264/x265 preset for the re-encoded pictures (`nil`: the library's default).
    public var preset: String?
    private let trimmer: Trimmer

    public init(path: String, options: MediaSourceOptions = MediaSourceOptions(), decoder: any DecoderBackendFactory,
                encoder: any EncoderBackendFactory) throws {
        self.path = path
        self.options = options
        self.decoder = decoder
        self.encoder = encoder
        trimmer = try Trimmer(path: path, options: options)
    }

    /// The input as first opened.
    public var source: MediaSource { trimmer.source }

    /// Plans the cut (see ``SmartCutPlan``) and the ordinary trim plan of the same range (its
    /// audio cut is reused).
    public func plan(start: MediaTime, end: MediaTime?) throws -> (smart: SmartCutPlan, trim: TrimPlan) {
        let index = try trimmer.index()
        guard index.hasSourceTimes else {
            throw NALUError(.unsupported, field: "--smart", detail: "needs an input with its own times (MP4/MOV); this is an elementary stream")
        }
        let trim = try trimmer.plan(start: start, end: end)
        let smart = try SmartCutPlan(index: index, startTick: trim.startTick, endTick: trim.endTick)
        return (smart, trim)
    }

    /// Writes the cut as MP4, with the input's audio tracks cut to the same range when `audio`.
    public func writeMP4(start: MediaTime, end: MediaTime?, output: FileSink, options: MP4MuxerOptions, audio: Bool = true) throws -> Report {
        let (plan, trim) = try self.plan(start: start, end: end)
        let index = try trimmer.index()
        let timescale = UInt32(clamping: index.timeBase.denominator)
        guard timescale > 0, let firstTime = plan.presentationTimes.first, let lastTime = plan.presentationTimes.last else {
            throw NALUError(.invalidValue, field: "timescale", detail: "no time base")
        }
        var options = options
        options.frameRate = nil
        options.movieTimescale = timescale
        options.negativeCompositionOffsets = true
        options.editList = nil
        let videoDuration = UInt64(clamping: lastTime &- firstTime &+ index.frameDuration)
        let cuts = audio ? try TrimAudioCut.cuts(for: trim, source: trimmer.source, segmentDuration: videoDuration) : []
        if !cuts.isEmpty {
            options.passthroughTracks = cuts.map { cut in
                var track = MP4PassthroughTrack(copying: cut.reader.track)
                track.editList = cut.editList
                return track
            }
        }
        let sink = try MP4FileSink(codec: index.codec, output: output, options: options)
        // Timing: the i-th access unit written decodes at the i-th presentation time.
        let timing = OutputTiming(times: plan.presentationTimes, origin: firstTime, frameDuration: index.frameDuration, timescale: timescale)
        try sink.muxer.useSourceTiming(timescale: timescale, lookup: timing.lookup)
        if !cuts.isEmpty {
            let interleaver = MP4PassthroughInterleaver(tracks: cuts.map(\.reader), decodeTimes: cuts.map(\.decodeTimes))
            sink.muxer.willAppendVideoSample = { writer, time, timescale in
                try interleaver.advance(to: time, timescale: timescale, writer: writer)
            }
        }
        let writer = OutputWriter(codec: index.codec, timing: timing) { try sink.muxer.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: cuts.count, audioTrackIDs: cuts.map(\.reader.track.trackID))
    }

    /// Writes the cut as Annex-B (H.264/H.265 Annex B byte stream): the re-encoded pictures'
    /// parameter sets in band before their IDR picture, the copied pictures' before the copy
    /// point; pictures present in picture order count order, so no timing is written.
    public func writeAnnexB<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output) throws -> Report {
        let (plan, _) = try self.plan(start: start, end: end)
        let index = try trimmer.index()
        let sink = try AnnexBSink(codec: index.codec, output: output, options: .init(placement: .beforeFirstSlice))
        let timing = OutputTiming(times: plan.presentationTimes, origin: plan.presentationTimes.first ?? 0,
                                  frameDuration: index.frameDuration, timescale: 1)
        let writer = OutputWriter(codec: index.codec, timing: timing) { try sink.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: 0)
    }

    /// One pass over the input: decodes what the head and tail need, re-encodes them, copies the
    /// rest, handing NAL units to `writer` in output decoding order.
    private func run(_ plan: SmartCutPlan, index: TrimIndex, writer: OutputWriter) throws {
        let input = try MediaSource(path: path, options: options)
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
        var headFrames: [DecodedFrame] = []
        var tailFrames: [DecodedFrame] = []
        var headDone = plan.head.isEmpty
        var tailDone = plan.tail.isEmpty
        var pending: [(nalUnits: [[UInt8]], pts: Int64?)] = []  // copied access units waiting for the head
        var copyParameterSets: [[UInt8]]?  // the sets in force at the copy point
        let lastNeeded = max(plan.copied.last ?? -1, headRange?.upperBound ?? -1, tailRange?.upperBound ?? -1)

        func encode(_ frames: [DecodedFrame]) throws {
            guard let first = frames.first else { return }
            let sets = store.nalUnits
            guard let sps = sets.first(where: { isSPS($0, codec) }) else {
                throw NALUError(.missing, field: "sequence parameter set", detail: "none before the pictures to re-encode")
            }
            let pps = sets.first { isPPS($0, codec) }
            var configuration = try MatchedEncoding.configuration(
                codec: codec, sps: sps, pps: pps, width: first.width, height: first.height, pixelFormat: first.pixelFormat,
                frameRate: index.frameRate, timeBase: index.timeBase, count: frames.count, rateControl: rateControl)
            configuration.preset = preset
            let session = try EncoderSession(configuration: configuration, factory: encoder)
            let sorted = frames.sorted { $0.pts < $1.pts }
            for frame in sorted {
                try session.encode(frame.frame()) { try writer.write(EncoderFraming.nalUnits(in: $0.bytes, format: $0.format), pts: $0.pts) }
            }
            try session.flush { try writer.write(EncoderFraming.nalUnits(in: $0.bytes, format: $0.format), pts: $0.pts) }
        }
        func finishHead() throws {
            guard !headDone else { return }
            headDone = true
            if let decoder = headDecoder { headFrames += decoder.flush().filter { headSet.contains($0.accessUnitIndex) } }
            try check(headFrames.count, plan.head.count, "head")
            try encode(headFrames)
            headFrames = []
            for unit in pending { try writer.write(unit.nalUnits, pts: unit.pts) }
            pending = []
        }
        func finishTail() throws {
            guard !tailDone else { return }
            tailDone = true
            if let decoder = tailDecoder { tailFrames += decoder.flush().filter { tailSet.contains($0.accessUnitIndex) } }
            try check(tailFrames.count, plan.tail.count, "tail")
            try encode(tailFrames)
            tailFrames = []
        }

        var units: [(offset: Int64, bytes: [UInt8])] = []
        var consumed = 0
        do {
            _ = try input.forEachAccessUnit(nalUnit: { view, _ in units.append((view.offset, Array(view.bytes))) }) { unit in
                let end = unit.summary.offset + unit.summary.size
                var split = consumed
                while split < units.count && units[split].offset < end { split += 1 }
                var nalUnits = units[consumed..<split].map(\.bytes)
                consumed = split
                if consumed > 64 {
                    units.removeFirst(consumed)
                    consumed = 0
                }
                let position = unit.summary.index
                guard position <= lastNeeded else { throw EndOfPass() }
                guard position < index.entries.count else { return }
                let pts = index.entries[position].presentationTime
                let coded = CodedAccessUnit(nalUnits: nalUnits, index: position, byteOffset: unit.summary.offset, pts: pts,
                                            keyframe: unit.summary.keyframe, pictureType: unit.summary.pictureType)
                if position < firstCopied ?? Int.max {
                    for nal in nalUnits where codec.isParameterSet(nal) { try store.add(nal) }
                }
                if let headRange, headRange.contains(position) {
                    if headDecoder == nil {
                        headDecoder = try DecoderSession(codec: codec, parameterSets: store.nalUnits, factory: decoder)
                    }
                    headFrames += try headDecoder?.decode(coded).filter { headSet.contains($0.accessUnitIndex) } ?? []
                    if position == headRange.upperBound { try finishHead() }
                }
                if let tailRange, tailRange.contains(position) {
                    if tailDecoder == nil {
                        // The tail's decoder starts with the sets in force there.
                        var tailStore = store
                        if let sets = copyParameterSets { for set in sets { try tailStore.add(set) } }
                        tailDecoder = try DecoderSession(codec: codec, parameterSets: tailStore.nalUnits, factory: decoder)
                    }
                    tailFrames += try tailDecoder?.decode(coded).filter { tailSet.contains($0.accessUnitIndex) } ?? []
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
        } catch is EndOfPass {}
        try finishHead()
        try finishTail()
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
    guard nal.count > 1, (nal[0] >> 1) & 0x3F == 21 else { return nal }
    var copy = nal
    copy[0] = (copy[0] & 0x81) | (18 << 1)
    return copy
}

func isSPS(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? first & 0x1F == 7 : (first >> 1) & 0x3F == 33
}

func isPPS(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? first & 0x1F == 8 : (first >> 1) & 0x3F == 34
}

func isVCL(_ nal: [UInt8], _ codec: Codec) -> Bool {
    guard let first = nal.first else { return false }
    return codec == .h264 ? (1...5).contains(first & 0x1F) : (first >> 1) & 0x3F < 32
}

/// Ends the pass once every access unit needed has been read.
private struct EndOfPass: Error {}

/// The output's times: the i-th access unit written decodes at the i-th presentation time (so
/// decoding times rise by a frame each and never pass the last presentation), keyed by the
/// offset given to its first VCL NAL unit.
final class OutputTiming: @unchecked Sendable {
    let times: [Int64]
    let origin: Int64
    let frameDuration: Int64
    let timescale: UInt32
    private var byOffset: [Int64: SampleTiming] = [:]

    init(times: [Int64], origin: Int64, frameDuration: Int64, timescale: UInt32) {
        self.times = times
        self.origin = origin
        self.frameDuration = max(1, frameDuration)
        self.timescale = timescale
    }

    /// Records the timing of the `count`-th picture, presenting at `presentation` (source ticks).
    func assign(offset: Int64, count: Int, presentation: Int64) {
        let decode = count < times.count ? times[count] : (times.last ?? 0) &+ Int64(count - times.count + 1) &* frameDuration
        let next = count + 1 < times.count ? times[count + 1] : decode &+ frameDuration
        byOffset[offset] = SampleTiming(decode: decode &- origin, presentation: presentation &- origin, duration: next &- decode, timescale: timescale)
    }

    var lookup: SampleTimingLookup { { [self] offset in byOffset[offset] } }
}

/// Hands output access units to the muxer with made-up, increasing offsets, and times each.
final class OutputWriter {
    let codec: Codec
    let timing: OutputTiming
    let push: (NALUnitView) throws -> Void
    private var offset: Int64 = 0
    private(set) var pictures = 0

    init(codec: Codec, timing: OutputTiming, push: @escaping (NALUnitView) throws -> Void) {
        self.codec = codec
        self.timing = timing
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
            }
            try NALUnitView.withNALUnit(nal, offset: offset) { try push($0) }
            offset &+= Int64(nal.count) &+ 4
        }
    }
}
