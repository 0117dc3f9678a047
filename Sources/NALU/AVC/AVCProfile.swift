/// Names and classes of H.264 profiles and levels (ITU-T H.264 Annex A, G, H, I, J).
public enum AVCProfile {
    /// The `profile_idc` values whose sequence parameter sets carry `chroma_format_idc`, bit
    /// depths and scaling lists (ITU-T H.264 7.3.2.1.1): 100, 110, 122, 244, 44, 83, 86, 118,
    /// 128, 138, 139, 134 and 135.
    public static let highProfileIdcs: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Whether `profileIdc` is one of ``highProfileIdcs``.
    public static func hasChromaFormatInfo(_ profileIdc: UInt8) -> Bool {
        highProfileIdcs.contains(profileIdc)
    }

    /// The profile's name as `ffprobe` prints it, e.g. `"High"`, `"Constrained Baseline"`,
    /// `"High 10 Intra"`.
    ///
    /// Follows FFmpeg's `ff_h264_get_profile` and profile table: `constraint_set1_flag` turns
    /// Baseline (66) into Constrained Baseline (A.2.1.1); `constraint_set3_flag` turns High 10,
    /// High 4:2:2 and High 4:4:4 Predictive into their Intra profiles (A.2.8–A.2.10). Profile 44 is
    /// `"CAVLC 4:4:4"` (FFmpeg's name for the CAVLC 4:4:4 Intra profile, A.2.11). For profiles
    /// FFmpeg has no name for, the specification's name is used (Annex G, H, I, J; `ffprobe`
    /// prints the number for these), and unknown values give the number, as `ffprobe` does.
    ///
    /// - Parameters:
    ///   - profileIdc: `profile_idc`.
    ///   - constraintSetFlags: the byte after `profile_idc` (`constraint_set0_flag` in the most
    ///     significant bit).
    public static func name(profileIdc: UInt8, constraintSetFlags: UInt8) -> String {
        let set1 = constraintSetFlags & 0x40 != 0
        let set3 = constraintSetFlags & 0x10 != 0
        switch profileIdc {
        case 66: return set1 ? "Constrained Baseline" : "Baseline"
        case 77: return "Main"
        case 88: return "Extended"
        case 100: return "High"
        case 110: return set3 ? "High 10 Intra" : "High 10"
        case 122: return set3 ? "High 4:2:2 Intra" : "High 4:2:2"
        case 144: return "High 4:4:4"
        case 244: return set3 ? "High 4:4:4 Intra" : "High 4:4:4 Predictive"
        case 44: return "CAVLC 4:4:4"
        case 118: return "Multiview High"
        case 128: return "Stereo High"
        case 83: return "Scalable Baseline"
        case 86: return "Scalable High"
        case 134: return "MFC High"
        case 135: return "MFC Depth High"
        case 138: return "Multiview Depth High"
        case 139: return "Enhanced Multiview Depth High"
        default: return String(profileIdc)
        }
    }

    /// Whether `level_idc` with these flags means level 1b (ITU-T H.264 A.3.1, Table A-1):
    /// `level_idc` 11 with `constraint_set3_flag` in the Baseline, Main or Extended profile, or
    /// `level_idc` 9.
    public static func isLevel1b(profileIdc: UInt8, constraintSetFlags: UInt8, levelIdc: UInt8) -> Bool {
        if levelIdc == 9 { return true }
        let set3 = constraintSetFlags & 0x10 != 0
        return levelIdc == 11 && set3 && (profileIdc == 66 || profileIdc == 77 || profileIdc == 88)
    }

    /// The level number as written in ITU-T H.264 Table A-1: `"1b"`, `"1"`, `"1.1"`, `"3"`,
    /// `"3.1"`, `"6.2"` (`level_idc` divided by 10).
    public static func levelName(profileIdc: UInt8, constraintSetFlags: UInt8, levelIdc: UInt8) -> String {
        if isLevel1b(profileIdc: profileIdc, constraintSetFlags: constraintSetFlags, levelIdc: levelIdc) {
            return "1b"
        }
        let major = levelIdc / 10
        let minor = levelIdc % 10
        return minor == 0 ? "\(major)" : "\(major).\(minor)"
    }
}
