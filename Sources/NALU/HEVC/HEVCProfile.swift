/// An H.265 profile, identified by `general_profile_idc` (ITU-T H.265 Annex A, A.3).
///
/// Unknown values are kept (`HEVCProfile(rawValue: 17)`), never rejected.
public struct HEVCProfile: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `general_profile_idc` value (0...31).
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Main profile (A.3.2), `general_profile_idc` 1.
    public static let main = HEVCProfile(rawValue: 1)
    /// Main 10 profile (A.3.3), 2.
    public static let main10 = HEVCProfile(rawValue: 2)
    /// Main Still Picture profile (A.3.4), 3.
    public static let mainStillPicture = HEVCProfile(rawValue: 3)
    /// Format range extensions profiles (A.3.5), 4: Main 12, Main 4:2:2 10, Main 4:4:4, …
    public static let formatRangeExtensions = HEVCProfile(rawValue: 4)
    /// High throughput profiles (A.3.6), 5.
    public static let highThroughput = HEVCProfile(rawValue: 5)
    /// Multiview Main profile (G.11.1), 6.
    public static let multiviewMain = HEVCProfile(rawValue: 6)
    /// Scalable Main profiles (H.11.1), 7.
    public static let scalableMain = HEVCProfile(rawValue: 7)
    /// 3D Main profile (I.11.1), 8.
    public static let threeDMain = HEVCProfile(rawValue: 8)
    /// Screen content coding extensions profiles (A.3.7), 9.
    public static let screenContentCoding = HEVCProfile(rawValue: 9)
    /// Scalable format range extensions profiles (H.11.1), 10.
    public static let scalableFormatRangeExtensions = HEVCProfile(rawValue: 10)
    /// High throughput screen content coding extensions profiles (A.3.8), 11.
    public static let highThroughputScreenContentCoding = HEVCProfile(rawValue: 11)

    /// The profile a decoder reports for a `profile_tier_level()`, as FFmpeg derives it
    /// (libavcodec/hevc_ps.c): `general_profile_idc`, or when that is 0, the highest `j` in
    /// 1...31 whose `general_profile_compatibility_flag[j]` is set.
    ///
    /// - Parameter compatibilityFlags: the 32 flags with flag 0 in the most significant bit.
    public init(profileIdc: UInt8, compatibilityFlags: UInt32) {
        var idc = profileIdc
        if idc == 0 {
            // Flag j is bit (31 - j); the highest j set is the lowest bit set, excluding flag 0.
            let withoutFlag0 = compatibilityFlags & 0x7FFF_FFFF
            if withoutFlag0 != 0 {
                idc = UInt8(31 - withoutFlag0.trailingZeroBitCount)
            }
        }
        self.init(rawValue: idc)
    }

    /// The name the specification gives the profile (Annex A, G, H, I), or `nil` when unknown.
    public var specName: String? {
        switch rawValue {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Format Range Extensions"
        case 5: "High Throughput"
        case 6: "Multiview Main"
        case 7: "Scalable Main"
        case 8: "3D Main"
        case 9: "Screen Content Coding Extensions"
        case 10: "Scalable Format Range Extensions"
        case 11: "High Throughput Screen Content Coding Extensions"
        default: nil
        }
    }

    /// The name `ffprobe` prints as `profile=` (FFmpeg's `ff_hevc_profiles` table in
    /// libavcodec/profiles.c): "Main", "Main 10", "Main Still Picture", "Rext", "Multiview Main",
    /// "Scc"; for any other value ffprobe prints the number, and so does this property.
    public var ffmpegName: String {
        switch rawValue {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Rext"
        case 6: "Multiview Main"
        case 9: "Scc"
        default: String(rawValue)
        }
    }

    public var description: String { specName ?? "profile \(rawValue)" }
}
