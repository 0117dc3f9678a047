/// `profile_tier_level( profilePresentFlag, maxNumSubLayersMinus1 )` (ITU-T H.265 7.3.3, semantics
/// 7.4.4): the profile, tier and level of a coded video sequence and of each of its sub-layers.
///
/// The general fields are stored the way an `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15
/// 8.3.3.1) stores them, so they can be copied into `hvcC` unchanged.
public struct HEVCProfileTierLevel: Hashable, Sendable {
    /// The profile and level of one sub-layer (`i` in 0..<maxNumSubLayersMinus1). Profile fields are
    /// 0 when `sub_layer_profile_present_flag[i]` is 0; ``subLayerLevelIdc`` is 0 when
    /// `sub_layer_level_present_flag[i]` is 0.
    public struct SubLayer: Hashable, Sendable {
        /// `sub_layer_profile_present_flag[i]`.
        public var subLayerProfilePresentFlag: Bool = false
        /// `sub_layer_level_present_flag[i]`.
        public var subLayerLevelPresentFlag: Bool = false
        /// `sub_layer_profile_space[i]` (u(2)).
        public var subLayerProfileSpace: UInt8 = 0
        /// `sub_layer_tier_flag[i]`.
        public var subLayerTierFlag: Bool = false
        /// `sub_layer_profile_idc[i]` (u(5)).
        public var subLayerProfileIdc: UInt8 = 0
        /// `sub_layer_profile_compatibility_flag[i][j]` for j = 0...31, flag 0 in the most
        /// significant bit.
        public var subLayerProfileCompatibilityFlags: UInt32 = 0
        /// The 48 bits from `sub_layer_progressive_source_flag[i]` to `sub_layer_inbld_flag[i]` /
        /// `sub_layer_reserved_zero_bit[i]`, first bit in bit 47.
        public var subLayerConstraintIndicatorFlags: UInt64 = 0
        /// `sub_layer_level_idc[i]` (u(8)).
        public var subLayerLevelIdc: UInt8 = 0

        public init() {}
    }

    /// `general_profile_space` (u(2)); 0 in bitstreams conforming to this version of the spec.
    public var generalProfileSpace: UInt8
    /// `general_tier_flag`: `false` Main tier, `true` High tier (Table A.8).
    public var generalTierFlag: Bool
    /// `general_profile_idc` (u(5)).
    public var generalProfileIdc: UInt8
    /// `general_profile_compatibility_flag[j]` for j = 0...31, flag 0 in the most significant bit
    /// (as in `hvcC`'s `general_profile_compatibility_flags`).
    public var generalProfileCompatibilityFlags: UInt32
    /// The 48 bits starting at `general_progressive_source_flag` and ending with
    /// `general_inbld_flag` / `general_reserved_zero_bit`, first bit in bit 47 (as in `hvcC`'s
    /// `general_constraint_indicator_flags`).
    public var generalConstraintIndicatorFlags: UInt64
    /// `general_level_idc` (u(8)): 30 × the level number (Table A.8), e.g. 93 for level 3.1.
    public var generalLevelIdc: UInt8
    /// One entry per sub-layer below the highest (`maxNumSubLayersMinus1` entries).
    public var subLayers: [SubLayer]

    public init(generalProfileSpace: UInt8 = 0, generalTierFlag: Bool = false, generalProfileIdc: UInt8,
                generalProfileCompatibilityFlags: UInt32, generalConstraintIndicatorFlags: UInt64,
                generalLevelIdc: UInt8, subLayers: [SubLayer] = []) {
        self.generalProfileSpace = generalProfileSpace
        self.generalTierFlag = generalTierFlag
        self.generalProfileIdc = generalProfileIdc
        self.generalProfileCompatibilityFlags = generalProfileCompatibilityFlags
        self.generalConstraintIndicatorFlags = generalConstraintIndicatorFlags
        self.generalLevelIdc = generalLevelIdc
        self.subLayers = subLayers
    }

