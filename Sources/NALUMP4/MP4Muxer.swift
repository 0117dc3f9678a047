public import NALU

/// Options of an ``MP4Muxer``.
public struct MP4MuxerOptions: Sendable {
    /// The sample entry; `nil` picks `avc1`/`hvc1` (parameter sets out of band).
    public var sampleEntry: MP4SampleEntryType?
    public var layout: MP4Layout
    /// Frames per second; `nil` takes the SPS's VUI timing (and fails when it has none).
    public var frameRate: Rational?
    /// See ``MP4WriterConfiguration/negativeCompositionOffsets``.
    public var negativeCompositionOffsets: Bool
    /// Keep or strip access unit delimiters (`.insert` keeps).
    public var accessUnitDelimiters: AccessUnitDelimiterPolicy
    /// See ``MP4WriterConfiguration/chunkSize``.
    public var chunkSize: Int
    /// See ``MP4WriterConfiguration/forceLargeChunkOffsets``.
    public var forceLargeChunkOffsets: Bool
    /// Bytes of one access unit (with the non-picture NAL units carried into it) held in memory
    /// before the muxer gives up (``AccessUnitLimit``).
    public var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes
    /// See ``MP4WriterConfiguration/editList``: written verbatim in place of the composition-shift
    /// edit; times in the muxer's timescale (``MP4MuxerSummary/timescale``, from the frame rate).
    public var editList: [MP4EditListEntry]? = nil
    /// See ``MP4WriterConfiguration/colourBoxes`` (`nalu edit` sets it, so the boxes follow the
    /// edited VUI).
    public var colourBoxes: Bool = false
    /// Tracks written beside the video (``MP4WriterConfiguration/passthroughTracks``); their
    /// samples go in through ``MP4Muxer/willAppendVideoSample``.
    public var passthroughTracks: [MP4PassthroughTrack] = []
    /// See ``MP4WriterConfiguration/movieTimescale``.
    public var movieTimescale: UInt32? = nil
    /// See ``MP4WriterConfiguration/videoStartDelay``.
    public var videoStartDelay: UInt64 = 0
    /// See ``MP4WriterConfiguration/editListFollowsSampleTimes``: set for an ``editList`` in
    /// the source's times (``MP4Muxer/useSourceTiming(timescale:lookup:)``).
    public var editListFollowsSampleTimes = false
    /// See ``MP4WriterConfiguration/metadata``.
    public var metadata: MP4MovieMetadata? = nil

    public init(sampleEntry: MP4SampleEntryType? = nil, layout: MP4Layout = .moovAtEnd, frameRate: Rational? = nil,
                negativeCompositionOffsets: Bool = false, accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep,
                chunkSize: Int = 1 << 20, forceLargeChunkOffsets: Bool = false) {
        self.sampleEntry = sampleEntry
        self.layout = layout
        self.frameRate = frameRate
        self.negativeCompositionOffsets = negativeCompositionOffsets
        self.accessUnitDelimiters = accessUnitDelimiters
        self.chunkSize = chunkSize
        self.forceLargeChunkOffsets = forceLargeChunkOffsets
    }
}

/// What an ``MP4Muxer`` wrote.
public struct MP4MuxerSummary: Hashable, Sendable {
    public var writer: MP4WriterSummary
    public var sampleEntry: MP4SampleEntryType
    public var frameRate: Rational
    public var timescale: UInt32
    /// Ticks per frame.
    public var frameDuration: UInt32
    /// Parameter sets kept in band although the sample entry keeps them out of band: updates
    /// (same id, new content) and, in fragments, sets first seen after `moov` was written.
    public var parameterSetsKeptInBand: Int
    /// Non-picture NAL units after the last picture, which belong to no sample and were dropped.
    public var trailingNALUnitsDropped: Int
    /// Sample entries written: 1, plus one for each distinct set of parameter sets the stream
    /// changes to after the first picture (resolution, profile, a set re-sent with new content);
    /// a change back to the sets of an earlier entry reuses it. At most
    /// ``MP4Muxer/maxSampleDescriptions``.
    public var sampleDescriptions: Int
    /// Whether, after a parameter-set change the layout could not give a new sample entry
    /// (fragmented: `moov` is written first), every later parameter set was kept in band.
    public var parameterSetsInBandAfterChange: Bool
    /// Whether the stream changed to more distinct parameter sets than
    /// ``MP4Muxer/maxSampleDescriptions`` entries hold: the entries became `avc3`/`hev1`
    /// (``sampleEntry``) and every parameter set from then on was kept in band.
    public var sampleDescriptionLimitReached = false
}

