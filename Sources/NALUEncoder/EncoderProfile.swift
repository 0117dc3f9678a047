public import NALU

/// The profiles the backends accept, by the names x264 (`x264_param_apply_profile`) and x265
/// (`x265_param_apply_profile`) use, with the largest bit depth and chroma format each can carry.
///
/// H.264 (ITU-T H.264 Annex A.2): Baseline, Main and High carry 8-bit 4:2:0 (A.2.1–A.2.4), High 10
/// up to 10-bit 4:2:0 (A.2.5), High 4:2:2 up to 10-bit 4:2:2 (A.2.6), High 4:4:4 Predictive 4:4:4
/// (A.2.7; x264 encodes it up to 10 bits). HEVC (ITU-T H.265 A.3): Main and Main Still Picture
/// carry 8-bit 4:2:0 (A.3.2, A.3.4), Main 10 10-bit 4:2:0 (A.3.3), and the format range
/// extensions (A.3.5, general_profile_idc 4, ffprobe's "Rext") Main 4:2:2 10 up to 10-bit 4:2:2,
/// Main 4:4:4 8-bit 4:4:4 and Main 4:4:4 10 up to 10-bit 4:4:4.
public struct EncoderProfile: Hashable, Sendable, CustomStringConvertible {
    /// The library's name: `high422`, `main444-10`, ….
    public let name: String
    public let codec: Codec
    /// The deepest samples the profile carries (8 or 10).
    public let maxBitDepth: Int
    /// The fullest chroma format the profile carries.
    public let maxChroma: PixelFormat.ChromaSubsampling
    /// The name as the specification (and ffprobe, for H.264) spells it: "High 4:2:2".
    public let displayName: String

    public var description: String { name }

    /// Whether a stream of `format` fits the profile (bit depth and chroma format).
    public func carries(_ format: PixelFormat) -> Bool {
        format.bitDepth <= maxBitDepth && format.chromaSubsampling <= maxChroma
    }

    /// The H.264 profiles x264 accepts, smallest first.
    public static let h264: [EncoderProfile] = [
        EncoderProfile(name: "baseline", codec: .h264, maxBitDepth: 8, maxChroma: .yuv420, displayName: "Constrained Baseline"),
        EncoderProfile(name: "main", codec: .h264, maxBitDepth: 8, maxChroma: .yuv420, displayName: "Main"),
        EncoderProfile(name: "high", codec: .h264, maxBitDepth: 8, maxChroma: .yuv420, displayName: "High"),
        EncoderProfile(name: "high10", codec: .h264, maxBitDepth: 10, maxChroma: .yuv420, displayName: "High 10"),
        EncoderProfile(name: "high422", codec: .h264, maxBitDepth: 10, maxChroma: .yuv422, displayName: "High 4:2:2"),
        EncoderProfile(name: "high444", codec: .h264, maxBitDepth: 10, maxChroma: .yuv444, displayName: "High 4:4:4 Predictive"),
    ]

    /// The HEVC profiles x265 accepts, smallest first (`msp` is x265's short name for
    /// `mainstillpicture`).
    public static let hevc: [EncoderProfile] = [
        EncoderProfile(name: "main", codec: .hevc, maxBitDepth: 8, maxChroma: .yuv420, displayName: "Main"),
        EncoderProfile(name: "mainstillpicture", codec: .hevc, maxBitDepth: 8, maxChroma: .yuv420, displayName: "Main Still Picture"),
        EncoderProfile(name: "msp", codec: .hevc, maxBitDepth: 8, maxChroma: .yuv420, displayName: "Main Still Picture"),
        EncoderProfile(name: "main10", codec: .hevc, maxBitDepth: 10, maxChroma: .yuv420, displayName: "Main 10"),
        EncoderProfile(name: "main422-10", codec: .hevc, maxBitDepth: 10, maxChroma: .yuv422, displayName: "Main 4:2:2 10"),
        EncoderProfile(name: "main444-8", codec: .hevc, maxBitDepth: 8, maxChroma: .yuv444, displayName: "Main 4:4:4"),
        EncoderProfile(name: "main444-10", codec: .hevc, maxBitDepth: 10, maxChroma: .yuv444, displayName: "Main 4:4:4 10"),
    ]

    /// The profiles of `codec`.
    public static func all(_ codec: Codec) -> [EncoderProfile] {
        codec == .h264 ? h264 : hevc
    }

    /// The profile called `name` (case-insensitive) for `codec`, or `nil`.
    public static func named(_ name: String, codec: Codec) -> EncoderProfile? {
        let lower = name.lowercased()
        return all(codec).first { $0.name == lower }
    }

    /// The profile nalu uses for `format` when none is asked for: H.264 High, High 10,
    /// High 4:2:2 or High 4:4:4 Predictive; HEVC Main, Main 10, Main 4:2:2 10 (for 8- and 10-bit
    /// 4:2:2: there is no 8-bit 4:2:2 profile), Main 4:4:4 or Main 4:4:4 10.
    public static func `default`(codec: Codec, pixelFormat format: PixelFormat) -> EncoderProfile {
        let name: String
        switch (codec, format.chromaSubsampling, format.bitDepth) {
        case (.h264, .yuv420, 8): name = "high"
        case (.h264, .yuv420, _): name = "high10"
        case (.h264, .yuv422, _): name = "high422"
        case (.h264, .yuv444, _): name = "high444"
        case (.hevc, .yuv420, 8): name = "main"
        case (.hevc, .yuv420, _): name = "main10"
        case (.hevc, .yuv422, _): name = "main422-10"
        case (.hevc, .yuv444, 8): name = "main444-8"
        case (.hevc, .yuv444, _): name = "main444-10"
        }
        // Every name above is in the tables; the last profile carries every format.
        return named(name, codec: codec) ?? all(codec)[all(codec).count - 1]
    }
}

extension EncoderConfiguration {
    /// Checks that ``effectiveProfile`` is a profile of the codec and can carry
    /// ``pixelFormat``: `"main cannot carry yuv422p input (4:2:2 8-bit); use high422"`.
    func validateProfile() throws(EncoderError) {
        let name = effectiveProfile
        let profiles = EncoderProfile.all(codec)
        guard let profile = EncoderProfile.named(name, codec: codec) else {
            throw .invalid("profile", "unknown \(codec == .h264 ? "H.264" : "HEVC") profile \"\(name)\"; expected one of \(profiles.map(\.name).joined(separator: ", "))")
        }
        guard profile.carries(pixelFormat) else {
            let fit = EncoderProfile.default(codec: codec, pixelFormat: pixelFormat)
            throw .invalid("profile", "\(name) cannot carry \(pixelFormat.ffmpegName) input (\(pixelFormat.summary)); use \(fit.name)")
        }
    }
}
