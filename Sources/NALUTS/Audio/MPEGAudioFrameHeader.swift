public import NALU

/// The 32-bit header of one MPEG-1/MPEG-2 audio frame (ISO/IEC 11172-3 2.4.1.3 and 2.4.2.3;
/// ISO/IEC 13818-3 2.4.2.3 for the lower sampling frequencies, `ID` 0): what splits a Layer
/// I/II/III elementary stream (transport stream_type 0x03/0x04) into frames (``frameLength``).
///
/// Read from untrusted bytes: a reserved layer, a free-format (`bitrate_index` 0) or forbidden
/// (15) bit rate, a reserved sampling frequency, or MPEG-2.5's syncword is a
/// ``NALU/NALUError`` naming the field and its byte offset.
public struct MPEGAudioFrameHeader: Sendable, Hashable {
    /// Bytes of the header (the CRC that follows when `protection_bit` is 0 is part of the frame).
    public static let length = 4
    /// The longest frame: Layer II/III at 384 kb/s and 32 kHz with padding is 1729 bytes;
    /// Layer I at 448 kb/s and 32 kHz is 672 (11172-3 2.4.3.1).
    public static let maxFrameLength = 1729

    /// `ID` (2.4.2.3): `true` for MPEG-1 (11172-3), `false` for the lower sampling
    /// frequencies of 13818-3.
    public let isMPEG1: Bool
    /// The layer, 1–3 (`layer` '11' = I, '10' = II, '01' = III).
    public let layer: Int
    /// `bitrate_index` (1–14).
    public let bitrateIndex: Int
    /// `sampling_frequency` (0–2).
    public let samplingFrequencyIndex: Int
    /// `padding_bit`: one slot more.
    public let padding: Bool
    /// `mode` (0 stereo, 1 joint stereo, 2 dual channel, 3 single channel).
    public let mode: Int

    /// Bit rates (kb/s) by `bitrate_index` 1–14: MPEG-1 Layer I, II, III (11172-3 Table
    /// 2.4.2.3), then the lower sampling frequencies' Layer I and Layer II/III (13818-3 Table 2.4.2.3).
    static let bitRates: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ]

    /// Parses the header at the start of `bytes`; `offset` is where they are in the input, for errors.
    public init(_ bytes: UnsafeRawBufferPointer, offset: Int64 = 0) throws(NALUError) {
        guard bytes.count >= Self.length else {
            throw NALUError(.truncated, field: "MPEG audio header", byteOffset: offset, detail: "\(bytes.count) bytes, needs 4")
        }
        guard bytes[0] == 0xFF, bytes[1] & 0xF0 == 0xF0 else {
            throw NALUError(.unrecognisedFormat, field: "syncword", byteOffset: offset,
                            detail: "0x\(String(UInt16(bytes[0]) << 4 | UInt16(bytes[1] >> 4), radix: 16)), not 0xfff")
        }
        isMPEG1 = bytes[1] & 0x08 != 0
        let layerBits = Int(bytes[1] >> 1 & 0x03)
        guard layerBits != 0 else { throw NALUError(.invalidValue, field: "layer", byteOffset: offset &+ 1, detail: "'00' (reserved)") }
        layer = 4 - layerBits
        bitrateIndex = Int(bytes[2] >> 4)
        guard bitrateIndex != 0 else {
            throw NALUError(.unsupported, field: "bitrate_index", byteOffset: offset &+ 2, detail: "0 (free format: no frame length in the header)")
        }
        guard bitrateIndex != 15 else { throw NALUError(.invalidValue, field: "bitrate_index", byteOffset: offset &+ 2, detail: "15 (forbidden)") }
        samplingFrequencyIndex = Int(bytes[2] >> 2 & 0x03)
        guard samplingFrequencyIndex != 3 else {
            throw NALUError(.invalidValue, field: "sampling_frequency", byteOffset: offset &+ 2, detail: "'11' (reserved)")
        }
        padding = bytes[2] & 0x02 != 0
        mode = Int(bytes[3] >> 6)
    }

    /// The bit rate in kb/s.
    public var bitRate: Int {
        let table = isMPEG1 ? layer - 1 : (layer == 1 ? 3 : 4)
        return Self.bitRates[table][bitrateIndex - 1]
    }

    /// The sampling frequency in Hz.
    public var sampleRate: Int { (isMPEG1 ? [44_100, 48_000, 32_000] : [22_050, 24_000, 16_000])[samplingFrequencyIndex] }

    /// Channels: 1 in single-channel mode, else 2.
    public var channelCount: Int { mode == 3 ? 1 : 2 }

    /// Audio samples per channel in one frame: 384 (Layer I), 1152 (Layer II; Layer III of
    /// MPEG-1), 576 (Layer III at the lower frequencies, 13818-3 2.4.3.1).
    public var samplesPerFrame: Int { layer == 1 ? 384 : (layer == 3 && !isMPEG1 ? 576 : 1152) }

    /// Bytes of the whole frame, header included (11172-3 2.4.3.1: slots of 4 bytes in Layer I,
    /// of 1 byte in Layers II and III).
    public var frameLength: Int {
        let bits = bitRate * 1000
        if layer == 1 { return (12 * bits / sampleRate + (padding ? 1 : 0)) * 4 }
        return samplesPerFrame / 8 * bits / sampleRate + (padding ? 1 : 0)
    }

    /// The MP4 `esds` objectTypeIndication (ISO/IEC 14496-1 Table 5, as ffmpeg writes it):
    /// 0x6B (ISO/IEC 11172-3) at MPEG-1's frequencies, 0x69 (ISO/IEC 13818-3) at the lower ones.
    public var objectTypeIndication: UInt8 { isMPEG1 ? 0x6B : 0x69 }
}
