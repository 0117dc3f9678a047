/// One supplemental enhancement information message, `sei_message()` (ITU-T H.264 7.3.2.3.1;
/// ITU-T H.265 7.3.5), with its payload still undecoded.
///
/// ```swift
/// for message in try SEIMessage.messages(inNALUnit: nal, codec: .h264) where message.payloadType == 6 {
///     let recovery = try AVCRecoveryPoint(message)
/// }
/// ```
public struct SEIMessage: Hashable, Sendable {
    /// `payloadType` (the sum of the `ff_byte`s and `last_payload_type_byte`), e.g. 5 for
    /// `user_data_unregistered`, 6 for `recovery_point`.
    public let payloadType: Int
    /// `payloadSize` in bytes of the RBSP.
    public let payloadSize: Int
    /// The `sei_payload()` bytes, emulation prevention removed (`payloadSize` bytes).
    public let payload: ArraySlice<UInt8>
    /// Offset of the payload's first byte in the escaped NAL unit the message came from.
    public let payloadOffset: Int

    public init(payloadType: Int, payload: ArraySlice<UInt8>, payloadOffset: Int = 0) {
        self.payloadType = payloadType
        self.payloadSize = payload.count
        self.payload = payload
        self.payloadOffset = payloadOffset
    }

    /// The most messages ``messages(inNALUnit:codec:limit:)`` returns by default. The
    /// specification sets no bound; this keeps a hostile NAL unit of empty messages from
    /// producing millions of values.
    public static let defaultMessageLimit = 1024

    /// Splits an SEI NAL unit (escaped, header included) into its messages.
    ///
    /// The NAL unit must be of type 6 (H.264) or 39/40 (H.265 prefix/suffix SEI). Each message
    /// reads `payloadType` and `payloadSize` as runs of `0xFF` bytes plus a last byte, and
    /// `payloadSize` is checked against the bytes left before slicing. Parsing stops at the
    /// `rbsp_trailing_bits()` (a `0x80` byte followed only by zero bytes, as `more_rbsp_data()`
    /// defines it), or at the end of the data when the trailing bits are missing.
    ///
    /// - Parameter limit: the most messages accepted; more throw ``NALUError/Code/tooLarge``.
    public static func messages(inNALUnit nalUnit: ArraySlice<UInt8>, codec: Codec,
                                limit: Int = defaultMessageLimit) throws(NALUError) -> [SEIMessage] {
        let headerLength: Int
        switch codec {
        case .h264:
            let header = try AVCNALUnitHeader(nalUnit)
            guard header.nalUnitType == .sei else {
                throw NALUError.invalid("nal_unit_type", "\(header.nalUnitType.rawValue), expected 6 (SEI)", byteOffset: 0)
            }
            headerLength = 1
        case .hevc:
            let header = try HEVCNALUnitHeader(nalUnit)
            guard header.nalUnitType == .prefixSEI || header.nalUnitType == .suffixSEI else {
                throw NALUError.invalid("nal_unit_type", "\(header.nalUnitType.rawValue), expected 39 or 40 (SEI)", byteOffset: 0)
            }
            headerLength = 2
        }
        let rbsp = RBSP(escaped: nalUnit)
        let bytes = rbsp.bytes
        // Index of the byte holding rbsp_stop_one_bit: the last non-zero byte.
        var stopIndex = bytes.endIndex
        while stopIndex > bytes.startIndex && bytes[stopIndex - 1] == 0 { stopIndex -= 1 }
        stopIndex -= 1

        func error(_ code: NALUError.Code, _ field: String, at index: Int, _ detail: String? = nil) -> NALUError {
            NALUError(code, field: field,
                      byteOffset: Int64(rbsp.escapedOffset(of: index - bytes.startIndex)),
                      detail: detail)
        }

        var messages = [SEIMessage]()
        var index = bytes.startIndex + min(headerLength, bytes.count)
        while index < bytes.endIndex {
            // more_rbsp_data() is false when only the stop byte 0x80 and zero bytes remain.
            if index == stopIndex && bytes[index] == 0x80 { break }
            if index > stopIndex { break }  // only zero bytes left: trailing bits missing
            guard messages.count < limit else {
                throw error(.tooLarge, "sei_message", at: index, "more than \(limit) messages")
            }
            var payloadType = 0
            while true {
                guard index < bytes.endIndex else { throw error(.truncated, "last_payload_type_byte", at: index) }
                let byte = bytes[index]
                index += 1
                payloadType += Int(byte)
                if byte != 0xFF { break }
            }
            var payloadSize = 0
            while true {
                guard index < bytes.endIndex else { throw error(.truncated, "last_payload_size_byte", at: index) }
                let byte = bytes[index]
                index += 1
                payloadSize += Int(byte)
                if byte != 0xFF { break }
            }
            guard payloadSize <= bytes.endIndex - index else {
                throw error(.lengthPastEnd, "payloadSize", at: index,
                            "\(payloadSize) bytes, \(bytes.endIndex - index) left")
            }
            let payload = bytes[index..<(index + payloadSize)]
            messages.append(SEIMessage(payloadType: payloadType, payload: payload,
                                       payloadOffset: rbsp.escapedOffset(of: index - bytes.startIndex)))
            index += payloadSize
        }
        return messages
    }

    /// Splits an SEI NAL unit (escaped, header included) into its messages.
    public static func messages(inNALUnit nalUnit: [UInt8], codec: Codec,
                                limit: Int = defaultMessageLimit) throws(NALUError) -> [SEIMessage] {
        try messages(inNALUnit: nalUnit[...], codec: codec, limit: limit)
    }

    /// A bit reader over ``payload`` (already unescaped).
    func payloadReader() -> BitReader {
        BitReader(RBSP(unescaped: payload))
    }
}

extension RBSP {
    /// An RBSP over bytes that are already unescaped (for example an SEI payload).
    init(unescaped bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.removedBefore = []
    }
}
