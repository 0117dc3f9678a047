public import NALU

/// The 7-byte ADTS header (ISO/IEC 13818-7 6.2 and ISO/IEC 14496-3 1.A.2.2 `adts_fixed_header`
/// and `adts_variable_header`, `protection_absent` 1) that frames one raw AAC frame in a
/// transport stream (stream type 0x0F), built from the stream's AudioSpecificConfig (ISO/IEC
/// 14496-3 1.6.2.1: an MP4 `esds` DecoderSpecificInfo).
public struct ADTSHeader: Sendable, Hashable {
    /// Bytes of the header (no CRC).
    public static let length = 7
    /// The largest `aac_frame_length` (13 bits), header included.
    public static let maxFrameLength = 8191

    /// `audioObjectType` of the config: 1 (Main), 2 (LC), 3 (SSR) or 4 (LTP); ADTS writes it
    /// less one in its 2-bit `profile_ObjectType`.
    public let audioObjectType: Int
    /// `sampling_frequency_index` (ISO/IEC 14496-3 Table 1.18).
    public let samplingFrequencyIndex: Int
    /// `channel_configuration` (1–7).
    public let channelConfiguration: Int

    /// Sampling frequencies of `sampling_frequency_index` 0–12 (Table 1.18).
    public static let samplingFrequencies = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    /// The sampling frequency in Hz.
    public var samplingFrequency: Int { Self.samplingFrequencies[samplingFrequencyIndex] }

    /// Reads `audioObjectType`, `samplingFrequencyIndex` and `channelConfiguration` from the
    /// start of an AudioSpecificConfig. Throws for what ADTS cannot say: object types past 4
    /// (HE-AAC's explicit SBR/PS signalling, an escape), an explicit sampling frequency (index
    /// 15), or channel configuration 0 (a program config element).
    public init(audioSpecificConfig config: [UInt8]) throws(NALUError) {
        guard config.count >= 2 else {
            throw NALUError(.truncated, field: "AudioSpecificConfig", byteOffset: 0, detail: "\(config.count) bytes, needs 2")
        }
        let objectType = Int(config[0] >> 3)
        let frequencyIndex = Int((config[0] & 0x07) << 1 | config[1] >> 7)
        let channels = Int((config[1] >> 3) & 0x0F)
        guard (1...4).contains(objectType) else {
            throw NALUError(.unsupported, field: "audioObjectType", byteOffset: 0,
                            detail: "\(objectType); ADTS carries object types 1–4 (AAC Main, LC, SSR, LTP)")
        }
        guard frequencyIndex < Self.samplingFrequencies.count else {
            throw NALUError(.unsupported, field: "samplingFrequencyIndex", byteOffset: 0, detail: "\(frequencyIndex); ADTS has indices 0–12")
        }
        guard (1...7).contains(channels) else {
            throw NALUError(.unsupported, field: "channelConfiguration", byteOffset: 1, detail: "\(channels); ADTS without a program config element needs 1–7")
        }
        try self.init(audioObjectType: objectType, samplingFrequencyIndex: frequencyIndex, channelConfiguration: channels)
    }

    public init(audioObjectType: Int, samplingFrequencyIndex: Int, channelConfiguration: Int) throws(NALUError) {
        guard (1...4).contains(audioObjectType) else { throw NALUError(.invalidValue, field: "audioObjectType", detail: "\(audioObjectType)") }
        guard (0..<Self.samplingFrequencies.count).contains(samplingFrequencyIndex) else {
            throw NALUError(.invalidValue, field: "samplingFrequencyIndex", detail: "\(samplingFrequencyIndex)")
        }
        guard (1...7).contains(channelConfiguration) else {
            throw NALUError(.invalidValue, field: "channelConfiguration", detail: "\(channelConfiguration)")
        }
        self.audioObjectType = audioObjectType
        self.samplingFrequencyIndex = samplingFrequencyIndex
        self.channelConfiguration = channelConfiguration
    }

    /// Appends the header of a frame of `rawFrameLength` bytes: `syncword` 0xFFF, `ID` 0
    /// (MPEG-4), `layer` 0, `protection_absent` 1, `profile_ObjectType`,
    /// `sampling_frequency_index`, `private_bit` 0, `channel_configuration`, `original_copy`
    /// and `home` 0, the copyright bits 0, `aac_frame_length` (header included),
    /// `adts_buffer_fullness` 0x7FF (variable rate), `number_of_raw_data_blocks_in_frame` 0.
    public func append(rawFrameLength: Int, to header: inout [UInt8]) throws(NALUError) {
        let length = rawFrameLength + Self.length
        guard rawFrameLength >= 0, length <= Self.maxFrameLength else {
            throw NALUError(.doesNotFit, field: "aac_frame_length", detail: "\(length) bytes; ADTS holds at most \(Self.maxFrameLength)")
        }
        let profile = UInt8(audioObjectType - 1)
        let channels = UInt8(channelConfiguration)
        header.append(0xFF)
        header.append(0xF1)
        header.append(profile << 6 | UInt8(samplingFrequencyIndex) << 2 | channels >> 2)
        header.append((channels & 0x03) << 6 | UInt8(length >> 11))
        header.append(UInt8((length >> 3) & 0xFF))
        header.append(UInt8(length & 0x07) << 5 | 0x1F)
        header.append(0xFC)
    }
}
