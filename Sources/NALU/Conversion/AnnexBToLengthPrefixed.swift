/// Converts an Annex-B stream (or any stream of NAL units) to length-prefixed NAL units ("AVCC"/"HVCC" samples), streaming in
/// constant memory: what FFmpeg's MP4 muxer does to Annex-B input, with explicit policies.
///
/// - Start codes become big-endian lengths of ``Options/lengthSize`` bytes; a NAL unit too large
///   for the length field is an error naming it.
/// - Zero bytes between NAL units (`trailing_zero_8bits`) are dropped.
/// - Parameter sets are either moved out of band into the decoder configuration record
///   (``result(arrayCompleteness:)``; `avc1`/`hvc1`) or kept in band as well (`avc3`/`hev1`).
///   When they are moved out and one changes mid-stream (same id, new bytes), the update is kept
///   in band so the stream stays decodable, and counted in
///   ``ConversionStatistics/parameterSetUpdates``.
/// - Access unit delimiters are kept or stripped.
public struct AnnexBToLengthPrefixed {
    public struct Options: Sendable {
        /// Bytes in each length field: 1, 2 or 4.
        public var lengthSize: Int
        /// Keep VPS/SPS/PPS in the stream as well as in the record (`avc3`/`hev1`).
        public var keepParameterSets: Bool
        /// `.keep` or `.strip` (`.insert` is treated as `.keep`).
        public var accessUnitDelimiters: AccessUnitDelimiterPolicy

        public init(lengthSize: Int = 4, keepParameterSets: Bool = false, accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep) {
            self.lengthSize = lengthSize
            self.keepParameterSets = keepParameterSets
            self.accessUnitDelimiters = accessUnitDelimiters
        }
    }

    public let codec: Codec
    public let options: Options
    /// The parameter sets collected, for the decoder configuration record.
    public private(set) var parameterSets: ParameterSetStore
    /// Parameter sets in the order first seen (the record lists them in this order).
    public private(set) var parameterSetOrder: [[UInt8]] = []
    public private(set) var statistics = ConversionStatistics()

    /// - Parameter outOfBandParameterSets: parameter sets the input carries outside the stream
    ///   (when it is itself length-prefixed with a record); they go into the output record.
    public init(codec: Codec, options: Options = Options(), outOfBandParameterSets: [[UInt8]] = []) throws(NALUError) {
        guard [1, 2, 4].contains(options.lengthSize) else {
            throw NALUError(.invalidValue, field: "length size", detail: "\(options.lengthSize); must be 1, 2 or 4")
        }
        self.codec = codec
        self.options = options
        self.parameterSets = ParameterSetStore(codec: codec)
        for unit in outOfBandParameterSets where try parameterSets.add(unit) == .new {
            parameterSetOrder.append(unit)
        }
    }

    /// Converts every NAL unit `reader` yields, writing to `sink`.
    /// - Throws: ``NALUError`` (typed): the stream's or the sink's error; an error of another type
    ///   from `reader`'s source as ``NALUError/converting(_:field:)`` makes it (field `input`).
    public mutating func convert<Source: ByteSource>(_ reader: inout AnnexBReader<Source>, to sink: inout some ByteSink) throws(NALUError) {
        try NALUError.typed(field: "input") { try reader.forEachNALUnit { unit in try convert(unit, to: &sink) } }
        statistics.bytesIn = reader.bytesRead
    }

    /// Converts a whole Annex-B stream in memory, returning the length-prefixed bytes.
    /// - Throws: ``NALUError`` (typed): a malformed NAL unit or parameter set, a NAL unit too
    ///   large for the length size.
    public mutating func convert(_ annexB: [UInt8]) throws(NALUError) -> [UInt8] {
        var sink = MemorySink()
        sink.reserveCapacity(annexB.count + annexB.count / 64)
        try annexB.withBytes { (buffer) throws(NALUError) in try convert(buffer, to: &sink) }
        return sink.bytes
    }