/// Muxes an H.264/H.265 elementary stream into MP4: NAL units in (from an Annex-B reader, an
/// encoder, any framing), samples out through an ``MP4Writer``.
///
/// - Access units are found by the specs' rules (``AccessUnitSplitter``); each is one sample,
///   its NAL units given 4-byte lengths (ISO/IEC 14496-15 5.3.2, 8.3.2).
/// - Parameter sets go to the `avcC`/`hvcC` record. With `avc1`/`hvc1` they leave the samples;
///   with `avc3`/`hev1` they stay in band too. `hvc1` records have array_completeness 1.
/// - A parameter set that is new or changed after the first picture (a resolution or profile
///   change, a set re-sent with the same id and new content) starts a new sample entry whose
///   record holds every current set (ISO/IEC 14496-12 8.5.2, 8.7.4 `sample_description_index`),
///   so each sample decodes with the sets it was coded with (the access unit that carries the
///   change keeps its sets in band as well). A change back to the sets of an earlier entry
///   reuses that entry. Where the layout cannot add an
///   entry (fragmented: `moov` is out already), every parameter set from the change on stays
///   in band (``MP4MuxerSummary/parameterSetsInBandAfterChange``); past
///   ``maxSampleDescriptions`` distinct entries, so do they, and the entries become
///   `avc3`/`hev1` (``MP4MuxerSummary/sampleDescriptionLimitReached``).
/// - Sync samples are the access units with a keyframe class (IDR, CRA, BLA, recovery point).
/// - Timing is the source's when it has times (``useSourceTiming(timescale:lookup:)``: each
///   sample's decoding time, composition offset and duration as the source gave them, in its
///   timescale; nothing is invented), else constant-frame-rate: the i-th access unit in decoding order decodes at
///   i·duration; its presentation time is its index in presentation order (by picture order
///   count, ``PictureOrderCounter``, within each coded video sequence) times the duration, so
///   B-frames present in order. The composition offsets become `ctts`/`trun` entries.
public final class MP4Muxer<Sink: ByteSink> {
    /// Sample entries a track gets at most (64): past them a stream that keeps changing its
    /// parameter sets carries them in band (`avc3`/`hev1`). ISO/IEC 14496-12 sets no limit;
    /// FFmpeg refuses more than 1,024 ("invalid STSD entries"), and every entry is kept in
    /// memory until `moov` is written.
    public static var maxSampleDescriptions: Int { 64 }

    public let codec: Codec
    public let options: MP4MuxerOptions
    // The properties touched for every NAL unit or sample are `@exclusivity(unchecked)`: no
    // method holds one of them across a call that can reach back into this muxer (the writer
    // and `willAppendVideoSample` see only the writer), so the run-time check per access
    // (`swift_beginAccess`, ~10% of the time on small NAL units) finds nothing.
    private let spool: (any ByteSink & RandomAccessByteSource)?
    @exclusivity(unchecked) private var writer: MP4Writer<Sink>?
    /// ``writer`` while samples are streamed (``streaming``), unmanaged: the per-NAL-unit and
    /// per-sample calls on it (through `_withUnsafeGuaranteedRef`) then cost no retain and
    /// release, ~6% of the time on small NAL units (an `unowned(unsafe)` reference is retained
    /// for each call). Set with ``writer``, which keeps it alive and is never cleared.
    @exclusivity(unchecked) private var streamedWriter: Unmanaged<MP4Writer<Sink>>?
    @exclusivity(unchecked) private var splitter: AccessUnitSplitter
    @exclusivity(unchecked) private var counter = PictureOrderCounter()
    private var sampleEntry: MP4SampleEntryType

    // Parameter sets for the record, in the order first seen.
    @exclusivity(unchecked) private var store: ParameterSetStore
    private var recordOrder: [[UInt8]] = []
    /// `recordOrder`'s NAL unit types and ids, so a replacement finds its entry without hashing
    /// every stored set (which made a stream of SPS changes quadratic).
    private var recordKeys: [ParameterSetKey] = []
    @exclusivity(unchecked) private var recordFrozen = false
    @exclusivity(unchecked) private var recordChanged = false
    @exclusivity(unchecked) private var keptInBand = 0
    /// A change after the first picture waits for its access unit to start a sample entry.
    @exclusivity(unchecked) private var descriptionPending = false
    @exclusivity(unchecked) private var sampleDescriptions = 1
    /// Every parameter set stays in band from a change on (layouts that cannot add an entry).
    @exclusivity(unchecked) private var inBandFromNow = false
    /// ``maxSampleDescriptions`` was reached: the entries became `avc3`/`hev1`.
    private var descriptionLimitReached = false

    /// Buffered path (passthrough tracks, and until the writer exists): the
    /// length-prefixed bytes of the queued access units (from ``bufferHead``, contiguous, in
    /// decoding order), then those of the non-picture NAL units carried into the next sample,
    /// then the access unit being assembled. One buffer reused for the whole stream: no array
    /// per access unit, and each byte copied once before the writer. Streamed path: only the
    /// NAL units before the first VCL NAL unit of the sample being assembled.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    /// Where the first queued access unit starts in ``buffer`` (the bytes before were written).
    @exclusivity(unchecked) private var bufferHead = 0
    /// Where the next sample (carried NAL units, then the access unit being assembled) starts.
    @exclusivity(unchecked) private var sampleStart = 0
    @exclusivity(unchecked) private var currentPOC: PictureOrderCount?
    /// The reorder limit of the SPS the current picture uses.
    @exclusivity(unchecked) private var currentReorderLimit: Int?
    @exclusivity(unchecked) private var carriedNALUnits = 0
    @exclusivity(unchecked) private var currentNALUnits = 0
    /// Bytes of the sample being assembled (carried NAL units and the current access unit),
    /// wherever they are (``buffer``, the writer).
    @exclusivity(unchecked) private var sampleBytes = 0
    /// Whether the sample being assembled has gone to the writer (streamed path, from its first
    /// VCL NAL unit).
    @exclusivity(unchecked) private var sampleBegun = false
    /// Whether sample bytes go to the writer as they arrive (``MP4Writer/appendSampleBytes(_:)``)
    /// and the queue keeps only their sizes: once the writer exists, without passthrough
    /// tracks. Else they wait in ``buffer``.
    @exclusivity(unchecked) private var streaming = false

