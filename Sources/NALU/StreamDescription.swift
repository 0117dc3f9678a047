/// What a stream's active sequence parameter set says, for either codec: the facts `nalu info`
/// prints and ffprobe reports.
public struct StreamDescription: Hashable, Sendable {
    /// The codec.
    public var codec: Codec
    /// The profile's name as FFmpeg spells it ("High", "Main 10", "Rext").
    public var profileName: String
    /// `profile_idc` (H.264) or `general_profile_idc` (H.265).
    public var profileIdc: Int
    /// `level_idc` (H.264) or `general_level_idc` (H.265: 30 × level).
    public var levelIdc: Int
    /// The level as written in the specs' tables ("3.1", "1b").
    public var levelName: String
    /// "Main" or "High" (H.265 only).
    public var tierName: String?
    /// Displayed width and height after cropping.
    public var width: Int
    public var height: Int
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormatIdc: Int
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// Frames per second from the VUI timing information, when present.
    public var frameRate: Rational?
    /// Whether the SPS allows field coding (H.264 `frame_mbs_only_flag` 0; H.265 VUI `field_seq_flag`).
    public var interlaced: Bool

    public init(_ sps: AVCSequenceParameterSet) {
        codec = .h264
        profileName = sps.profileName
        profileIdc = Int(sps.profileIdc)
        levelIdc = Int(sps.levelIdc)
        levelName = sps.levelName
        tierName = nil
        width = sps.width
        height = sps.height
        chromaFormatIdc = sps.chromaFormatIdc
        bitDepthLuma = sps.bitDepthLuma
        bitDepthChroma = sps.bitDepthChroma
        frameRate = sps.frameRate
        interlaced = !sps.frameMbsOnlyFlag
    }

    public init(_ sps: HEVCSequenceParameterSet) {
        codec = .hevc
        profileName = sps.profileName
        profileIdc = Int(sps.profileTierLevel.generalProfileIdc)
        levelIdc = Int(sps.profileTierLevel.generalLevelIdc)
        levelName = sps.levelName
        tierName = sps.tierName
        width = sps.width
        height = sps.height
        chromaFormatIdc = sps.chromaFormatIdc
        bitDepthLuma = sps.bitDepthLuma
        bitDepthChroma = sps.bitDepthChroma
        frameRate = sps.frameRate
        interlaced = sps.vuiParameters?.fieldSeqFlag ?? false
    }

    /// "4:2:0" etc.
    public var chromaFormatName: String {
        switch chromaFormatIdc {
        case 0: "4:0:0"
        case 1: "4:2:0"
        case 2: "4:2:2"
        case 3: "4:4:4"
        default: "unknown"
        }
    }
}
