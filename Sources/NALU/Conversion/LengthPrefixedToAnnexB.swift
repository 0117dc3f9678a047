/// Converts length-prefixed NAL units (MP4 samples, VideoToolbox/WebCodecs output) to an
/// Annex-B stream: what FFmpeg's `h264_mp4toannexb`/`hevc_mp4toannexb` do, with explicit
/// policies, streaming one access unit at a time.
///
/// - Every NAL unit gets a four-byte start code.
/// - Parameter sets from the decoder configuration record (and in-band updates, which replace
///   them) are written before keyframe access units (``ParameterSetInsertion``), unless the
///   access unit already carries that kind of parameter set in band: no duplicates. An access
///   unit that gains parameter sets is written as AUD, then VPS→SPS→PPS, then its other NAL
///   units in their order; one that gains nothing is written in its original order.
/// - Access unit delimiters are kept, stripped, or inserted where missing
///   (``AccessUnitDelimiterPolicy``), with `primary_pic_type`/`pic_type` from the slice types.
///
/// Access units are found by the specs' rules (``AccessUnitSplitter``), so the input does not
/// need to be split into samples. Only the NAL units before an access unit's first slice are
/// held back (that is where parameter sets are inserted); slices go straight through. With
/// ``AccessUnitDelimiterPolicy/insert`` whole access units are buffered, because the delimiter's
/// picture type depends on every slice.
public struct LengthPrefixedToAnnexB {
    public struct Options: Sendable {
        public var parameterSets: ParameterSetInsertion
        public var accessUnitDelimiters: AccessUnitDelimiterPolicy
        /// Where inserted parameter sets go in the access unit.
        public var placement: ParameterSetPlacement
        /// Bytes of one access unit that may be held back (``AccessUnitLimit``).
        public var maxAccessUnitSize: Int

        public init(parameterSets: ParameterSetInsertion = .keyframes, accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep,
                    placement: ParameterSetPlacement = .accessUnitStart, maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) {
            self.parameterSets = parameterSets
            self.accessUnitDelimiters = accessUnitDelimiters
            self.placement = placement
            self.maxAccessUnitSize = maxAccessUnitSize
        }
    }

    public let codec: Codec
    public let options: Options
    public private(set) var statistics = ConversionStatistics()

    private var splitter: AccessUnitSplitter
    /// Parameter sets in force before the access unit being written.
    private var active: ParameterSetStore
    private var insertedBeforeFirstKeyframe = false
    /// The buffered access unit: NAL units back to back, and where each one is.
    private var unitBytes: [UInt8] = []
    private var units: [(start: Int, end: Int, offset: Int64)] = []
    /// Whether whole access units are buffered (delimiter insertion) or only their prefix.
    private let buffersAccessUnits: Bool
    /// Whether the prefix of the current access unit has been written (its first slice seen).
    private var prefixWritten = false
    private static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Prefix SEI NAL units from the record, written after the parameter sets wherever those are inserted.
    private let declarativeSEI: [[UInt8]]

    /// - Parameters:
    ///   - outOfBandParameterSets: the parameter sets of the decoder configuration record
    ///     (``AVCDecoderConfigurationRecord/parameterSets``,
    ///     ``HEVCDecoderConfigurationRecord/parameterSets``), if any.
    ///   - declarativeSEI: prefix SEI NAL units the record carries
    ///     (``HEVCDecoderConfigurationRecord/declarativeSEI``): written after the parameter sets
    ///     wherever those are inserted, as FFmpeg's `hevc_mp4toannexb` writes the whole record.
    public init(codec: Codec, options: Options = Options(), outOfBandParameterSets: [[UInt8]] = [],
                declarativeSEI: [[UInt8]] = []) throws(NALUError) {
        self.codec = codec
        self.options = options
        self.declarativeSEI = declarativeSEI
        buffersAccessUnits = options.accessUnitDelimiters == .insert
        splitter = AccessUnitSplitter(codec: codec)
        active = ParameterSetStore(codec: codec)
        for unit in outOfBandParameterSets {
            try splitter.addParameterSet(unit)
            try active.add(unit)
        }
        unitBytes.reserveCapacity(1 << 20)
    }