    // Access units waiting for their presentation index, in decoding order.
    /// Access units waiting for their presentation index: past ``MP4MuxerOptions/maxAccessUnitSize``
    /// bytes the oldest picture's is decided, so the queue cannot hold 64 large ones.
    @exclusivity(unchecked) private var queue = ReorderQueue<QueuedAccessUnit>()
    /// The new sample entries of queued access units (buffered path), in decoding order.
    private var queuedDescriptions: [NewDescription] = []
    @exclusivity(unchecked) private var timing: (rate: Rational, timescale: UInt32, duration: UInt32)?
    /// The sink until the writer takes it. (The one stored property whose size depends on the
    /// generic parameter, declared last: the properties before it then sit at offsets fixed at
    /// compile time, instead of offsets read from the type's metadata at every access in this
    /// unspecialized generic code.)
    private var sink: Sink?

    /// The source's times (``useSourceTiming(timescale:lookup:)``).
    private var sourceTiming: (timescale: UInt32, lookup: SampleTimingLookup)?
    /// Source-timed: the last access unit, written when the next one's decoding time gives its
    /// duration (its bytes are with the writer, or at ``bufferHead``).
    private var heldSample: HeldSample?
    /// Source-timed: the first access unit's decoding time (the output's decoding time 0).
    private var decodeOrigin: Int64 = 0
    /// Source-timed: pictures completed.
    private var timedCount = 0
    /// Source-timed: the offset of the first VCL NAL unit of the access unit being assembled.
    @exclusivity(unchecked) private var currentVCLOffset: Int64?
    /// The previous duration written (the last sample's when its source gives none).
    private var lastTimedDuration: UInt32 = 1

    /// - Parameters:
    ///   - spool: where `faststart` keeps the media data meanwhile (NALUIO's `SpoolFile`).
    public init(codec: Codec, sink: Sink, options: MP4MuxerOptions = MP4MuxerOptions(),
                spool: (any ByteSink & RandomAccessByteSource)? = nil) throws(NALUError) {
        let entry = options.sampleEntry ?? MP4SampleEntryType(codec: codec, inBandParameterSets: false)
        guard entry.codec == codec else {
            throw NALUError(.invalidValue, field: "sample entry", detail: "\(entry) is not a \(codec) sample entry")
        }
        guard options.layout != .faststart || spool != nil else {
            throw NALUError(.missing, field: "spool", detail: "the faststart layout needs a spool for the media data")
        }
        self.codec = codec
        self.options = options
        self.sink = sink
        self.spool = spool
        sampleEntry = entry
        splitter = AccessUnitSplitter(codec: codec)
        store = ParameterSetStore(codec: codec)
        buffer.reserveCapacity(1 << 20)
    }

    /// Called before each video sample goes to the writer with its decoding time (in the
    /// writer's video timescale, the second argument), and once more from ``finish()`` with
    /// `nil` before the movie box is written: where the samples of the passthrough tracks
    /// (``MP4MuxerOptions/passthroughTracks``) are appended, interleaved by decoding time. Set
    /// it before the first picture is complete (when the writer is created): with it, samples
    /// wait in the muxer until they are written whole (without it, their bytes go to the writer
    /// as they arrive). Its error (a ``NALU/NALUError``: a closure that calls throwing code says
    /// `(writer, time, timescale) throws(NALUError) in`) reaches the caller of the push or
    /// ``finish()`` that called it unchanged.
    public var willAppendVideoSample: ((MP4Writer<Sink>, Int64?, UInt32) throws(NALUError) -> Void)?

    /// Times every access unit from its source instead of a frame rate: `lookup` gives the
    /// ``NALU/SampleTiming`` of the access unit whose first NAL unit has the given offset, in
    /// ticks of `1/timescale` s, which becomes the track's `mdhd` timescale. Decoding times are
    /// kept as they are (counted from the first access unit's, which is 0 in the output; a
    /// sample's duration is the distance to the next one's decoding time, so access units left
    /// out do not move the others), and composition offsets are `presentation − decode`. Call
    /// before the first NAL unit. An access unit without times is refused.
    public func useSourceTiming(timescale: UInt32, lookup: @escaping SampleTimingLookup) throws(NALUError) {
        guard timescale > 0 else { throw NALUError(.invalidValue, field: "timescale", detail: "0; must be positive") }
        guard writer == nil else { throw NALUError(.invalidValue, field: "timescale", detail: "source timing set after the first picture") }
        sourceTiming = (timescale, lookup)
    }

    /// The writer's sink, once created (after the first access unit).
    public var output: Sink? { writer?.output ?? sink }

    /// Feeds the next NAL unit (escaped, header included) in decoding order.
    public func push(_ unit: NALUnitView) throws(NALUError) {
        let step = try splitter.push(unit)
        if let completed = step.completed { try complete(completed) }
        if step.isFirstVCL && sourceTiming != nil { currentVCLOffset = unit.offset }
        if step.isFirstVCL, let (poc, limit) = try pictureOrderCount(step, offset: unit.offset) {
            currentPOC = poc
            currentReorderLimit = limit
        }
        if codec.isEndOfSequence(firstByte: unit.firstByte) { counter.endOfSequence() }
        try append(unit, firstVCL: step.isFirstVCL)
    }

    /// Feeds the next NAL unit with what the stream's access-unit splitter and picture order
    /// counter made of it, run elsewhere (a thread reading ahead, ``NALUMedia``'s
    /// `ParsingAhead`): the access unit it completed, whether it is its access unit's first VCL
    /// NAL unit, and then the picture order count and reorder limit
    /// (``NALU/AccessUnitSplitter/pictureOrderCount(after:counter:offset:)``, the counter told of
    /// each end of sequence). A muxer fed this way is fed only this way; end with
    /// ``finish(lastAccessUnit:)``.
    package func push(_ unit: NALUnitView, completed: AccessUnitSummary?, isFirstVCL: Bool,
                      pictureOrder: (PictureOrderCount, reorderLimit: Int)?) throws {
        if let completed { try complete(completed) }
        if isFirstVCL && sourceTiming != nil { currentVCLOffset = unit.offset }
        if isFirstVCL, let (poc, limit) = pictureOrder {
            currentPOC = poc
            currentReorderLimit = limit
        }
        try append(unit, firstVCL: isFirstVCL)
    }

