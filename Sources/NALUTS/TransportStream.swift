/// Constants of the MPEG-2 transport stream (ISO/IEC 13818-1, Rec. ITU-T H.222.0) shared by
/// the demultiplexer and the multiplexer.
public enum TransportStream {
    /// `sync_byte` (2.4.3.3): the first byte of every transport packet.
    public static let syncByte: UInt8 = 0x47
    /// Bytes in a transport packet (2.4.3.2).
    public static let packetSize = 188
    /// Bytes in an M2TS (Blu-ray/AVCHD) packet: a 4-byte `TP_extra_header` (copy permission and
    /// a 30-bit arrival time stamp) before each 188-byte transport packet.
    public static let timestampedPacketSize = 192
    /// Ticks per second of PTS and DTS (2.4.3.7): 90 kHz.
    public static let presentationClockRate: Int64 = 90_000
    /// Ticks per second of the program clock reference (2.4.3.5): 27 MHz (`PCR_base` × 300 + `PCR_ext`).
    public static let systemClockRate: Int64 = 27_000_000
    /// PTS and DTS are 33-bit counters that wrap.
    public static let timestampModulus: Int64 = 1 << 33
    /// PID of the program association table (Table 2-3).
    public static let programAssociationPID: UInt16 = 0x0000
    /// PID of null packets (Table 2-3).
    public static let nullPacketPID: UInt16 = 0x1FFF
}

/// `stream_type` values of a program map table entry (ISO/IEC 13818-1 Table 2-34) that nalu
/// reads or writes.
public enum TransportStreamType: UInt8, Sendable, Hashable, CaseIterable {
    /// ISO/IEC 11172-3 (MPEG-1) audio.
    case mpeg1Audio = 0x03
    /// ISO/IEC 13818-3 (MPEG-2) audio.
    case mpeg2Audio = 0x04
    /// PES packets with private data: AC-3 in DVB (ETSI EN 300 468 AC-3_descriptor, tag 0x6A).
    case privatePES = 0x06
    /// ATSC A/52 AC-3 audio (ATSC A/52 Annex A, ISO/IEC 13818-1's user-private range).
    case ac3 = 0x81
    /// ISO/IEC 13818-7 (AAC) audio with ADTS transport syntax.
    case adtsAAC = 0x0F
    /// Rec. ITU-T H.264 | ISO/IEC 14496-10 video.
    case h264 = 0x1B
    /// Rec. ITU-T H.265 | ISO/IEC 23008-2 video.
    case hevc = 0x24
}
