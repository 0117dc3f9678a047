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
    public init(_ source: Source, lengthSize: Int, chunkSize: Int = 1 << 20, maxNALUnitSize: Int = 1 << 30) throws(NALUError) {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw NALUError(.invalidValue, field: "length size", detail: "\(lengthSize); must be 1, 2 or 4")
        }
        self.source = source
        self.lengthSize = lengthSize
        self.buffer = ReadBuffer(capacity: max(64, chunkSize))
        self.maxNALUnitSize = max(64, maxNALUnitSize)
    }

    /// Calls `body` for every NAL unit in stream order.
    public mutating func forEachNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        var position = 0
        var endOfInput = false
        while true {
            // Parse every complete length + NAL unit in the buffer.
            let bytes = buffer.bytes
            while bytes.count - position >= lengthSize {
                var length = 0
                for index in position..<(position + lengthSize) { length = length << 8 | Int(bytes[index]) }
                if length == 0 {
                    zeroLengthNALUnits += 1
                    position += lengthSize
                    continue
                }
                guard length <= maxNALUnitSize else {
                    throw NALUError(.tooLarge, field: "NAL unit length", byteOffset: buffer.baseOffset + Int64(position),
                                    detail: "\(length) bytes, limit \(maxNALUnitSize)")
                }
                let start = position + lengthSize
                guard bytes.count - start >= length else { break }
                try body(NALUnitView(offset: buffer.baseOffset + Int64(start),
                                     bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]),
                                     prefixLength: lengthSize))
                position = start + length
            }
            if endOfInput {
                let left = bytes.count - position
                guard left == 0 else {
                    throw Self.pastEnd(bytes, at: position, baseOffset: buffer.baseOffset, lengthSize: lengthSize)
                }
                return
            }
            buffer.discard(position)
            position = 0
            guard buffer.grow(limit: maxNALUnitSize + lengthSize) else {
                throw NALUError(.tooLarge, field: "NAL unit", byteOffset: buffer.baseOffset, detail: "larger than \(maxNALUnitSize) bytes")
            }
            endOfInput = try buffer.fill(from: &source) == 0
        }
    }

    private static func pastEnd(_ bytes: UnsafeRawBufferPointer, at position: Int, baseOffset: Int64, lengthSize: Int) -> NALUError {
        let left = bytes.count - position
        let offset = baseOffset + Int64(position)
        guard left >= lengthSize else {
            return NALUError(.truncated, field: "NAL unit length", byteOffset: offset,
                             detail: "\(left) of \(lengthSize) bytes before the end")
        }
        var length = 0
        for index in position..<(position + lengthSize) { length = length << 8 | Int(bytes[index]) }
        return NALUError(.lengthPastEnd, field: "NAL unit length", byteOffset: offset,
                         detail: "length \(length), \(left - lengthSize) bytes left")
    }
}

/// Length-prefixed NAL units in memory.
public enum LengthPrefixed {
    /// Calls `body` with the range of every NAL unit in `buffer`, a complete length-prefixed
    /// stream with `lengthSize`-byte lengths. Zero-length units are skipped; a length past the
    /// end throws ``NALUError/Code/lengthPastEnd`` at the length field's offset.
    public static func forEachNALUnit(in buffer: UnsafeRawBufferPointer, lengthSize: Int,
                                      _ body: (Range<Int>) throws -> Void) throws {
        guard [1, 2, 4].contains(lengthSize) else {
            throw NALUError(.invalidValue, field: "length size", detail: "\(lengthSize); must be 1, 2 or 4")
        }
        var position = 0
        while position < buffer.count {
            guard buffer.count - position >= lengthSize else {
                throw NALUError(.truncated, field: "NAL unit length", byteOffset: Int64(position),
                                detail: "\(buffer.count - position) of \(lengthSize) bytes before the end")
            }
            var length = 0
            for index in position..<(position + lengthSize) { length = length << 8 | Int(buffer[index]) }
            let start = position + lengthSize
            guard length <= buffer.count - start else {
                throw NALUError(.lengthPastEnd, field: "NAL unit length", byteOffset: Int64(position),
                                detail: "length \(length), \(buffer.count - start) bytes left")
            }
            if length > 0 { try body(start..<(start + length)) }
            position = start + length
        }
    }
}
