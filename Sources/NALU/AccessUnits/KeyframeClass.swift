/// Why an access unit is a place where decoding can start (a "keyframe"), in the classes of
/// ISO/IEC 14496-15 sync samples and SAP types.
public enum KeyframeClass: Hashable, Sendable, CustomStringConvertible {
    /// An IDR picture: H.264 `nal_unit_type` 5, H.265 19 or 20. Closed GOP (SAP 1 or 2).
    case idr
    /// An H.265 clean random access picture (21): open GOP, leading RASL pictures are skipped
    /// when decoding starts here (SAP 3).
    case cra
    /// An H.265 broken link access picture (16–18): a spliced CRA.
    case bla
    /// An access unit with a recovery point SEI message (H.264 D.2.8, H.265 D.3.8). A count of 0
    /// on an I picture is an open-GOP random access point; a positive count is gradual decoding
    /// refresh (intra refresh, SAP 4), with output exact after that many frames (H.264
    /// `recovery_frame_cnt`) or POC units (H.265 `recovery_poc_cnt`).
    case recoveryPoint(count: Int)

    /// The name `nalu keyframes` prints: `idr`, `cra`, `bla` or `recovery`.
    public var name: String {
        switch self {
        case .idr: "idr"
        case .cra: "cra"
        case .bla: "bla"
        case .recoveryPoint: "recovery"
        }
    }

    /// Whether the access unit is an intra random access point of the base spec (IDR, CRA, BLA).
    public var isIRAP: Bool {
        if case .recoveryPoint = self { return false }
        return true
    }

    public var description: String { name }
}

extension KeyframeClass {
    /// The class a VCL NAL unit of `nalUnitType` gives its access unit by its type alone: `.idr`
    /// for an IDR slice (H.264 7.4.1.2.4, `nal_unit_type` 5), `nil` otherwise (a recovery point
    /// needs its SEI). The one place the H.264 keyframe class is decided from a NAL unit type.
    public init?(nalUnitType: AVCNALUnitType) {
        guard nalUnitType == .idrSlice else { return nil }
        self = .idr
    }

    /// The class a VCL NAL unit of `nalUnitType` gives its access unit by its type alone
    /// (H.265 7.4.2.2, Table 7-1): `.idr` for IDR_W_RADL/IDR_N_LP (19, 20), `.cra` for CRA_NUT
    /// (21), `.bla` for BLA_W_LP/BLA_W_RADL/BLA_N_LP (16–18), `nil` otherwise. The one place the
    /// H.265 keyframe class is decided from a NAL unit type.
    public init?(nalUnitType: HEVCNALUnitType) {
        if nalUnitType.isIDR {
            self = .idr
        } else if nalUnitType == .cra {
            self = .cra
        } else if nalUnitType.isBLA {
            self = .bla
        } else {
            return nil
        }
    }
}

/// The coding type of a picture, from its slices: I when every slice is I (or SI), B when any
/// slice is B, P otherwise.
public enum PictureType: String, Hashable, Sendable, CustomStringConvertible {
    case i = "I"
    case p = "P"
    case b = "B"

    /// Combines the types of two slices of one picture.
    func merged(with other: PictureType) -> PictureType {
        if self == .b || other == .b { return .b }
        if self == .p || other == .p { return .p }
        return .i
    }

    public var description: String { rawValue }
}
