/// An H.265 `nal_unit_type` (ITU-T H.265 Table 7-1), with names for every value.
public struct HEVCNALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x3F }

    public static let trailN = HEVCNALUnitType(rawValue: 0)
    public static let trailR = HEVCNALUnitType(rawValue: 1)
    public static let tsaN = HEVCNALUnitType(rawValue: 2)
    public static let tsaR = HEVCNALUnitType(rawValue: 3)
    public static let stsaN = HEVCNALUnitType(rawValue: 4)
    public static let stsaR = HEVCNALUnitType(rawValue: 5)
    public static let radlN = HEVCNALUnitType(rawValue: 6)
    public static let radlR = HEVCNALUnitType(rawValue: 7)
    public static let raslN = HEVCNALUnitType(rawValue: 8)
    public static let raslR = HEVCNALUnitType(rawValue: 9)
    public static let blaWLP = HEVCNALUnitType(rawValue: 16)
    public static let blaWRADL = HEVCNALUnitType(rawValue: 17)
    public static let blaNLP = HEVCNALUnitType(rawValue: 18)
    public static let idrWRADL = HEVCNALUnitType(rawValue: 19)
    public static let idrNLP = HEVCNALUnitType(rawValue: 20)
    public static let cra = HEVCNALUnitType(rawValue: 21)
    public static let vps = HEVCNALUnitType(rawValue: 32)
    public static let sps = HEVCNALUnitType(rawValue: 33)
    public static let pps = HEVCNALUnitType(rawValue: 34)
    public static let accessUnitDelimiter = HEVCNALUnitType(rawValue: 35)
    public static let endOfSequence = HEVCNALUnitType(rawValue: 36)
    public static let endOfBitstream = HEVCNALUnitType(rawValue: 37)
    public static let fillerData = HEVCNALUnitType(rawValue: 38)
    public static let prefixSEI = HEVCNALUnitType(rawValue: 39)
    public static let suffixSEI = HEVCNALUnitType(rawValue: 40)

    /// The spec's name, e.g. `"IDR_W_RADL"`, `"VPS"`.
    public var name: String {
        switch rawValue {
        case 0: "TRAIL_N"
        case 1: "TRAIL_R"
        case 2: "TSA_N"
        case 3: "TSA_R"
        case 4: "STSA_N"
        case 5: "STSA_R"
        case 6: "RADL_N"
        case 7: "RADL_R"
        case 8: "RASL_N"
        case 9: "RASL_R"
        case 10, 12, 14: "RSV_VCL_N\(rawValue)"
        case 11, 13, 15: "RSV_VCL_R\(rawValue)"
        case 16: "BLA_W_LP"
        case 17: "BLA_W_RADL"
        case 18: "BLA_N_LP"
        case 19: "IDR_W_RADL"
        case 20: "IDR_N_LP"
        case 21: "CRA_NUT"
        case 22, 23: "RSV_IRAP_VCL\(rawValue)"
        case 24...31: "RSV_VCL\(rawValue)"
        case 32: "VPS"
        case 33: "SPS"
        case 34: "PPS"
        case 35: "AUD"
        case 36: "EOS"
        case 37: "EOB"
        case 38: "FD"
        case 39: "PREFIX_SEI"
        case 40: "SUFFIX_SEI"
        case 41...47: "RSV_NVCL\(rawValue)"
        default: "UNSPEC\(rawValue)"
        }
    }

    /// VCL NAL units are types 0–31.
    public var isVCL: Bool { rawValue < 32 }
    /// Intra random access point pictures: types 16–23 (7.4.2.2).
    public var isIRAP: Bool { (16...23).contains(rawValue) }
    /// Instantaneous decoding refresh: types 19 and 20.
    public var isIDR: Bool { rawValue == 19 || rawValue == 20 }
    /// Broken link access: types 16–18.
    public var isBLA: Bool { (16...18).contains(rawValue) }
    /// Sub-layer non-reference picture: even types up to 14 (7.4.2.2).
    public var isSubLayerNonReference: Bool { rawValue <= 14 && rawValue & 1 == 0 }

    public var description: String { "\(rawValue) (\(name))" }
}

/// An H.265 NAL unit header (ITU-T H.265 7.3.1.2): two bytes.
public struct HEVCNALUnitHeader: Hashable, Sendable {
    /// `nal_unit_type`.
    public var nalUnitType: HEVCNALUnitType
    /// `nuh_layer_id` (0 for the base layer).
    public var nuhLayerId: UInt8
    /// `nuh_temporal_id_plus1`, never 0 in a valid header.
    public var nuhTemporalIdPlus1: UInt8

    /// `TemporalId` = `nuh_temporal_id_plus1` − 1.
    public var temporalId: UInt8 { nuhTemporalIdPlus1 &- 1 }

    /// Size of the header in bytes.
    public var length: Int { 2 }

    public init(nalUnitType: HEVCNALUnitType, nuhLayerId: UInt8 = 0, nuhTemporalIdPlus1: UInt8 = 1) {
        self.nalUnitType = nalUnitType
        self.nuhLayerId = nuhLayerId & 0x3F
        self.nuhTemporalIdPlus1 = nuhTemporalIdPlus1 & 0x07
    }

    /// `nuh_layer_id` of the header whose two bytes are `firstByte`, `secondByte` (7.3.1.2): the
    /// last bit of the first, the first five of the second.
    @inline(__always)
    public static func nuhLayerId(firstByte: UInt8, secondByte: UInt8) -> UInt8 {
        (firstByte & 0x01) << 5 | secondByte >> 3
    }

    /// Parses the header at the start of `bytes`, an escaped NAL unit.
    public init(_ bytes: some Collection<UInt8>) throws(NALUError) {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next() else { throw NALUError.truncated("nal_unit_header", byteOffset: 0) }
        guard let second = iterator.next() else { throw NALUError.truncated("nal_unit_header", byteOffset: 1) }
        guard first & 0x80 == 0 else { throw NALUError(.forbiddenZeroBit, field: "forbidden_zero_bit", byteOffset: 0) }
        nalUnitType = HEVCNALUnitType(rawValue: (first >> 1) & 0x3F)
        nuhLayerId = Self.nuhLayerId(firstByte: first, secondByte: second)
        nuhTemporalIdPlus1 = second & 0x07
        guard nuhTemporalIdPlus1 != 0 else {
            throw NALUError(.invalidValue, field: "nuh_temporal_id_plus1", byteOffset: 1, detail: "must not be 0")
        }
    }

    /// Parses the header of `nalUnit`, requires `nal_unit_type` to be `expected`, and returns it
    /// with a reader positioned after the header: the common start of VPS, SPS and PPS parsing.
    static func reader(for nalUnit: ArraySlice<UInt8>, expecting expected: HEVCNALUnitType)
        throws(NALUError) -> (header: HEVCNALUnitHeader, reader: BitReader) {
        let header = try HEVCNALUnitHeader(nalUnit)
        guard header.nalUnitType == expected else {
            throw NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0,
                            detail: "expected \(expected.rawValue) (\(expected.name)), got \(header.nalUnitType.rawValue)")
        }
        return (header, BitReader(nalUnit: nalUnit, headerBytes: 2))
    }

    /// The two header bytes.
    public var bytes: [UInt8] {
        [nalUnitType.rawValue << 1 | nuhLayerId >> 5, (nuhLayerId & 0x1F) << 3 | nuhTemporalIdPlus1]
    }
}
