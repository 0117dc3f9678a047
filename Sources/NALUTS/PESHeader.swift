/// The header of a PES packet (ISO/IEC 13818-1 2.4.3.6 `PES_packet()`, 2.4.3.7 semantics): the
/// stream, the declared length and the presentation and decoding time stamps.
public struct PESHeader: Sendable, Hashable {
    /// `stream_id`: 0xE0…0xEF for video.
    public var streamID: UInt8
    /// `PES_packet_length`: bytes after this field; 0 (unbounded) is allowed for video.
    public var packetLength: Int
    /// Bytes of the whole header, up to the first payload byte.
    public var headerLength: Int
    /// `PTS` (33 bits, 90 kHz), if present.
    public var presentationTimestamp: Int64?
    /// `DTS` (33 bits, 90 kHz), if present.
    public var decodingTimestamp: Int64?

    /// Bytes needed before ``parse(_:)`` can tell the header length: 6 for the fixed part, 9
    /// when the stream has the optional header.
    static let fixedLength = 6
    /// Longest possible header: 9 fixed bytes and a `PES_header_data_length` of 255.
    public static let maximumLength = 9 + 255

    /// Whether a `stream_id` has the optional PES header (Table 2-22's exceptions: program
    /// stream map, padding, private stream 2, ECM, EMM, DSM-CC, H.222.1 type E, directory).
    static func hasOptionalHeader(_ streamID: UInt8) -> Bool {
        ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF].contains(streamID)
    }

    /// What ``parse(_:)`` found.
    public enum Outcome: Sendable, Hashable {
        /// The header is complete.
        case header(PESHeader)
        /// At least this many bytes are needed.
        case needMore(Int)
        /// The bytes are no PES header; the text names the field.
        case malformed(String)
    }

    /// Reads a header from the first bytes of a PES packet (`bytes` may hold only part of it).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard bytes.count >= fixedLength else { return .needMore(fixedLength) }
        guard bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 else {
            return .malformed("packet_start_code_prefix \(hex(bytes[0]))\(hex(bytes[1]))\(hex(bytes[2])), not 000001")
        }
        let streamID = bytes[3]
        let packetLength = Int(bytes[4]) << 8 | Int(bytes[5])
        guard hasOptionalHeader(streamID) else {
            return .header(PESHeader(streamID: streamID, packetLength: packetLength, headerLength: fixedLength))
        }
        guard bytes.count >= 9 else { return .needMore(9) }
        guard bytes[6] & 0xC0 == 0x80 else { return .malformed("PES header marker bits \(bytes[6] >> 6), not '10'") }
        let flags = bytes[7] >> 6
        let dataLength = Int(bytes[8])
        let headerLength = 9 + dataLength
        if packetLength != 0 && packetLength + 6 < headerLength {
            return .malformed("PES_header_data_length \(dataLength) past PES_packet_length \(packetLength)")
        }
        guard bytes.count >= headerLength else { return .needMore(headerLength) }
        var header = PESHeader(streamID: streamID, packetLength: packetLength, headerLength: headerLength)
        switch flags {
        case 0b10, 0b11:
            let needed = flags == 0b11 ? 10 : 5
            guard dataLength >= needed else {
                return .malformed("PES_header_data_length \(dataLength) shorter than the \(needed) bytes PTS_DTS_flags \(flags) needs")
            }
            header.presentationTimestamp = timestamp(bytes, at: 9)
            if flags == 0b11 { header.decodingTimestamp = timestamp(bytes, at: 14) }
        case 0b01:
            return .malformed("PTS_DTS_flags '01' (forbidden)")
        default:
            break
        }
        return .header(header)
    }

    /// A 33-bit time stamp in 5 bytes: 3, 15 and 15 bits, each followed by a marker bit.
    static func timestamp(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int64 {
        let high = Int64(bytes[index] >> 1) & 0x07
        let middle = Int64(bytes[index + 1]) << 7 | Int64(bytes[index + 2] >> 1)
        let low = Int64(bytes[index + 3]) << 7 | Int64(bytes[index + 4] >> 1)
        return high << 30 | middle << 15 | low
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