    /// ``finish()`` for a muxer fed with the splitter's results (``push(_:completed:isFirstVCL:pictureOrder:)``):
    /// `lastAccessUnit` is the splitter's ``NALU/AccessUnitSplitter/finish()``.
    @discardableResult
    package func finish(lastAccessUnit: AccessUnitSummary?) throws(NALUError) -> MP4MuxerSummary {
        if let lastAccessUnit { try complete(lastAccessUnit) }
        return try finish()
    }

    /// Writes out what the output still points to in NAL units pushed as lent
    /// (``NALU/NALUnitView/isLendable``, from a reader given a `beforeReuse` hook): call it from
    /// that hook, before the reader reuses their memory. Only the streamed path to an
    /// ``MP4OverwritableSink`` (`moovAtEnd` to a file) keeps such pointers.
    /// - Throws: ``NALU/NALUError`` (typed): the file's write error.
    public func returnLent() throws(NALUError) {
        try writer?.returnLent()
    }

    /// Feeds a NAL unit held in an array.
    public func push(nalUnit: [UInt8]) throws(NALUError) {
        try NALUnitView.withNALUnit(nalUnit) { (unit) throws(NALUError) in try push(unit) }
    }

    /// Writes what is left and the movie box.
    @discardableResult
    public func finish() throws(NALUError) -> MP4MuxerSummary {
        if let last = splitter.finish() { try complete(last) }
        queue.flush()
        try drain()
        try writeHeldSample(nextDecode: nil)
        guard let writer, let timing else {
            throw NALUError(.missing, field: "access unit", detail: "the stream has no picture")
        }
        if let willAppendVideoSample { try willAppendVideoSample(writer, nil, timing.timescale) }
        if recordChanged && !recordFrozen { try writer.updateDecoderConfigurationRecord(try record()) }
        let summary = try writer.finish()
        var rate = timing.rate
        if sourceTiming != nil, summary.duration > 0, summary.duration <= UInt64(Int64.max) {
            // The average rate of the source's times.
            let (ticks, overflow) = Int64(summary.samples).multipliedReportingOverflow(by: Int64(timing.timescale))
            if !overflow { rate = Rational(ticks, Int64(summary.duration)).reduced }
        }
        return MP4MuxerSummary(writer: summary, sampleEntry: sampleEntry, frameRate: rate, timescale: timing.timescale,
                               frameDuration: timing.duration, parameterSetsKeptInBand: keptInBand,
                               trailingNALUnitsDropped: carriedNALUnits, sampleDescriptions: sampleDescriptions,
                               parameterSetsInBandAfterChange: inBandFromNow, sampleDescriptionLimitReached: descriptionLimitReached)
    }

    // MARK: - Access units

    /// The picture order count of the picture whose first slice was just pushed, and how many
    /// pictures its SPS lets the stream reorder: H.264 `max_num_reorder_frames` (VUI bitstream
    /// restriction; 0 for `pic_order_cnt_type` 2, which cannot reorder; else 16), H.265
    /// `sps_max_num_reorder_pics` of the highest sub-layer. Both from what the splitter already
    /// read (no second parse); `nil` without a slice header (the picture then keeps its
    /// decoding position).
    /// (H.264 asks the splitter directly: going through `pictureOrderCount(after:)` copied the
    /// large `Step` twice per picture.)
    private func pictureOrderCount(_ step: borrowing AccessUnitSplitter.Step, offset: Int64) throws(NALUError) -> (PictureOrderCount, Int)? {
        if codec == .h264 {
            do throws(NALUError) {
                return try splitter.avcPictureOrderCount(&counter).map { ($0.0, $0.reorderLimit) }
            } catch {
                throw error.offset(by: offset)
            }
        }
        return try splitter.pictureOrderCount(after: step, counter: &counter, offset: offset).map { ($0.0, $0.reorderLimit) }
    }