    /// Converts every NAL unit `reader` yields, writing to `sink`.
    /// - Throws: ``NALUError`` (typed): the stream's or the sink's error; an error of another type
    ///   from `reader`'s source as ``NALUError/converting(_:field:)`` makes it (field `input`).
    public mutating func convert<Source: ByteSource>(_ reader: inout LengthPrefixedReader<Source>, to sink: inout some ByteSink) throws(NALUError) {
        try NALUError.typed(field: "input") { try reader.forEachNALUnit { unit in try push(unit, to: &sink) } }
        try finish(to: &sink)
    }

    /// Converts a whole length-prefixed stream in memory, returning Annex-B bytes.
    /// - Throws: ``NALUError`` (typed): a malformed length or NAL unit, an access unit over the limit.
    public mutating func convert(_ lengthPrefixed: [UInt8], lengthSize: Int) throws(NALUError) -> [UInt8] {
        var sink = MemorySink()
        sink.reserveCapacity(lengthPrefixed.count + lengthPrefixed.count / 32)
        try lengthPrefixed.withBytes { (buffer) throws(NALUError) in try convert(buffer, lengthSize: lengthSize, to: &sink) }
        return sink.bytes
    }

    /// Converts a whole length-prefixed stream in memory, writing to `sink`.
    /// - Throws: ``NALUError`` (typed): the stream's or the sink's error.
    public mutating func convert(_ buffer: UnsafeRawBufferPointer, lengthSize: Int, to sink: inout some ByteSink) throws(NALUError) {
        try NALUError.typed(field: "length-prefixed stream") {
            try LengthPrefixed.forEachNALUnit(in: buffer, lengthSize: lengthSize) { range in
                try push(NALUnitView(offset: Int64(range.lowerBound), bytes: UnsafeRawBufferPointer(rebasing: buffer[range]),
                                     prefixLength: lengthSize), to: &sink)
            }
        }
        try finish(to: &sink)
    }

    /// Feeds one NAL unit; what can be written is written to `sink`. Returns what the NAL unit
    /// was to the access unit splitter: with ``AccessUnitDelimiterPolicy/insert`` every byte
    /// written during this call is the access unit the step ``AccessUnitSplitter/Step/completed``.
    @discardableResult
    /// - Throws: ``NALUError`` (typed): the NAL unit's or the sink's error.
    public mutating func push(_ unit: NALUnitView, to sink: inout some ByteSink) throws(NALUError) -> AccessUnitSplitter.Step {
        try NALUError.typed(field: "NAL unit") { try pushUntyped(unit, to: &sink) }
    }

    private mutating func pushUntyped(_ unit: NALUnitView, to sink: inout some ByteSink) throws -> AccessUnitSplitter.Step {
        statistics.nalUnitsIn += 1
        statistics.bytesIn += Int64(unit.count + unit.prefixLength)
        let step = try splitter.push(unit)
        if let completed = step.completed {
            // In prefix mode only an access unit without slices still has bytes held back.
            if buffersAccessUnits || !prefixWritten { try flush(completed, to: &sink) }
        }
        if step.startsAccessUnit { prefixWritten = false }
        if !buffersAccessUnits {
            if step.isFirstVCL, let current = splitter.current {
                try flush(current, to: &sink)
                prefixWritten = true
            }
            if prefixWritten {
                if let run = unit.lentRun(overwritingPrefixWith: 1) {
                    // The four-byte length before a lent NAL unit becomes its start code.
                    try sink.write(lent: run)
                } else {
                    try writeStartCode(to: &sink)
                    try sink.write(unit.bytes)
                }
                statistics.nalUnitsOut += 1
                statistics.bytesOut += Int64(4 + unit.count)
                return step
            }
        }
        let start = unitBytes.count
        guard unit.count <= options.maxAccessUnitSize - start else { throw AccessUnitLimit.error(limit: options.maxAccessUnitSize, at: unit.offset) }
        unitBytes.append(contentsOf: unit.bytes.assumingMemoryBound(to: UInt8.self))
        units.append((start, unitBytes.count, unit.offset))
        return step
    }

