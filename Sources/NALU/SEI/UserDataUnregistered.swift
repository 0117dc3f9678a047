/// A user data unregistered SEI message, `user_data_unregistered()` (`payloadType` 5; ITU-T H.264
/// D.1.7, ITU-T H.265 D.2.7): a 16-byte UUID and free bytes. x264 and x265 put their version
/// and settings here as text ("x264 - core 164 … - options: cabac=1 …").
public struct UserDataUnregistered: Hashable, Sendable {
    /// `payloadType` of the message.
    public static let payloadType = 5

    /// `uuid_iso_iec_11578` (16 bytes).
    public let uuid: [UInt8]
    /// `user_data_payload_byte`s, at most `limit` of them (the rest are counted, not kept).
    public let payload: [UInt8]
    /// How many payload bytes the message had in all.
    public let payloadByteCount: Int

    /// Decodes a message of `payloadType` 5, keeping at most `limit` payload bytes.
    /// - Throws: ``NALUError`` when the payload has another type or fewer than 16 bytes.
    public init(_ message: SEIMessage, limit: Int = 4096) throws(NALUError) {
        guard message.payloadType == Self.payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 5 (user data unregistered)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        let bytes = message.payload
        guard bytes.count >= 16 else {
            throw NALUError(.truncated, field: "uuid_iso_iec_11578", byteOffset: Int64(message.payloadOffset),
                            detail: "\(bytes.count) payload bytes, 16 needed")
        }
        let uuidEnd = bytes.startIndex + 16
        uuid = Array(bytes[bytes.startIndex..<uuidEnd])
        payloadByteCount = bytes.count - 16
        payload = Array(bytes[uuidEnd..<(uuidEnd + min(max(0, limit), payloadByteCount))])
    }

    /// The UUID as "dc45e9bd-e6d9-48b7-962c-d820d923eeef".
    public var uuidString: String {
        let hex = uuid.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    /// The payload as text when it is printable ASCII up to an optional terminating NUL
    /// (encoder settings strings), cut to `maxLength` characters with "…"; `nil` otherwise.
    public func text(maxLength: Int = 4096) -> String? {
        var scalars = String.UnicodeScalarView()
        for byte in payload {
            if byte == 0 { break }
            guard (0x20...0x7E).contains(byte) || byte == 0x0A || byte == 0x09 else { return nil }
            scalars.append(Unicode.Scalar(byte))
        }
        guard !scalars.isEmpty else { return nil }
        let text = String(scalars)
        let truncated = text.count > maxLength || payloadByteCount > payload.count
        return truncated ? String(text.prefix(max(0, maxLength))) + "…" : text
    }
}
