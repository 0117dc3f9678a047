/// Reads big-endian fields from a byte record such as avcC or hvcC (ISO/IEC 14496-15).
///
/// Every read checks the remaining length first and throws a ``NALUError`` of code
/// ``NALUError/Code/truncated`` naming the field and its byte offset; nothing traps.
struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: ArraySlice<UInt8>
    /// Offset of the next byte, relative to `bytes.startIndex`.
    public private(set) var offset: Int = 0

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// Bytes left to read.
    public var remaining: Int { bytes.count - offset }

    private func require(_ count: Int, _ field: StaticString) throws(NALUError) {
        guard count >= 0, count <= remaining else {
            throw NALUError(.truncated, field: field.description, byteOffset: Int64(offset),
                            detail: "needs \(count) bytes, \(remaining) left")
        }
    }

    /// Reads one byte.
    public mutating func u8(_ field: StaticString) throws(NALUError) -> UInt8 {
        try require(1, field)
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    /// Reads a big-endian unsigned integer of `width` bytes (1...8).
    public mutating func uint(_ width: Int, _ field: StaticString) throws(NALUError) -> UInt64 {
        guard width >= 1 && width <= 8 else {
            throw NALUError(.invalidValue, field: field.description, byteOffset: Int64(offset), detail: "width \(width)")
        }
        try require(width, field)
        var value: UInt64 = 0
        for index in 0..<width {
            value = value << 8 | UInt64(bytes[bytes.startIndex + offset + index])
        }
        offset += width
        return value
    }

    /// Reads a big-endian `UInt16`.
    public mutating func u16(_ field: StaticString) throws(NALUError) -> UInt16 {
        UInt16(truncatingIfNeeded: try uint(2, field))
    }

    /// Reads a big-endian `UInt32`.
    public mutating func u32(_ field: StaticString) throws(NALUError) -> UInt32 {
        UInt32(truncatingIfNeeded: try uint(4, field))
    }

    /// Reads `count` bytes without copying.
    public mutating func bytes(_ count: Int, _ field: StaticString) throws(NALUError) -> ArraySlice<UInt8> {
        try require(count, field)
        let start = bytes.startIndex + offset
        offset += count
        return bytes[start..<(start + count)]
    }

    /// Skips `count` bytes.
    public mutating func skip(_ count: Int, _ field: StaticString) throws(NALUError) {
        try require(count, field)
        offset += count
    }
}

/// Appends big-endian fields to a byte array, for building records and length prefixes.
struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends the low `width` bytes of `value`, big-endian.
    public mutating func uint(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    public mutating func append(contentsOf other: some Sequence<UInt8>) {
        bytes.append(contentsOf: other)
    }
}
