/// The header of an H.264 or H.265 NAL unit, for code that handles both codecs.
public enum NALUnitHeader: Hashable, Sendable {
    case avc(AVCNALUnitHeader)
    case hevc(HEVCNALUnitHeader)

    /// Parses the header at the start of `bytes` (an escaped NAL unit) for `codec`.
    public init(_ bytes: some Collection<UInt8>, codec: Codec) throws(NALUError) {
        switch codec {
        case .h264: self = .avc(try AVCNALUnitHeader(bytes))
        case .hevc: self = .hevc(try HEVCNALUnitHeader(bytes))
        }
    }

    /// `nal_unit_type` as a number.
    public var typeNumber: UInt8 {
        switch self {
        case .avc(let header): header.nalUnitType.rawValue
        case .hevc(let header): header.nalUnitType.rawValue
        }
    }

    /// The type's name (``AVCNALUnitType/name``, ``HEVCNALUnitType/name``).
    public var typeName: String {
        switch self {
        case .avc(let header): header.nalUnitType.name
        case .hevc(let header): header.nalUnitType.name
        }
    }

    /// Whether the NAL unit carries coded slice data.
    public var isVCL: Bool {
        switch self {
        case .avc(let header): header.nalUnitType.isVCL
        case .hevc(let header): header.nalUnitType.isVCL
        }
    }

    /// Whether the NAL unit is a parameter set of the base layer: an H.264 SPS or PPS, an H.265
    /// VPS, SPS or PPS with `nuh_layer_id` 0 (``Codec/isParameterSet(firstByte:secondByte:)``).
    public var isParameterSet: Bool {
        switch self {
        case .avc(let header): header.nalUnitType == .sps || header.nalUnitType == .pps
        case .hevc(let header): (32...34).contains(header.nalUnitType.rawValue) && header.nuhLayerId == 0
        }
    }

    /// Header length in bytes.
    public var length: Int {
        switch self {
        case .avc(let header): header.length
        case .hevc(let header): header.length
        }
    }
}