    /// Adds a NAL unit to the access unit being assembled, length-prefixed, unless it moves to
    /// the record or is a delimiter being stripped.
    /// `firstVCL`: the access unit's first VCL NAL unit, from which a streamed sample's bytes go
    /// to the writer (the NAL units before it wait: they may belong to no sample, or start a new
    /// sample entry).
    private func append(_ unit: NALUnitView, firstVCL: Bool) throws(NALUError) {
        if codec.isAccessUnitDelimiter(firstByte: unit.firstByte) && options.accessUnitDelimiters == .strip { return }
        if codec.isParameterSet(firstByte: unit.firstByte, secondByte: unit.secondByte) {
            let bytes = unit.array
            let update: ParameterSetStore.Update
            do { update = try store.add(bytes) } catch { throw error.offset(by: unit.offset) }
            var inBand = sampleEntry.allowsInBandParameterSets || inBandFromNow
            switch update {
            case .new where queue.decodeCount + timedCount == 0 && !recordFrozen:
                let key = try ParameterSetKey(bytes, codec: codec, offset: unit.offset)
                recordOrder.append(stored(key) ?? bytes)
                recordKeys.append(key)
                recordChanged = true
            case .changed where queue.decodeCount + timedCount == 0 && !recordFrozen:
                // Before the first picture the replaced version was never used: the record takes
                // the new one in its place.
                let key = try ParameterSetKey(bytes, codec: codec, offset: unit.offset)
                if let index = recordKeys.firstIndex(of: key) { recordOrder[index] = stored(key) ?? bytes }
                recordChanged = true
            case .new, .changed:
                // After the first picture: the record no longer describes the stream.
                if sampleEntry.allowsInBandParameterSets || inBandFromNow { break }
                if options.layout != .fragmented {
                    // A new entry from this access unit on; its sets stay in band there too, for
                    // parsers that read the samples without following the entries (FFmpeg's).
                    descriptionPending = true
                    inBand = true
                } else {
                    // moov is out: this set and every later one stay in band.
                    inBandFromNow = true
                    inBand = true
                }
            case .unchanged, .otherLayer:
                if descriptionPending { inBand = true }
            }
            if inBand && !sampleEntry.allowsInBandParameterSets { keptInBand += 1 }
            guard inBand else { return }
        }
        guard unit.count <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "NAL unit length", byteOffset: unit.offset, detail: "\(unit.count) bytes")
        }
        guard unit.count + 4 <= options.maxAccessUnitSize - sampleBytes else {
            throw AccessUnitLimit.error(limit: options.maxAccessUnitSize, at: unit.offset)
        }
        let length = UInt32(unit.count)
        currentNALUnits += 1
        sampleBytes += 4 + unit.count
        if let streamedWriter {
            let written = try streamedWriter.withGuaranteedRef { (writer) throws(NALUError) in
                if firstVCL { try beginStreamedSample(writer) }
                if sampleBegun { try writer.appendNALUnit(unit) }
                return sampleBegun
            }
            if written { return }
        }
        buffer.append(UInt8(length >> 24))
        buffer.append(UInt8((length >> 16) & 0xFF))
        buffer.append(UInt8((length >> 8) & 0xFF))
        buffer.append(UInt8(length & 0xFF))
        buffer.append(contentsOf: unit.bytes)
    }

    /// Begins a streamed sample at its first VCL NAL unit: a new sample entry if the parameter
    /// sets changed, then the NAL units that waited.
    private func beginStreamedSample(_ writer: MP4Writer<Sink>) throws(NALUError) {
        if descriptionPending {
            descriptionPending = false
            try dropStaleParameterSets(from: 0)
            try start(try currentDescription(), writer)
            try writer.beginSample()
        } else {
            // (No optional description kept in a local: nothing to release per sample.)
            try writer.beginSample()
        }
        sampleBegun = true
        if !buffer.isEmpty {
            try buffer.withBytes { (bytes) throws(NALUError) in try writer.appendSampleBytes(bytes) }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Leaves out of the access unit that starts a new sample entry (its length-prefixed NAL
    /// units from `start` in ``buffer``) the parameter sets in it that are no longer current: one
    /// replaced later in the same access unit (same type and id), or one the store dropped because
    /// it no longer parses under its SPS. The entry's record holds the sets current at the
    /// picture, and the sets kept in band there are read after it: a stale one would be parsed
    /// against the wrong SPS (a reader rejects the file), and no picture ever used it. Linear in
    /// the access unit; nothing moves when no set is stale.
    private func dropStaleParameterSets(from start: Int) throws(NALUError) {
        var units: [(range: Range<Int>, key: ParameterSetKey?)] = []
        var last: [ParameterSetKey: Int] = [:]
        var position = start
        while position + 4 <= buffer.count {
            let length = Int(buffer[position]) << 24 | Int(buffer[position + 1]) << 16
                | Int(buffer[position + 2]) << 8 | Int(buffer[position + 3])
            let end = position + 4 + length
            guard end <= buffer.count else { break }
            var key: ParameterSetKey?
            if codec.isParameterSet(buffer[(position + 4)..<end]) {
                key = try ParameterSetKey(Array(buffer[(position + 4)..<end]), codec: codec, offset: 0)
                if let key { last[key] = units.count }
            }
            units.append((position..<end, key))
            position = end
        }
        let isStale = units.indices.map { index in
            units[index].key.map { last[$0] != index || stored($0) == nil } ?? false
        }
        let stale = isStale.count { $0 }
        guard stale > 0 else { return }
        var kept = start
        for (index, unit) in units.enumerated() where !isStale[index] {
            if unit.range.lowerBound != kept {
                buffer.withUnsafeMutableBytes { bytes in
                    guard let base = bytes.baseAddress else { return }
                    (base + kept).copyMemory(from: base + unit.range.lowerBound, byteCount: unit.range.count)
                }
            }
            kept += unit.range.count
        }
        sampleBytes -= buffer.count - kept
        keptInBand -= stale
        buffer.removeLast(buffer.count - kept)
    }

    /// The store's copy of a parameter set: without junk past its syntax (``ParameterSetSize``).
    private func stored(_ key: ParameterSetKey) -> [UInt8]? {
        switch codec {
        case .h264: key.type == AVCNALUnitType.sps.rawValue ? store.avcSPS[key.id]?.nalUnit : store.avcPPS[key.id]?.nalUnit
        case .hevc:
            key.type == HEVCNALUnitType.vps.rawValue ? store.hevcVPS[key.id]?.nalUnit
                : key.type == HEVCNALUnitType.sps.rawValue ? store.hevcSPS[key.id]?.nalUnit : store.hevcPPS[key.id]?.nalUnit
        }
    }

    private func complete(_ summary: AccessUnitSummary) throws(NALUError) {
        defer {
            currentPOC = nil
            currentReorderLimit = nil
            currentNALUnits = 0
            currentVCLOffset = nil
        }
        guard summary.vclNALUnitCount > 0 else {
            // No picture: its NAL units (SEI, parameter sets, end of sequence) go with the next one
            // (they stay in the buffer, before the next access unit's).
            carriedNALUnits += currentNALUnits
            return
        }
        carriedNALUnits = 0
        var times: SampleTiming?
        if let sourceTiming {
            guard let found = sourceTiming.lookup(currentVCLOffset ?? summary.offset) else {
                throw NALUError(.missing, field: "sample time", byteOffset: summary.offset,
                                detail: "access unit \(summary.index) has no time in the source")
            }
            times = found
        }
        if writer == nil { try createWriter(firstTimes: times) }
        if let streamedWriter, let times {
            let size = try streamedWriter.withGuaranteedRef { (writer) throws(NALUError) in try writer.endSample(isSync: summary.keyframe != nil) }
            sampleBegun = false
            sampleBytes = 0
            return try holdSample(HeldSample(size: size, sync: summary.keyframe != nil, description: nil, times: times))
        }
        if let streamedWriter {
            // The bytes are with the writer; the entry waits for its composition offset. (A
            // sample entry started at the first VCL NAL unit; a parameter set changed after it
            // in the same access unit, which only a non-base layer's can, starts one with the
            // next sample.) Apart from the buffered path below: no optional description to
            // release per sample.
            let size = try streamedWriter.withGuaranteedRef { (writer) throws(NALUError) in try writer.endSample(isSync: summary.keyframe != nil) }
            sampleBegun = false
            sampleBytes = 0
            queue.append(QueuedAccessUnit(sync: summary.keyframe != nil, startsDescription: false), size: size, poc: currentPOC,
                         reorderLimit: currentReorderLimit, maxBytes: options.maxAccessUnitSize)
            return try drain()
        }
        var description: NewDescription?
        if descriptionPending {
            descriptionPending = false
            try dropStaleParameterSets(from: sampleStart)
            description = try currentDescription()
        }
        let size = buffer.count - sampleStart
        sampleStart = buffer.count
        sampleBytes = 0
        if let times {
            return try holdSample(HeldSample(size: size, sync: summary.keyframe != nil, description: description, times: times))
        }
        if let description { queuedDescriptions.append(description) }
        queue.append(QueuedAccessUnit(sync: summary.keyframe != nil, startsDescription: description != nil), size: size, poc: currentPOC,
                     reorderLimit: currentReorderLimit, maxBytes: options.maxAccessUnitSize)
        try drain()
    }

    /// Writes the access units at the head of the queue whose presentation index is known.
    private func drain() throws(NALUError) {
        if let streamedWriter, let timing {
            return try streamedWriter.withGuaranteedRef { (writer) throws(NALUError) in try commitReady(writer, duration: timing.duration) }
        }
        guard let writer, let timing else { return }
        var written = 0
        while let (entry, decodeIndex, presentation) = queue.ready(written) {
            let (delta, overflow) = (presentation - decodeIndex).multipliedReportingOverflow(by: Int(timing.duration))
            guard !overflow else {
                throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset of access unit \(decodeIndex)")
            }
            if recordChanged && !recordFrozen {
                try writer.updateDecoderConfigurationRecord(try record())
                recordChanged = false
            }
            if entry.element.startsDescription, !queuedDescriptions.isEmpty {
                try start(queuedDescriptions.removeFirst(), writer)
            }
            let (start, size) = (bufferHead, entry.size)
            if let willAppendVideoSample {
                let (time, overflow) = Int64(decodeIndex).multipliedReportingOverflow(by: Int64(timing.duration))
                try willAppendVideoSample(writer, overflow ? .max : time, timing.timescale)
            }
            try buffer.withBytes { (bytes) throws(NALUError) in
                try writer.append(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]), duration: timing.duration,
                                  compositionOffset: Int64(delta), isSync: entry.element.sync)
            }
            bufferHead += size
            written += 1
        }
        queue.removeFirst(written)
        if !streaming { compactBuffer() }
    }

    /// Starts the sample entry `description` (an identical earlier one is reused), or, when
    /// ``maxSampleDescriptions`` entries exist and it is a new one, makes the entries
    /// `avc3`/`hev1` and keeps every parameter set in band from here on (the access unit that
    /// changed them carries them already).
    private func start(_ description: NewDescription, _ writer: MP4Writer<Sink>) throws(NALUError) {
        if !descriptionLimitReached,
           writer.sampleDescriptionIndex(record: description.record, width: description.width, height: description.height) != nil
            || writer.sampleDescriptionCount < Self.maxSampleDescriptions {
            try writer.startSampleDescription(record: description.record, width: description.width, height: description.height)
            sampleDescriptions = writer.sampleDescriptionCount
            return
        }
        guard !descriptionLimitReached else { return }
        try writer.useInBandParameterSetEntries()
        sampleEntry = writer.configuration.sampleEntry
        descriptionLimitReached = true
        inBandFromNow = true
    }

    /// Source-timed: writes the held access unit (its duration now known) and holds `sample`.
    private func holdSample(_ sample: HeldSample) throws(NALUError) {
        timedCount += 1
        try writeHeldSample(nextDecode: sample.times.decode)
        heldSample = sample
    }

    /// Source-timed: writes the held access unit, lasting until `nextDecode` (the next one's
    /// decoding time), or as its source says when it is the last (`nil`).
    private func writeHeldSample(nextDecode: Int64?) throws(NALUError) {
        guard let held = heldSample, let writer else { return }
        heldSample = nil
        let duration: Int64
        if let nextDecode {
            let (distance, overflow) = nextDecode.subtractingReportingOverflow(held.times.decode)
            guard !overflow, distance > 0 else {
                throw NALUError(.invalidValue, field: "decoding time",
                                detail: "\(nextDecode) does not follow the previous access unit's \(held.times.decode) (timescale \(held.times.timescale))")
            }
            duration = distance
        } else {
            duration = held.times.duration > 0 ? held.times.duration : Int64(lastTimedDuration)
        }
        guard duration <= Int64(UInt32.max), let offset = held.times.compositionOffset, offset >= Int64(Int32.min), offset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_delta", detail: "duration \(duration) or composition offset of the sample at decoding time \(held.times.decode)")
        }
        lastTimedDuration = UInt32(duration)
        if recordChanged && !recordFrozen {
            try writer.updateDecoderConfigurationRecord(try record())
            recordChanged = false
        }
        if streaming {
            try writer.commitSample(size: held.size, duration: UInt32(duration), compositionOffset: offset, isSync: held.sync)
            return
        }
        if let description = held.description {
            try start(description, writer)
        }
        if let willAppendVideoSample {
            try willAppendVideoSample(writer, held.times.decode &- decodeOrigin, held.times.timescale)
        }
        let (start, size) = (bufferHead, held.size)
        try buffer.withBytes { (bytes) throws(NALUError) in
            try writer.append(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]), duration: UInt32(duration),
                              compositionOffset: offset, isSync: held.sync)
        }
        bufferHead += size
        compactBuffer()
    }

    /// Streamed path: commits the table entries of the access units at the head of the queue
    /// whose presentation index is known (their bytes are with the writer already).
    private func commitReady(_ writer: MP4Writer<Sink>, duration: UInt32) throws(NALUError) {
        var written = 0
        while let (entry, decodeIndex, presentation) = queue.ready(written) {
            let (delta, overflow) = (presentation - decodeIndex).multipliedReportingOverflow(by: Int(duration))
            guard !overflow else {
                throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset of access unit \(decodeIndex)")
            }
            if recordChanged && !recordFrozen {
                try writer.updateDecoderConfigurationRecord(try record())
                recordChanged = false
            }
            try writer.commitSample(size: entry.size, duration: duration, compositionOffset: Int64(delta), isSync: entry.element.sync)
            written += 1
        }
        queue.removeFirst(written)
    }

    /// Drops the written bytes from the front of ``buffer``: all of them when the queue is empty
    /// and no sample is being assembled past it (no copy), else by moving the live bytes down
    /// once the written prefix is at least as large as they are (so each byte moves at most
    /// about once: linear overall).
    private func compactBuffer() {
        guard bufferHead > 0 else { return }
        let live = buffer.count - bufferHead
        if live == 0 {
            buffer.removeAll(keepingCapacity: true)
        } else if bufferHead >= 64 << 10, bufferHead >= live {
            buffer.removeSubrange(0..<bufferHead)
        } else {
            return
        }
        sampleStart -= bufferHead
        bufferHead = 0
    }

    /// The `avcC`/`hvcC` record of ``recordOrder``, checked the way a reader takes it: its
    /// parameter sets, in the record's order, must parse (a PPS against the record's SPS), so
    /// hostile input that the stream's own order got past cannot yield a file nobody can read.
    private func record() throws(NALUError) -> [UInt8] {
        try record(of: recordOrder)
    }

    /// The record of every current parameter set (VPS, SPS, PPS by id), and the picture size of
    /// the latest SPS.
    private func currentDescription() throws(NALUError) -> NewDescription {
        guard let description = store.streamDescription else {
            throw NALUError(.missing, field: "sequence parameter set", detail: "no SPS for the new sample entry")
        }
        return NewDescription(record: try record(of: store.nalUnits), width: description.width, height: description.height)
    }

    /// The record of `parameterSets`, checked as ``record()`` says.
    private func record(of parameterSets: [[UInt8]]) throws(NALUError) -> [UInt8] {
        let bytes = try DecoderConfigurationRecord.build(codec: codec, parameterSets: parameterSets, lengthSize: 4,
                                                         arrayCompleteness: ParameterSetCarriage(inBand: sampleEntry.allowsInBandParameterSets).arrayCompleteness)
        var check = ParameterSetStore(codec: codec)
        do throws(NALUError) {
            for unit in try DecoderConfigurationRecord(parsing: bytes).parameterSets { try check.add(unit) }
        } catch {
            throw NALUError(.invalidValue, field: codec == .h264 ? "avcC" : "hvcC",
                            detail: "its parameter sets do not parse in the record's order: \(error)")
        }
        return bytes
    }

    /// Creates the writer once the first picture is complete: its parameter sets give the record,
    /// the picture size and (without a given rate) the frame rate.
    private func createWriter(firstTimes: SampleTiming?) throws(NALUError) {
        guard let description = store.streamDescription ?? splitter.parameterSets.streamDescription else {
            throw NALUError(.missing, field: "sequence parameter set", detail: "the first picture has no SPS before it")
        }
        if let sourceTiming, let firstTimes {
            // The source's timescale; the rate reported is the first sample's.
            decodeOrigin = firstTimes.decode
            let first = max(1, min(firstTimes.duration, Int64(UInt32.max)))
            timing = (Rational(Int64(sourceTiming.timescale), first).reduced, sourceTiming.timescale, UInt32(first))
            return try makeWriter(description: description, timescale: sourceTiming.timescale)
        }
        guard let rate = (options.frameRate ?? description.frameRate)?.reduced else {
            throw NALUError(.missing, field: "frame rate", detail: "the SPS has no VUI timing; give a frame rate")
        }
        guard rate.numerator > 0, rate.denominator > 0, rate.numerator <= Int64(UInt32.max), rate.denominator <= Int64(UInt32.max) else {
            throw NALUError(.invalidValue, field: "frame rate", detail: "\(rate)")
        }
        // The encoder's range (0.01 to 1000 fps), and a timescale readers take as a signed 32-bit
        // value (FFmpeg rejects larger `mvhd`/`mdhd` timescales): a VUI time_scale of 2^32 − 1 is not.
        guard rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max),
              rate.numerator * 100 >= rate.denominator, rate.numerator <= rate.denominator * 1000 else {
            throw NALUError(.invalidValue, field: "frame rate",
                            detail: "\(rate.numerator)/\(rate.denominator)\(options.frameRate == nil ? " from the SPS VUI" : "") is outside 0.01–1000 fps or a 31-bit timescale; give the frame rate (--fps)")
        }
        // A timescale of at least 10000 ticks, a power-of-two multiple of the rate's numerator.
        let frameTiming = try MP4FrameTiming(frameRate: rate)
        let timescale = frameTiming.timescale
        timing = (rate, timescale, frameTiming.frameDuration)
        try makeWriter(description: description, timescale: timescale)
    }

    /// Creates the writer at `timescale` for the first picture's parameter sets.
    private func makeWriter(description: StreamDescription, timescale: UInt32) throws(NALUError) {
        guard let sink else { return }
        self.sink = nil
        var configuration = MP4WriterConfiguration(
            sampleEntry: sampleEntry, decoderConfigurationRecord: try record(), width: description.width, height: description.height,
            timescale: timescale, layout: options.layout, negativeCompositionOffsets: options.negativeCompositionOffsets,
            chunkSize: options.chunkSize, forceLargeChunkOffsets: options.forceLargeChunkOffsets, editList: options.editList)
        configuration.colourBoxes = options.colourBoxes
        configuration.passthroughTracks = options.passthroughTracks
        configuration.movieTimescale = options.movieTimescale
        configuration.videoStartDelay = options.videoStartDelay
        configuration.editListFollowsSampleTimes = options.editListFollowsSampleTimes
        configuration.metadata = options.metadata
        let writer = try MP4Writer(sink: sink, configuration: configuration, spool: spool)
        self.writer = writer
        recordChanged = false
        if writer.acceptsStreamedSamples && willAppendVideoSample == nil {
            // The first sample's bytes (all that the buffer holds) go to the writer.
            streaming = true
            streamedWriter = Unmanaged.passUnretained(writer)
            writer.streamed.maxSampleSize = options.maxAccessUnitSize
            try writer.beginSample()
            try buffer.withBytes { (bytes) throws(NALUError) in try writer.appendSampleBytes(bytes) }
            buffer.removeAll(keepingCapacity: false)
            sampleStart = 0
            bufferHead = 0
        }
        // Fragments: moov goes out with the first fragment, so later sets stay in band.
        if options.layout == .fragmented { recordFrozen = true }
    }
}

