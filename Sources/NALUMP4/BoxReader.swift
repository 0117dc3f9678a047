public import NALU

/// Reads the fields of one box's payload, held in memory, big-endian (ISO/IEC 14496-12 4.2).
///
/// Every read checks the remaining length first; errors are ``NALUError``s naming the field as
/// `box.field` (for example `stsz.sample_count`) with the field's absolute offset in the file.
/// ``entryCount(_:entrySize:)`` checks a table's count against the bytes left *before* anything
/// is allocated or looped over.
public struct MP4BoxPayloadReader: Sendable {
    /// The box whose payload this is.
    public let box: FourCC
    /// The payload.
    public let bytes: [UInt8]
    /// Offset in the file of `bytes[0]`.
    public let baseOffset: Int64
    /// Index of the next byte.
    public private(set) var position = 0

    public init(box: FourCC, bytes: [UInt8], baseOffset: Int64) {
        self.box = box
        self.bytes = bytes
        self.baseOffset = baseOffset
    }

    /// Reads `header`'s payload from `source`, refusing payloads over `limit` bytes.
    /// - Throws: ``NALUError`` (typed): `.tooLarge` past `limit`; the source's error.
    public init(_ header: MP4BoxHeader, in source: some RandomAccessByteSource, limit: Int64 = 1 << 30) throws(NALUError) {
        guard header.payloadSize <= limit else {
            throw NALUError(.tooLarge, field: "\(header.type).size", byteOffset: header.offset,
                            detail: "\(header.payloadSize)-byte payload, limit \(limit)")
        }
        let bytes = try source.readBytes(at: header.payloadOffset, count: Int(header.payloadSize), field: "\(header.type)")
        self.init(box: header.type, bytes: bytes, baseOffset: header.payloadOffset)
    }

    /// Bytes left.
    public var remaining: Int { bytes.count - position }
    /// Offset in the file of the next byte.
    public var fileOffset: Int64 { baseOffset + Int64(position) }

    /// An error about `field` at the current position (or `at` a payload index).
    public func error(_ code: NALUError.Code, _ field: String, at index: Int? = nil, _ detail: String? = nil) -> NALUError {
        NALUError(code, field: "\(box).\(field)", byteOffset: baseOffset + Int64(index ?? position), detail: detail)
    }

    private func require(_ count: Int, _ field: String) throws(NALUError) {
        guard count <= remaining else {
            throw error(.truncated, field, "needs \(count) bytes, \(remaining) left in the box")
        }
    }

    /// Reads a big-endian unsigned integer of `width` bytes (1...8).
    public mutating func uint(_ width: Int, _ field: String) throws(NALUError) -> UInt64 {
        try require(width, field)
        var value: UInt64 = 0
        for index in position..<(position + width) { value = value << 8 | UInt64(bytes[index]) }
        position += width
        return value
    }

    public mutating func u8(_ field: String) throws(NALUError) -> UInt8 { UInt8(truncatingIfNeeded: try uint(1, field)) }
    public mutating func u16(_ field: String) throws(NALUError) -> UInt16 { UInt16(truncatingIfNeeded: try uint(2, field)) }
    public mutating func u32(_ field: String) throws(NALUError) -> UInt32 { UInt32(truncatingIfNeeded: try uint(4, field)) }
    public mutating func u64(_ field: String) throws(NALUError) -> UInt64 { try uint(8, field) }
    public mutating func i32(_ field: String) throws(NALUError) -> Int32 { Int32(bitPattern: try u32(field)) }
    public mutating func fourCC(_ field: String) throws(NALUError) -> FourCC { FourCC(rawValue: try u32(field)) }

    /// Reads the `version` and `flags` of a FullBox (ISO/IEC 14496-12 4.2).
    public mutating func fullBoxHeader() throws(NALUError) -> (version: UInt8, flags: UInt32) {
        let word = try u32("version")
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }

    /// Reads `count` bytes.
    public mutating func bytes(_ count: Int, _ field: String) throws(NALUError) -> [UInt8] {
        guard count >= 0 else { throw error(.invalidValue, field, "negative length \(count)") }
        try require(count, field)
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// Skips `count` bytes.
    public mutating func skip(_ count: Int, _ field: String) throws(NALUError) {
        guard count >= 0 else { throw error(.invalidValue, field, "negative length \(count)") }
        try require(count, field)
        position += count
    }

    /// Reads an `entry_count` and checks that `count * entrySize` bytes follow, so a table can be
    /// allocated or walked without trusting the count.
    public mutating func entryCount(_ field: String, entrySize: Int) throws(NALUError) -> Int {
        let countOffset = position
        let count = try u32(field)
        let (needed, overflow) = Int(count).multipliedReportingOverflow(by: entrySize)
        guard !overflow, needed <= remaining else {
            throw error(.lengthPastEnd, field, at: countOffset,
                        "\(count) entries of \(entrySize) bytes need \(overflow ? "more than Int.max" : String(needed)), \(remaining) left in the box")
        }
        return Int(count)
    }

    /// A big-endian `UInt32` at payload index `index`, unchecked beyond the array's own bounds
    /// (for tables validated with ``entryCount(_:entrySize:)``).
    @inline(__always)
    func u32(at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }
}

/// A table of fixed-size big-endian entries kept as the box's own bytes: a validated view, so a
/// sample table costs no more memory than its box.
struct BigEndianTable: Sendable {
    let bytes: [UInt8]
    /// Index of the first entry in `bytes`.
    let start: Int
    /// Bytes per entry.
    let stride: Int
    let count: Int
    /// Offset in the file of `bytes[0]`, for errors.
    let baseOffset: Int64

    static let empty = BigEndianTable(bytes: [], start: 0, stride: 4, count: 0, baseOffset: 0)

    /// The table whose `count` entries of `stride` bytes start at the reader's position (already
    /// checked by `entryCount`); advances the reader past it.
    init(_ reader: inout MP4BoxPayloadReader, count: Int, stride: Int, field: String) throws(NALUError) {
        let start = reader.position
        try reader.skip(count * stride, field)
        bytes = reader.bytes
        self.start = start
        self.stride = stride
        self.count = count
        baseOffset = reader.baseOffset
    }

    private init(bytes: [UInt8], start: Int, stride: Int, count: Int, baseOffset: Int64) {
        self.bytes = bytes
        self.start = start
        self.stride = stride
        self.count = count
        self.baseOffset = baseOffset
    }

    /// Field `field` (a byte offset inside the entry) of entry `index`, `width` bytes.
    @inline(__always)
    func value(_ index: Int, field: Int = 0, width: Int = 4) -> UInt64 {
        let at = start + index * stride + field
        var value: UInt64 = 0
        for byte in bytes[at..<(at + width)] { value = value << 8 | UInt64(byte) }
        return value
    }

    @inline(__always)
    func u32(_ index: Int, field: Int = 0) -> UInt32 {
        let at = start + index * stride + field
        // One bounds check (the one of `bytes[at..<at + 4]`) and one load, not four of each:
        // the sample table cursor reads two or three fields per sample.
        precondition(at >= 0 && at <= bytes.count - 4, "BigEndianTable index out of range")
        return bytes.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
    }

    /// File offset of entry `index`.
    func offset(of index: Int) -> Int64 { baseOffset + Int64(start + index * stride) }
}
