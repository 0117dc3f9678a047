import NALU

/// One audio elementary stream of a transport stream nalu reads or writes: its coding (AAC in
/// ADTS, AC-3, MPEG-1/2 audio), its `stream_type`, and its language (ISO 639-2), with what the
/// program map and the PES packets say of it as ffmpeg's `mpegts` muxer writes them.
public struct TransportStreamAudioStream: Sendable, Hashable {
    /// How the stream is coded.
    public enum Format: Sendable, Hashable {
        /// AAC, each raw frame written behind this ADTS header (ISO/IEC 13818-7).
        case aac(ADTSHeader)
        /// AC-3 sync frames (ATSC A/52), written as they are.
        case ac3
        /// MPEG-1/2 audio frames (ISO/IEC 11172-3, 13818-3), written as they are.
        case mpegAudio
    }

    /// The coding (``Format``).
    public var format: Format
    /// `stream_type` (ISO/IEC 13818-1 Table 2-34): 0x0F for AAC, 0x81 (ATSC) or 0x06 with an
    /// AC-3_descriptor (DVB) for AC-3, 0x03 or 0x04 for MPEG audio.
    public var streamType: TransportStreamType
    /// ISO 639-2 language code (three lower-case letters), written in an
    /// `ISO_639_language_descriptor` (2.6.18); `nil` or "und" writes none.
    public var language: String?

    public init(format: Format, streamType: TransportStreamType, language: String? = nil) {
        self.format = format
        self.streamType = streamType
        self.language = language
    }

    /// Audio samples per channel in one frame: 1024 (AAC, ISO/IEC 14496-3 4.5.1), 1536 (AC-3,
    /// A/52 5.1), 1152 (MPEG audio Layer II and MPEG-1 Layer III).
    public var samplesPerFrame: Int {
        switch format {
        case .aac: 1024
        case .ac3: 1536
        case .mpegAudio: 1152
        }
    }

    /// An AAC stream (stream_type 0x0F).
    public static func aac(_ header: ADTSHeader, language: String? = nil) -> Self { Self(format: .aac(header), streamType: .adtsAAC, language: language) }

    /// `stream_id` of its PES packets (2.4.3.7, Table 2-22): `private_stream_1` (0xBD) for AC-3,
    /// as ffmpeg and ATSC A/52 Annex A write it, else the first audio stream number (0xC0).
    public var streamID: UInt8 {
        if case .ac3 = format { return 0xBD }
        return 0xC0
    }

    /// The ES_info descriptors of the program map entry: a registration_descriptor (2.6.8)
    /// with format_identifier "AC-3" for ATSC AC-3, an AC-3_descriptor (ETSI EN 300 468 D.3, tag
    /// 0x6A, no optional fields) for DVB AC-3, and an ISO_639_language_descriptor (2.6.18,
    /// audio_type 0) for a language.
    public var descriptors: [UInt8] {
        var bytes: [UInt8] = []
        if case .ac3 = format {
            if streamType == .privatePES { bytes += [0x6A, 1, 0] } else { bytes += [0x05, 4] + Array("AC-3".utf8) }
        }
        if let code = Self.languageCode(language) { bytes += [0x0A, 4] + code + [0] }
        return bytes
    }

    /// The three bytes of an ISO 639-2 code, or `nil` for none, "und" or anything but three ASCII letters.
    static func languageCode(_ language: String?) -> [UInt8]? {
        guard let language, language != "und" else { return nil }
        let bytes = Array(language.utf8)
        guard bytes.count == 3, bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) }) else { return nil }
        return bytes
    }
}