    /// The picture order count and reorder limit of the picture whose first slice `step` was
    /// (``AccessUnitSplitter/pictureOrderCount(after:counter:offset:)`` on this converter's splitter).
    package mutating func pictureOrderCount(after step: AccessUnitSplitter.Step, counter: inout PictureOrderCounter,
                                           offset: Int64) throws(NALUError) -> (PictureOrderCount, reorderLimit: Int)? {
        try splitter.pictureOrderCount(after: step, counter: &counter, offset: offset)
    }

    /// The parameter sets seen so far (the record's, then the stream's).
    public var parameterSets: ParameterSetStore { splitter.parameterSets }

    /// Writes what is still held back; returns the last access unit, if any.
    @discardableResult
    /// - Throws: ``NALUError`` (typed): the sink's error.
    public mutating func finish(to sink: inout some ByteSink) throws(NALUError) -> AccessUnitSummary? {
        let last = splitter.finish()
        if let last, buffersAccessUnits || !prefixWritten { try NALUError.typed(field: "access unit") { try flush(last, to: &sink) } }
        prefixWritten = false
        return last
    }

    private func writeStartCode(to sink: inout some ByteSink) throws {
        try Self.startCode.withUnsafeBytes { try sink.write($0) }
    }

    private func type(at index: Int) -> UInt8 {
        let first = unitBytes[units[index].start]
        return codec.nalUnitType(firstByte: first)
    }

    /// The rank (``parameterSetRank(_:)``) of held-back NAL unit `index` when it is a parameter
    /// set of the base layer (``Codec/isParameterSet(firstByte:secondByte:)``); an H.265 set of
    /// another layer is carried like any other NAL unit.
    private func parameterSetRank(at index: Int) -> Int? {
        guard codec.isParameterSet(unitBytes[units[index].start..<units[index].end]) else { return nil }
        return parameterSetRank(type(at: index))
    }

    /// Order of parameter set types: VPS, SPS, PPS.
    private func parameterSetRank(_ type: UInt8) -> Int? {
        switch codec {
        case .h264: type == 7 ? 1 : type == 8 ? 2 : nil
        case .hevc: (32...34).contains(type) ? Int(type) - 31 : nil
        }
    }

    private var delimiterType: UInt8 { codec == .h264 ? 9 : 35 }

