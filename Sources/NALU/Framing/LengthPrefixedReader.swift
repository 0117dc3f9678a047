/// Reads the NAL units of a length-prefixed stream ("AVCC"/"HVCC", ISO/IEC 14496-15 5.3.2 and
/// 8.3.2): each NAL unit preceded by its size as a big-endian integer of 1, 2 or 4 bytes.
///
/// Reading is streaming and bounded: the buffer grows only as bytes actually arrive, so a hostile
/// length field cannot make the reader allocate the size it claims. A length that runs past the
/// end of the input is a ``NALUError`` (``NALUError/Code/lengthPastEnd``) at the offset of the
/// length field. Zero-length NAL units, which some MP4 writers emit, are skipped and counted.
public struct LengthPrefixedReader<Source: ByteSource> {
    private var source: Source
    private let buffer: ReadBuffer
    private let maxNALUnitSize: Int
    /// Bytes in each length field: 1, 2 or 4.
    public let lengthSize: Int
    /// Zero-length NAL units skipped.
    public private(set) var zeroLengthNALUnits = 0

    /// - Parameters:
    ///   - lengthSize: 1, 2 or 4 (`lengthSizeMinusOne` + 1); 3 is reserved and rejected.
    public init(_ source: Source, lengthSize: Int, chunkSize: Int = 1 << 20, maxNALUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws(NALUError) {
        try LengthPrefixed.validate(lengthSize: lengthSize)
        self.source = source
        self.lengthSize = lengthSize
        self.buffer = ReadBuffer(capacity: max(64, chunkSize))
        self.maxNALUnitSize = max(64, maxNALUnitSize)
    }

    /// Calls `body` for every NAL unit in stream order.
    public mutating func forEachNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(beforeReuse: nil, body)
    }

    /// Calls `body` for every NAL unit in stream order; with a `beforeReuse` hook the views are
    /// lendable (``NALUnitView/isLendable``): the hook runs before the buffer holding them is
    /// refilled, moved or freed, also when this throws.
    package mutating func forEachNALUnit(beforeReuse: (() throws -> Void)?, _ body: (NALUnitView) throws -> Void) throws {
        guard let beforeReuse else { return try walk(lendable: false, beforeReuse: {}, body) }
        do {
            try walk(lendable: true, beforeReuse: beforeReuse, body)
        } catch {
            try? beforeReuse()
            throw error
        }
        try beforeReuse()
    }

    private mutating func walk(lendable: Bool, beforeReuse: () throws -> Void, _ body: (NALUnitView) throws -> Void) throws {
        var position = 0
        var endOfInput = false
        while true {
            // Every complete length + NAL unit in the buffer; the walk stops at a partial one or
            // at a length above the limit, which is an error even before its bytes are in.
            let bytes = buffer.bytes
            let readBuffer = buffer
            try LengthPrefixed.forEachCompleteNALUnit(in: bytes, position: &position, lengthSize: lengthSize,
                                                      baseOffset: buffer.baseOffset, maxNALUnitSize: maxNALUnitSize,
                                                      zeroLengthNALUnits: &zeroLengthNALUnits, lendable: lendable) { unit in
                readBuffer.touchUnitsAhead(after: unit.offset)
                try body(unit)
            }
            if bytes.count - position >= lengthSize {
                let length = LengthPrefixed.length(in: bytes, at: position, lengthSize: lengthSize)
                if length > maxNALUnitSize {
                    throw NALUError(.tooLarge, field: "NAL unit length", byteOffset: buffer.baseOffset + Int64(position),
                                    detail: "\(length) bytes, limit \(maxNALUnitSize)")
                }
            }
            if endOfInput {
                guard position == bytes.count else {
                    throw LengthPrefixed.pastEnd(bytes, at: position, baseOffset: buffer.baseOffset, lengthSize: lengthSize)
                }
                return
            }
            try beforeReuse()
            buffer.discard(position)
            position = 0
            guard buffer.grow(limit: maxNALUnitSize + lengthSize) else {
                throw NALUError(.tooLarge, field: "NAL unit", byteOffset: buffer.baseOffset, detail: "larger than \(maxNALUnitSize) bytes")
            }
            endOfInput = try buffer.fill(from: &source) == 0
        }
    }
}
