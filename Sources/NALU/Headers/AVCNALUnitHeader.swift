/// An H.264 `nal_unit_type` (ITU-T H.264 Table 7-1), with names for every value.
public struct AVCNALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    public static let unspecified = AVCNALUnitType(rawValue: 0)
    public static let nonIDRSlice = AVCNALUnitType(rawValue: 1)
    public static let sliceDataPartitionA = AVCNALUnitType(rawValue: 2)
    public static let sliceDataPartitionB = AVCNALUnitType(rawValue: 3)
    public static let sliceDataPartitionC = AVCNALUnitType(rawValue: 4)
    public static let idrSlice = AVCNALUnitType(rawValue: 5)
    public static let sei = AVCNALUnitType(rawValue: 6)
    public static let sps = AVCNALUnitType(rawValue: 7)
    public static let pps = AVCNALUnitType(rawValue: 8)
    public static let accessUnitDelimiter = AVCNALUnitType(rawValue: 9)
    public static let endOfSequence = AVCNALUnitType(rawValue: 10)
    public static let endOfStream = AVCNALUnitType(rawValue: 11)
    public static let fillerData = AVCNALUnitType(rawValue: 12)
    public static let spsExtension = AVCNALUnitType(rawValue: 13)
    public static let prefixNAL = AVCNALUnitType(rawValue: 14)
    public static let subsetSPS = AVCNALUnitType(rawValue: 15)
    public static let dps = AVCNALUnitType(rawValue: 16)
    public static let auxiliarySlice = AVCNALUnitType(rawValue: 19)
    public static let sliceExtension = AVCNALUnitType(rawValue: 20)
    public static let sliceExtensionDepth = AVCNALUnitType(rawValue: 21)

    /// The short name used by `nalu nals`, e.g. `"IDR"`, `"SPS"`.
    public var name: String {
        switch rawValue {
        case 0: "Unspecified"
        case 1: "Non-IDR"
        case 2: "Partition A"
        case 3: "Partition B"
        case 4: "Partition C"
        case 5: "IDR"
        case 6: "SEI"
        case 7: "SPS"
        case 8: "PPS"
        case 9: "AUD"
        case 10: "End of sequence"
        case 11: "End of stream"
        case 12: "Filler"
        case 13: "SPS extension"
        case 14: "Prefix"
        case 15: "Subset SPS"
        case 16: "DPS"
        case 17, 18, 22, 23: "Reserved"
        case 19: "Auxiliary slice"
        case 20: "Slice extension"
        case 21: "Slice extension (depth)"
        default: "Unspecified"
        }
    }

    /// Whether this is a VCL NAL unit (types 1–5; ITU-T H.264 Table 7-1).
    public var isVCL: Bool { (1...5).contains(rawValue) }

    /// Whether the header carries three extension bytes (types 14, 20, 21; 7.3.1).
    public var hasHeaderExtension: Bool { rawValue == 14 || rawValue == 20 || rawValue == 21 }

    public var description: String { "\(rawValue) (\(name))" }
}

/// An H.264 NAL unit header (ITU-T H.264 7.3.1): one byte, plus three extension bytes for types
/// 14, 20 and 21 (SVC 7.3.1.1, MVC 7.3.1.2, 3D-AVC 7.3.1.3).
public struct AVCNALUnitHeader: Hashable, Sendable {
    /// `nal_ref_idc`: 0 when the NAL unit is not used for reference.
    public var nalRefIdc: UInt8
    /// `nal_unit_type`.
    public var nalUnitType: AVCNALUnitType
    /// For types 14/20: `svc_extension_flag` (true → SVC header, false → MVC header); for type
    /// 21: `avc_3d_extension_flag`. `nil` for other types.
    public var extensionFlag: Bool?
    /// The 23 bits after the extension flag (SVC, MVC or 3D-AVC header fields), when present.
    public var extensionBits: UInt32?

    /// Size of the header in bytes (1 or 4).
    public var length: Int { extensionFlag == nil ? 1 : 4 }

    public init(nalRefIdc: UInt8, nalUnitType: AVCNALUnitType) {
        self.nalRefIdc = nalRefIdc
        self.nalUnitType = nalUnitType
    }

    /// Parses the header at the start of `bytes`, an escaped NAL unit.
    public init(_ bytes: some Collection<UInt8>) throws(NALUError) {
        guard let first = bytes.first else { throw NALUError.truncated("nal_unit_header") }
        guard first & 0x80 == 0 else { throw NALUError(.forbiddenZeroBit, field: "forbidden_zero_bit", byteOffset: 0) }
        nalRefIdc = (first >> 5) & 0x03
        nalUnitType = AVCNALUnitType(rawValue: first & 0x1F)
        if nalUnitType.hasHeaderExtension {
            var extensionValue: UInt32 = 0
            var count = 0
            for byte in bytes.dropFirst().prefix(3) {
                extensionValue = extensionValue << 8 | UInt32(byte)
                count += 1
            }
            guard count == 3 else {
                throw NALUError(.truncated, field: "nal_unit_header_extension", byteOffset: Int64(1 + count))
            }
            extensionFlag = extensionValue & 0x80_0000 != 0
            extensionBits = extensionValue & 0x7F_FFFF
        }
    }
}
