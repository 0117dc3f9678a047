public import NALU

/// The header of one AC-3 sync frame (ATSC A/52 5.4.1 `syncinfo()` and the start of 5.4.2
/// `bsi()`): what splits an AC-3 elementary stream into frames (``frameSize``) and what an MP4
/// `dac3` box says (ETSI TS 102 366 F.4, ``specificBox``).
///
/// Every field is read from untrusted bytes: a reserved `fscod` or `frmsizecod`, or a `bsid`
/// past 8 (E-AC-3 and later versions, which an AC-3 decoder cannot play, A/52 5.4.2.1) is a
/// ``NALU/NALUError`` naming the field and its byte offset.
public struct AC3SyncFrame: Sendable, Hashable {
    /// `syncword` (A/52 5.4.1.1): 0x0B77.
    public static let syncword: UInt16 = 0x0B77
    /// Bytes of `syncinfo()` plus the `bsi()` fields this reads (up to `lfeon`, at most bit 1 of
    /// byte 7): the least a parse needs.
    public static let headerLength = 8
    /// Audio samples per channel in one sync frame (six audio blocks of 256, A/52 5.1).
    public static let samplesPerFrame = 1536
    /// The largest sync frame: 1920 16-bit words (`frmsizecod` 37 at 32 kHz, Table 5.18).
    public static let maxFrameSize = 3840

    /// `fscod` (A/52 5.4.1.3, Table 5.6): 0 = 48 kHz, 1 = 44.1 kHz, 2 = 32 kHz.
    public let fscod: Int
    /// `frmsizecod` (A/52 5.4.1.4, Table 5.18).
    public let frmsizecod: Int
    /// `bsid` (A/52 5.4.2.1): 8 for this version of the standard, lower for subsets.
    public let bsid: Int
    /// `bsmod` (A/52 5.4.2.2, Table 5.7): the service type.
    public let bsmod: Int
    /// `acmod` (A/52 5.4.2.3, Table 5.8): the main channels' arrangement.
    public let acmod: Int
    /// `lfeon` (A/52 5.4.2.7): a low-frequency effects channel.
    public let lfeon: Bool

    /// Sampling frequencies of `fscod` 0–2 (Table 5.6).
    public static let samplingFrequencies = [48_000, 44_100, 32_000]
    /// Nominal bit rates (kb/s) of `frmsizecod >> 1` (Table 5.18).
    public static let bitRates = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]
    /// Words (16 bits) per sync frame, by `fscod` then `frmsizecod` (Table 5.18).
    static let frameWords: [[Int]] = [
        [64, 64, 80, 80, 96, 96, 112, 112, 128, 128, 160, 160, 192, 192, 224, 224, 256, 256, 320, 320,
         384, 384, 448, 448, 512, 512, 640, 640, 768, 768, 896, 896, 1024, 1024, 1152, 1152, 1280, 1280],
        [69, 70, 87, 88, 104, 105, 121, 122, 139, 140, 174, 175, 208, 209, 243, 244, 278, 279, 348, 349,
         417, 418, 487, 488, 557, 558, 696, 697, 835, 836, 975, 976, 1114, 1115, 1253, 1254, 1393, 1394],
        [96, 96, 120, 120, 144, 144, 168, 168, 192, 192, 240, 240, 288, 288, 336, 336, 384, 384, 480, 480,
         576, 576, 672, 672, 768, 768, 960, 960, 1152, 1152, 1344, 1344, 1536, 1536, 1728, 1728, 1920, 1920],
    ]
    /// Full-bandwidth channels of `acmod` 0–7 (Table 5.8).
    static let channelsOfMode = [2, 1, 2, 3, 3, 4, 4, 5]

    /// Parses the header at the start of `bytes`; `offset` is where they are in the input, for errors.
    /// - Throws: ``NALU/NALUError`` `.truncated` (fewer than ``headerLength`` bytes),
    ///   `.unrecognisedFormat` (no `syncword`), `.invalidValue` (a reserved `fscod` or
    ///   `frmsizecod`), `.unsupported` (`bsid` past 8).
    public init(_ bytes: UnsafeRawBufferPointer, offset: Int64 = 0) throws(NALUError) {
        guard bytes.count >= Self.headerLength else {
            throw NALUError(.truncated, field: "AC-3 syncinfo", byteOffset: offset, detail: "\(bytes.count) bytes, needs \(Self.headerLength)")
        }
        let sync = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        guard sync == Self.syncword else {
            throw NALUError(.unrecognisedFormat, field: "syncword", byteOffset: offset, detail: "0x\(String(sync, radix: 16)), not 0x0b77")
        }
        fscod = Int(bytes[4] >> 6)
        frmsizecod = Int(bytes[4] & 0x3F)
        guard fscod < 3 else { throw NALUError(.invalidValue, field: "fscod", byteOffset: offset &+ 4, detail: "3 (reserved)") }
        guard frmsizecod < 38 else {
            throw NALUError(.invalidValue, field: "frmsizecod", byteOffset: offset &+ 4, detail: "\(frmsizecod) (reserved; 0–37)")
        }
        bsid = Int(bytes[5] >> 3)
        bsmod = Int(bytes[5] & 0x07)
        guard bsid <= 8 else {
            throw NALUError(.unsupported, field: "bsid", byteOffset: offset &+ 5,
                            detail: "\(bsid); AC-3 (A/52) is bsid 0–8 (16 is E-AC-3)")
        }
        acmod = Int(bytes[6] >> 5)
        // After acmod: cmixlev (2) when three front channels, surmixlev (2) with surrounds,
        // dsurmod (2) in 2/0 mode (A/52 5.4.2.4–5.4.2.6), then lfeon.
        var bit = 3
        if acmod & 1 != 0 && acmod != 1 { bit += 2 }
        if acmod & 4 != 0 { bit += 2 }
        if acmod == 2 { bit += 2 }
        // bit ≤ 9: lfeon is in byte 6 or 7.
        let byte = 6 + bit / 8
        guard byte < bytes.count else {
            throw NALUError(.truncated, field: "lfeon", byteOffset: offset &+ Int64(byte), detail: "the bsi ends with the data")
        }
        lfeon = (bytes[byte] >> (7 - bit % 8)) & 1 == 1
    }

    /// Bytes of the whole sync frame, header included.
    public var frameSize: Int { Self.frameWords[fscod][frmsizecod] * 2 }
    /// The sampling frequency in Hz.
    public var sampleRate: Int { Self.samplingFrequencies[fscod] }
    /// `bit_rate_code` of `dac3`: `frmsizecod >> 1`.
    public var bitRateCode: Int { frmsizecod >> 1 }
    /// Channels, the LFE channel included.
    public var channelCount: Int { Self.channelsOfMode[acmod] + (lfeon ? 1 : 0) }

    /// The `dac3` box (ETSI TS 102 366 F.4, AC3SpecificBox): `fscod` (2), `bsid` (5), `bsmod`
    /// (3), `acmod` (3), `lfeon` (1), `bit_rate_code` (5), 5 reserved bits, box header included.
    public var specificBox: [UInt8] {
        let bits = UInt32(fscod) << 22 | UInt32(bsid) << 17 | UInt32(bsmod) << 14 | UInt32(acmod) << 11
            | UInt32(lfeon ? 1 : 0) << 10 | UInt32(bitRateCode) << 5
        return [0, 0, 0, 11] + Array("dac3".utf8) + [UInt8(bits >> 16), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }
}