    private mutating func flush(_ summary: AccessUnitSummary, to sink: inout some ByteSink) throws {
        // Nothing held back, nothing to insert (no keyframe, no delimiter to add): the common
        // case once per access unit on a stream of one slice per picture.
        if units.isEmpty && summary.keyframe == nil && options.accessUnitDelimiters != .insert {
            if buffersAccessUnits || !prefixWritten { statistics.accessUnits += 1 }
            return
        }
        defer {
            unitBytes.removeAll(keepingCapacity: true)
            units.removeAll(keepingCapacity: true)
        }
        if buffersAccessUnits || !prefixWritten { statistics.accessUnits += 1 }
        let types = units.indices.map { type(at: $0) }
        let hasDelimiter = types.first == delimiterType

        // Parameter sets to insert: each kind this access unit lacks, if it is a keyframe.
        var inserted: [(rank: Int, bytes: [UInt8])] = []
        if summary.keyframe != nil {
            let wanted: Bool
            switch options.parameterSets {
            case .keyframes: wanted = true
            case .first: wanted = !insertedBeforeFirstKeyframe
            case .never: wanted = false
            }
            insertedBeforeFirstKeyframe = true
            if wanted {
                let present = Set(units.indices.compactMap(parameterSetRank(at:)))
                for bytes in active.nalUnits {
                    guard let first = bytes.first else { continue }
                    let rank = parameterSetRank(codec.nalUnitType(firstByte: first)) ?? 0
                    if !present.contains(rank) { inserted.append((rank, bytes)) }
                }
                if !inserted.isEmpty {
                    for bytes in declarativeSEI { inserted.append((4, bytes)) }
                }
            }
        }
        // In-band parameter sets replace what is active for later access units.
        for index in units.indices where parameterSetRank(at: index) != nil {
            try active.add(Array(unitBytes[units[index].start..<units[index].end]))
        }

        // Delimiter.
        if hasDelimiter {
            if options.accessUnitDelimiters == .strip {
                statistics.delimitersStripped += 1
            } else {
                try write(index: 0, to: &sink)
            }
        } else if options.accessUnitDelimiters == .insert {
            try writeNALUnit(delimiter(for: summary), to: &sink)
            statistics.delimitersInserted += 1
        }
        let rest = hasDelimiter ? 1..<units.count : 0..<units.count
        if !inserted.isEmpty && options.placement == .beforeFirstSlice {
            // FFmpeg's h264_mp4toannexb/hevc_mp4toannexb: everything in its order, the inserted
            // parameter sets (VPS→SPS→PPS, then declarative SEI) just before the first slice,
            // which follows the held-back prefix directly when only the prefix is buffered.
            let isVCL: (UInt8) -> Bool = { [codec] type in codec == .h264 ? (1...5).contains(type) : type < 32 }
            var pending = inserted  // already VPS→SPS→PPS (ParameterSetStore.nalUnits), then SEI
            for index in rest {
                if !pending.isEmpty && isVCL(types[index]) {
                    try writeInserted(pending, to: &sink)
                    pending.removeAll()
                }
                try write(index: index, to: &sink)
            }
            try writeInserted(pending, to: &sink)
            return
        }
        if inserted.isEmpty {
            for index in rest { try write(index: index, to: &sink) }
            return
        }
        // Parameter sets first, by kind, in-band ones in their order, then everything else.
        var parameterSets: [(rank: Int, order: Int, source: Int?, bytes: [UInt8])] = []
        for index in rest {
            if let rank = parameterSetRank(at: index) { parameterSets.append((rank, index, index, [])) }
        }
        for (order, item) in inserted.enumerated() { parameterSets.append((item.rank, units.count + order, nil, item.bytes)) }
        parameterSets.sort { ($0.rank, $0.order) < ($1.rank, $1.order) }
        for item in parameterSets {
            if let source = item.source {
                try write(index: source, to: &sink)
            } else {
                try writeNALUnit(item.bytes, to: &sink)
                if item.rank <= 3 { statistics.parameterSetsInserted += 1 }
            }
        }
        for index in rest where parameterSetRank(at: index) == nil { try write(index: index, to: &sink) }
    }

    private mutating func writeInserted(_ items: [(rank: Int, bytes: [UInt8])], to sink: inout some ByteSink) throws {
        for item in items {
            try writeNALUnit(item.bytes, to: &sink)
            if item.rank <= 3 { statistics.parameterSetsInserted += 1 }
        }
    }

    private mutating func write(index: Int, to sink: inout some ByteSink) throws {
        let range = units[index]
        try Self.startCode.withUnsafeBytes { try sink.write($0) }
        try unitBytes.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[range.start..<range.end])) }
        statistics.nalUnitsOut += 1
        statistics.bytesOut += Int64(4 + range.end - range.start)
    }

    private mutating func writeNALUnit(_ bytes: [UInt8], to sink: inout some ByteSink) throws {
        try Self.startCode.withUnsafeBytes { try sink.write($0) }
        try bytes.withUnsafeBytes { try sink.write($0) }
        statistics.nalUnitsOut += 1
        statistics.bytesOut += Int64(4 + bytes.count)
    }

    /// An access unit delimiter for `summary`: H.264 7.3.2.4 `primary_pic_type` (Table 7-5) or
    /// H.265 7.3.2.5 `pic_type` (Table 7-2): 0 for I, 1 for P and I, 2 for B, P and I.
    private func delimiter(for summary: AccessUnitSummary) -> [UInt8] {
        let picType: UInt8 = switch summary.pictureType {
        case .i: 0
        case .p: 1
        case .b, nil: 2
        }
        switch codec {
        case .h264:
            return [0x09, picType << 5 | 0x10]
        case .hevc:
            // Same TemporalId as the access unit's first VCL NAL unit.
            let vcl = units.indices.first { type(at: $0) < 32 }
            let temporal = vcl.flatMap { index in
                units[index].end - units[index].start > 1 ? unitBytes[units[index].start + 1] & 0x07 : nil
            } ?? 1
            return [35 << 1, temporal == 0 ? 1 : temporal, picType << 5 | 0x10]
        }
    }
}
