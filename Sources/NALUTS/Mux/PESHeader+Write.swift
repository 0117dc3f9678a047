/// The header of a PES packet (ISO/IEC 13818-1 2.4.3.6, 2.4.3.7) as the multiplexer writes it:
/// `packet_start_code_prefix`, `stream_id`, `PES_packet_length`, the `'10'` flags byte with
/// `data_alignment_indicator` set (every PES starts an access unit or an ADTS frame), and a PTS,
/// or a PTS and a DTS when they differ.
extension PESHeader {
    /// `stream_id` of the first video stream (Table 2-22: `1110 xxxx`).
    public static let videoStreamID: UInt8 = 0xE0
    /// `stream_id` of the first audio stream (Table 2-22: `110x xxxx`).
    public static let audioStreamID: UInt8 = 0xC0
    /// Bytes of the longest header written (PTS and DTS).
    public static let maxWrittenLength = 19

    /// Appends the header of a PES packet carrying `payloadLength` bytes.
    ///
    /// - `PES_packet_length` counts the bytes after it; when that exceeds 65535 it is 0, which
    ///   2.4.3.7 allows for video elementary streams in transport streams only.
    /// - Timestamps are taken modulo 2^33.
    /// - Parameter dts: written when it differs from `pts` (`PTS_DTS_flags` `'11'`), else only
    ///   the PTS (`'10'`).
    public static func append(to header: inout [UInt8], streamID: UInt8, pts: Int64, dts: Int64?, payloadLength: Int) {
        let withDTS = dts != nil && dts != pts
        let headerDataLength = withDTS ? 10 : 5
        let length = 3 + headerDataLength + payloadLength
        let packetLength = length <= 0xFFFF ? length : 0
        header.append(0x00)
        header.append(0x00)
        header.append(0x01)
        header.append(streamID)
        header.append(UInt8(packetLength >> 8))
        header.append(UInt8(packetLength & 0xFF))
        // '10' PES_scrambling_control 00, PES_priority 0, data_alignment_indicator 1, copyright 0, original_or_copy 0.
        header.append(0x84)
        // PTS_DTS_flags, and no ESCR, ES_rate, DSM trick mode, additional copy info, CRC, extension.
        header.append(withDTS ? 0xC0 : 0x80)
        header.append(UInt8(headerDataLength))
        if withDTS, let dts {
            appendTimestamp(pts, marker: 0x3, to: &header)
            appendTimestamp(dts, marker: 0x1, to: &header)
        } else {
            appendTimestamp(pts, marker: 0x2, to: &header)
        }
    }

    /// A 33-bit timestamp in five bytes: the 4-bit prefix (`'0010'` PTS only, `'0011'` PTS
    /// with DTS, `'0001'` DTS), then bits 32..30, 29..15 and 14..0, each group followed by a
    /// `marker_bit`.
    static func appendTimestamp(_ value: Int64, marker: UInt8, to header: inout [UInt8]) {
        let ts = UInt64(bitPattern: value) & UInt64(TransportStream.timestampModulus - 1)
        header.append(marker << 4 | UInt8((ts >> 30) & 0x07) << 1 | 1)
        header.append(UInt8((ts >> 22) & 0xFF))
        header.append(UInt8((ts >> 15) & 0x7F) << 1 | 1)
        header.append(UInt8((ts >> 7) & 0xFF))
        header.append(UInt8(ts & 0x7F) << 1 | 1)
    }
}