/// A source-timed access unit waiting for the next one's decoding time (its duration).
private struct HeldSample {
    var size: Int
    var sync: Bool
    /// The new sample entry it starts (buffered path).
    var description: NewDescription?
    var times: SampleTiming
}

/// A sample entry's record and picture size after a parameter-set change.
private struct NewDescription {
    var record: [UInt8]
    var width: Int
    var height: Int
}

/// What ``MP4Muxer`` keeps of an access unit in its reorder queue (its bytes, `size` of the
/// queue entry, are with the writer when streamed, else follow the previous one's in the
/// muxer's buffer). (A
/// file-scope type, not a tuple inside the generic muxer: its metadata is static, not looked up
/// at run time for every access unit.)
private struct QueuedAccessUnit {
    var sync: Bool
    /// Whether it starts a new sample entry, the next of ``MP4Muxer``'s `queuedDescriptions`
    /// (not held here: a trivial type is copied in and out of the queue without reference
    /// counting).
    var startsDescription: Bool
}

struct ParameterSetKey: Hashable {
    var type: UInt8
    var id: Int

    /// Parses the id of `nalUnit`, a parameter set the ``ParameterSetStore`` has just taken.
    init(_ nalUnit: [UInt8], codec: Codec, offset: Int64) throws(NALUError) {
        do throws(NALUError) {
            switch codec {
            case .h264:
                let header = try AVCNALUnitHeader(nalUnit[...])
                type = header.nalUnitType.rawValue
                if header.nalUnitType == .sps {
                    id = try AVCSequenceParameterSet(nalUnit: nalUnit[...]).seqParameterSetId
                } else {
                    // pic_parameter_set_id is the PPS's first syntax element (7.3.2.2).
                    var reader = BitReader(nalUnit: nalUnit[...], headerBytes: 1)
                    id = Int(try reader.ue("pic_parameter_set_id"))
                }
            case .hevc:
                let header = try HEVCNALUnitHeader(nalUnit[...])
                type = header.nalUnitType.rawValue
                switch header.nalUnitType {
                case .vps: id = try HEVCVideoParameterSet(nalUnit: nalUnit[...]).vpsVideoParameterSetId
                case .sps: id = try HEVCSequenceParameterSet(nalUnit: nalUnit[...]).spsSeqParameterSetId
                default: id = try HEVCPictureParameterSet(nalUnit: nalUnit[...]).ppsPicParameterSetId
                }
            }
        } catch {
            throw error.offset(by: offset)
        }
    }
}

extension Unmanaged {
    /// `_withUnsafeGuaranteedRef` with the thrown type of `body` kept (the standard library's
    /// rethrows `any Error`): the streamed writer, used without retain/release per NAL unit.
    /// In this file so that it is specialized and inlined where the muxer calls it.
    @inline(__always)
    fileprivate func withGuaranteedRef<Result, Failure: Error>(_ body: (Instance) throws(Failure) -> Result) throws(Failure) -> Result {
        try _withUnsafeGuaranteedRef { instance in Swift.Result { () throws(Failure) in try body(instance) } }.get()
    }
}