    /// Converts a whole Annex-B stream in memory, writing to `sink`.
    /// - Throws: ``NALUError`` (typed): the stream's or the sink's error.
    public mutating func convert(_ annexB: UnsafeRawBufferPointer, to sink: inout some ByteSink) throws(NALUError) {
        try NALUError.typed(field: "Annex-B stream") {
            try AnnexB.forEachNALUnit(in: annexB) { range in
                let view = NALUnitView(offset: Int64(range.lowerBound), bytes: UnsafeRawBufferPointer(rebasing: annexB[range]),
                                       prefixLength: 3)
                try convert(view, to: &sink)
            }
        }
        statistics.bytesIn += Int64(annexB.count)
    }

    /// Converts one NAL unit.
    /// - Throws: ``NALUError`` (typed): the NAL unit's or the sink's error.
    public mutating func convert(_ unit: NALUnitView, to sink: inout some ByteSink) throws(NALUError) {
        statistics.nalUnitsIn += 1
        let first = unit.firstByte
        guard first & 0x80 == 0 else { throw NALUError(.forbiddenZeroBit, field: "forbidden_zero_bit", byteOffset: unit.offset) }
        let isDelimiter = codec.isAccessUnitDelimiter(firstByte: first)
        if isDelimiter && options.accessUnitDelimiters == .strip {
            statistics.delimitersStripped += 1
            return
        }
        if codec.isParameterSet(firstByte: first, secondByte: unit.secondByte) {
            let bytes = unit.array
            let update: ParameterSetStore.Update
            do {
                update = try parameterSets.add(bytes)
            } catch {
                throw error.offset(by: unit.offset)
            }
            switch update {
            case .new: parameterSetOrder.append(bytes)
            case .changed: statistics.parameterSetUpdates += 1
            case .unchanged, .otherLayer: break
            }
            if !options.keepParameterSets && update != .changed {
                statistics.parameterSetsRemoved += 1
                return
            }
        }
        try writeLengthPrefixed(unit, to: &sink)
    }

    private mutating func writeLengthPrefixed(_ unit: NALUnitView, to sink: inout some ByteSink) throws(NALUError) {
        let count = unit.count
        let lengthSize = options.lengthSize
        guard lengthSize == 4 || count < 1 << (8 * lengthSize) else {
            let name = codec == .h264 ? AVCNALUnitType(rawValue: unit.firstByte).name : HEVCNALUnitType(rawValue: unit.firstByte >> 1).name
            throw NALUError(.doesNotFit, field: "NAL unit length", byteOffset: unit.offset,
                            detail: "\(name) NAL unit of \(count) bytes does not fit a \(lengthSize)-byte length")
        }
        guard count <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "NAL unit length", byteOffset: unit.offset, detail: "\(count) bytes")
        }
        if lengthSize == 4, let run = unit.lentRun(overwritingPrefixWith: UInt32(truncatingIfNeeded: count)) {
            // The four-byte start code before a lent NAL unit becomes its length.
            try sink.write(lent: run)
        } else {
            let prefix = UInt32(count).bigEndian
            try NALUError.typed(field: "NAL unit length") {
                try withUnsafeBytes(of: prefix) { bytes in
                    try sink.write(UnsafeRawBufferPointer(rebasing: bytes[(4 - lengthSize)...]))
                }
            }
            try sink.write(unit.bytes)
        }
        statistics.nalUnitsOut += 1
        statistics.bytesOut += Int64(lengthSize + count)
    }

    /// The parameter sets as a decoder configuration record: avcC for H.264, hvcC for H.265,
    /// from the one record builder
    /// (``DecoderConfigurationRecord/build(codec:parameterSets:lengthSize:arrayCompleteness:)``);
    /// its ``DecoderConfigurationRecord/bytes`` are the record to store.
    /// - Parameter arrayCompleteness: for hvcC, `true` for `hvc1` (parameter sets only out of
    ///   band), `false` for `hev1`. Defaults to `!keepParameterSets`.
    public func decoderConfigurationRecord(arrayCompleteness: Bool? = nil) throws(NALUError) -> DecoderConfigurationRecord {
        try DecoderConfigurationRecord(codec: codec, parameterSets: parameterSetOrder, lengthSize: options.lengthSize,
                                       arrayCompleteness: arrayCompleteness ?? !options.keepParameterSets)
    }
}
