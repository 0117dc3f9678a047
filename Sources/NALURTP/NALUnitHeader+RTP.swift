public import NALU

extension AVCNALUnitType {
    /// RFC 6184 Table 1: single-time aggregation packet A (type 24).
    public static let stapA = AVCNALUnitType(rawValue: 24)
    /// RFC 6184 Table 1: single-time aggregation packet B, with a DON (type 25).
    public static let stapB = AVCNALUnitType(rawValue: 25)
    /// RFC 6184 Table 1: multi-time aggregation packet, 16-bit timestamp offsets (type 26).
    public static let mtap16 = AVCNALUnitType(rawValue: 26)
    /// RFC 6184 Table 1: multi-time aggregation packet, 24-bit timestamp offsets (type 27).
    public static let mtap24 = AVCNALUnitType(rawValue: 27)
    /// RFC 6184 Table 1: fragmentation unit A (type 28).
    public static let fuA = AVCNALUnitType(rawValue: 28)
    /// RFC 6184 Table 1: fragmentation unit B, with a DON in the first fragment (type 29).
    public static let fuB = AVCNALUnitType(rawValue: 29)
}

extension HEVCNALUnitType {
    /// RFC 7798 4.4.2: aggregation packet (type 48).
    public static let aggregationPacket = HEVCNALUnitType(rawValue: 48)
    /// RFC 7798 4.4.3: fragmentation unit (type 49).
    public static let fragmentationUnit = HEVCNALUnitType(rawValue: 49)
    /// RFC 7798 4.4.4: payload content information (type 50).
    public static let payloadContentInformation = HEVCNALUnitType(rawValue: 50)
}

extension AVCNALUnitHeader {
    /// The one-byte header (ITU-T H.264 7.3.1) with `forbidden_zero_bit` = `forbiddenBit`:
    /// the F, NRI and type of an RTP payload header too (RFC 6184 5.3).
    public func byte(forbiddenBit: Bool = false) -> UInt8 {
        (forbiddenBit ? 0x80 : 0) | (nalRefIdc & 0x03) << 5 | nalUnitType.rawValue
    }

    /// The header of the first byte of an RTP payload or NAL unit, whatever its
    /// `forbidden_zero_bit` (RFC 6184 5.3: F = 1 may mark a damaged NAL unit), and that bit.
    public static func payloadHeader(_ byte: UInt8) -> (header: AVCNALUnitHeader, forbiddenBit: Bool) {
        (AVCNALUnitHeader(nalRefIdc: byte >> 5 & 0x03, nalUnitType: AVCNALUnitType(rawValue: byte)), byte & 0x80 != 0)
    }
}

extension HEVCNALUnitHeader {
    /// The two header bytes (ITU-T H.265 7.3.1.2) with `forbidden_zero_bit` = `forbiddenBit`:
    /// an RTP PayloadHdr too (RFC 7798 4.4).
    public func bytes(forbiddenBit: Bool) -> [UInt8] {
        var two = bytes
        if forbiddenBit { two[0] |= 0x80 }
        return two
    }

    /// The header of the first two bytes of an RTP payload or NAL unit, whatever its
    /// `forbidden_zero_bit` and `nuh_temporal_id_plus1` (checked by the caller), and that bit.
    public static func payloadHeader(_ first: UInt8, _ second: UInt8) -> (header: HEVCNALUnitHeader, forbiddenBit: Bool) {
        (HEVCNALUnitHeader(nalUnitType: HEVCNALUnitType(rawValue: first >> 1), nuhLayerId: nuhLayerId(firstByte: first, secondByte: second),
                           nuhTemporalIdPlus1: second & 0x07), first & 0x80 != 0)
    }
}

/// Setting `forbidden_zero_bit` (the first bit of every H.264 and H.265 NAL unit header) on a NAL
/// unit: how a depacketizer passes on a NAL unit it knows is damaged (RFC 6184 5.3, RFC 7798
/// 1.1.4).
public enum ForbiddenZeroBit {
    /// Sets the bit in `nalUnit`'s header (nothing for an empty one).
    public static func set(in nalUnit: inout [UInt8]) {
        guard !nalUnit.isEmpty else { return }
        nalUnit[0] |= 0x80
    }

    /// Whether the bit is set in `nalUnit`'s header.
    public static func isSet(in nalUnit: [UInt8]) -> Bool { nalUnit.first.map { $0 & 0x80 != 0 } ?? false }
}

/// The FU header of RFC 6184 5.8 (`S`, `E`, `R`, 5-bit type) and RFC 7798 4.4.3 (`S`, `E`,
/// 6-bit `FuType`).
public struct RTPFragmentHeader: Sendable, Hashable {
    /// `S`: the first fragment of the NAL unit.
    public var isStart: Bool
    /// `E`: the last fragment of the NAL unit.
    public var isEnd: Bool
    /// The fragmented NAL unit's `nal_unit_type`.
    public var nalUnitType: UInt8

    public init(isStart: Bool, isEnd: Bool, nalUnitType: UInt8) {
        self.isStart = isStart
        self.isEnd = isEnd
        self.nalUnitType = nalUnitType
    }

    /// Reads the header byte for `codec` (5 type bits for H.264, 6 for H.265).
    public init(byte: UInt8, codec: Codec) {
        isStart = byte & 0x80 != 0
        isEnd = byte & 0x40 != 0
        nalUnitType = codec == .h264 ? AVCNALUnitType(rawValue: byte).rawValue : HEVCNALUnitType(rawValue: byte).rawValue
    }

    /// The header byte (the H.264 `R` bit 0).
    public var byte: UInt8 { (isStart ? 0x80 : 0) | (isEnd ? 0x40 : 0) | nalUnitType }
}
