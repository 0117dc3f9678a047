/// The names FFmpeg (and so ffprobe's JSON) gives the VUI colour code points, so `nalu info`
/// output can be read by scripts written for ffprobe.
///
/// The code points are those of ITU-T H.273 (the same in ITU-T H.264 Tables E-3/E-4/E-5 and
/// ITU-T H.265 Tables E.3/E.4/E.5); the spellings are libavutil's `av_color_primaries_name`,
/// `av_color_transfer_name`, `av_color_space_name` and `av_color_range_name`. A value FFmpeg has
/// no name for (a reserved code point above its table) gives `nil`; 2 "unspecified" gives
/// `"unknown"`, which ffprobe leaves out of its output.
public enum ColourNames {
    /// `colour_primaries` → "bt709", "bt2020", "smpte432", …
    public static func primaries(_ value: Int) -> String? {
        switch value {
        case 0: "reserved"
        case 1: "bt709"
        case 2: "unknown"
        case 3: "reserved"
        case 4: "bt470m"
        case 5: "bt470bg"
        case 6: "smpte170m"
        case 7: "smpte240m"
        case 8: "film"
        case 9: "bt2020"
        case 10: "smpte428"
        case 11: "smpte431"
        case 12: "smpte432"
        case 22: "ebu3213"
        default: nil
        }
    }

    /// `transfer_characteristics` → "bt709", "smpte2084", "arib-std-b67", …
    public static func transfer(_ value: Int) -> String? {
        switch value {
        case 0: "reserved"
        case 1: "bt709"
        case 2: "unknown"
        case 3: "reserved"
        case 4: "bt470m"
        case 5: "bt470bg"
        case 6: "smpte170m"
        case 7: "smpte240m"
        case 8: "linear"
        case 9: "log100"
        case 10: "log316"
        case 11: "iec61966-2-4"
        case 12: "bt1361e"
        case 13: "iec61966-2-1"
        case 14: "bt2020-10"
        case 15: "bt2020-12"
        case 16: "smpte2084"
        case 17: "smpte428"
        case 18: "arib-std-b67"
        default: nil
        }
    }

    /// `matrix_coefficients` (H.264) / `matrix_coeffs` (H.265) → "bt709", "bt2020nc", "gbr", …
    public static func space(_ value: Int) -> String? {
        switch value {
        case 0: "gbr"
        case 1: "bt709"
        case 2: "unknown"
        case 3: "reserved"
        case 4: "fcc"
        case 5: "bt470bg"
        case 6: "smpte170m"
        case 7: "smpte240m"
        case 8: "ycgco"
        case 9: "bt2020nc"
        case 10: "bt2020c"
        case 11: "smpte2085"
        case 12: "chroma-derived-nc"
        case 13: "chroma-derived-c"
        case 14: "ictcp"
        default: nil
        }
    }

    /// `video_full_range_flag` → "pc" (full range) or "tv" (limited range).
    public static func range(fullRange: Bool) -> String { fullRange ? "pc" : "tv" }

    /// The name ffprobe prints for a code point, or `nil` when it leaves the key out
    /// (unspecified, or a value libavutil has no name for).
    public static func printed(_ name: String?) -> String? {
        guard let name, name != "unknown" else { return nil }
        return name
    }
}
