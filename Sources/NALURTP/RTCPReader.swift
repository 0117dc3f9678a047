import NALU

/// Big-endian reads inside one RTCP packet, every read checked against the packet's end; errors
/// name the field and the byte offset in the compound packet.
struct RTCPReader {
    let bytes: [UInt8]
    /// The next byte to read (an offset in ``bytes``).
    var offset: Int
    /// One past the last byte of the packet being read.
    let end: Int

    var remaining: Int { end - offset }

    mutating func u8(_ field: String) throws(NALUError) -> UInt8 {
        guard offset < end else { throw Self.truncated(field, offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16(_ field: String) throws(NALUError) -> UInt16 {
        guard end - offset >= 2 else { throw Self.truncated(field, offset) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32(_ field: String) throws(NALUError) -> UInt32 {
        guard end - offset >= 4 else { throw Self.truncated(field, offset) }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    mutating func take(_ count: Int, _ field: String) throws(NALUError) -> [UInt8] {
        guard count >= 0, end - offset >= count else { throw Self.truncated(field, offset) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    static func truncated(_ field: String, _ offset: Int) -> NALUError {
        NALUError(.truncated, field: field, byteOffset: Int64(offset), detail: "past the end of its RTCP packet")
    }
}

/// Big-endian writes of RTCP fields.
extension Array where Element == UInt8 {
    mutating func appendRTCP(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendRTCP(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