    /// Parses `profile_tier_level( profilePresentFlag, maxNumSubLayersMinus1 )` (7.3.3).
    ///
    /// - Parameters:
    ///   - profilePresentFlag: whether the general profile fields are present (always `true` in a
    ///     VPS's first structure and in an SPS); when `false` they are left 0.
    ///   - maxNumSubLayersMinus1: `vps_max_sub_layers_minus1` or `sps_max_sub_layers_minus1`,
    ///     0...6.
    package init(_ reader: inout BitReader, profilePresentFlag: Bool = true,
                maxNumSubLayersMinus1: Int) throws(NALUError) {
        guard (0...6).contains(maxNumSubLayersMinus1) else {
            throw reader.error(.invalidValue, "maxNumSubLayersMinus1",
                               detail: "\(maxNumSubLayersMinus1) not in 0...6")
        }
        generalProfileSpace = 0
        generalTierFlag = false
        generalProfileIdc = 0
        generalProfileCompatibilityFlags = 0
        generalConstraintIndicatorFlags = 0
        if profilePresentFlag {
            generalProfileSpace = UInt8(try reader.u(2, "general_profile_space"))
            generalTierFlag = try reader.flag("general_tier_flag")
            generalProfileIdc = UInt8(try reader.u(5, "general_profile_idc"))
            generalProfileCompatibilityFlags = try reader.u(32, "general_profile_compatibility_flag")
            generalConstraintIndicatorFlags = try reader.u64(48, "general_constraint_indicator_flags")
        }
        generalLevelIdc = UInt8(try reader.u(8, "general_level_idc"))

        var layers = [SubLayer](repeating: SubLayer(), count: maxNumSubLayersMinus1)
        for i in 0..<maxNumSubLayersMinus1 {
            layers[i].subLayerProfilePresentFlag = try reader.flag("sub_layer_profile_present_flag")
            layers[i].subLayerLevelPresentFlag = try reader.flag("sub_layer_level_present_flag")
        }
        if maxNumSubLayersMinus1 > 0 {
            for _ in maxNumSubLayersMinus1..<8 {
                _ = try reader.u(2, "reserved_zero_2bits")
            }
        }
        for i in 0..<maxNumSubLayersMinus1 {
            if layers[i].subLayerProfilePresentFlag {
                layers[i].subLayerProfileSpace = UInt8(try reader.u(2, "sub_layer_profile_space"))
                layers[i].subLayerTierFlag = try reader.flag("sub_layer_tier_flag")
                layers[i].subLayerProfileIdc = UInt8(try reader.u(5, "sub_layer_profile_idc"))
                layers[i].subLayerProfileCompatibilityFlags = try reader.u(32, "sub_layer_profile_compatibility_flag")
                layers[i].subLayerConstraintIndicatorFlags = try reader.u64(48, "sub_layer_constraint_indicator_flags")
            }
            if layers[i].subLayerLevelPresentFlag {
                layers[i].subLayerLevelIdc = UInt8(try reader.u(8, "sub_layer_level_idc"))
            }
        }
        subLayers = layers
    }

    /// `general_profile_compatibility_flag[j]`; `false` outside 0...31.
    public func generalProfileCompatibilityFlag(_ j: Int) -> Bool {
        guard (0...31).contains(j) else { return false }
        return generalProfileCompatibilityFlags >> UInt32(31 - j) & 1 == 1
    }

    /// `general_progressive_source_flag` (bit 47 of ``generalConstraintIndicatorFlags``).
    public var generalProgressiveSourceFlag: Bool { generalConstraintIndicatorFlags >> 47 & 1 == 1 }
    /// `general_interlaced_source_flag` (bit 46).
    public var generalInterlacedSourceFlag: Bool { generalConstraintIndicatorFlags >> 46 & 1 == 1 }
    /// `general_non_packed_constraint_flag` (bit 45).
    public var generalNonPackedConstraintFlag: Bool { generalConstraintIndicatorFlags >> 45 & 1 == 1 }
    /// `general_frame_only_constraint_flag` (bit 44).
    public var generalFrameOnlyConstraintFlag: Bool { generalConstraintIndicatorFlags >> 44 & 1 == 1 }

    /// The profile as decoders report it: `general_profile_idc`, or the highest compatibility flag
    /// set when that is 0 (see ``HEVCProfile/init(profileIdc:compatibilityFlags:)``).
    public var profile: HEVCProfile {
        HEVCProfile(profileIdc: generalProfileIdc, compatibilityFlags: generalProfileCompatibilityFlags)
    }

    /// The profile name as `ffprobe` prints it ("Main", "Main 10", "Rext", …).
    public var profileName: String { profile.ffmpegName }

    /// "Main" or "High" (`general_tier_flag`, Table A.8).
    public var tierName: String { generalTierFlag ? "High" : "Main" }

    /// The level number: `general_level_idc` / 30, as "3", "3.1", "6.2". A value that is not a
    /// multiple of 3 names no level of Table A.8 and is shown as the fraction, e.g. "31/30".
    public var levelName: String { Self.levelName(generalLevelIdc) }

    /// The level number for a `general_level_idc` / `sub_layer_level_idc` value.
    public static func levelName(_ levelIdc: UInt8) -> String {
        guard levelIdc % 3 == 0 else { return "\(levelIdc)/30" }
        let major = levelIdc / 30
        let minor = (levelIdc % 30) / 3
        return minor == 0 ? "\(major)" : "\(major).\(minor)"
    }
}
