import Testing
@testable import NALU

@Suite struct HEVCProfileTierLevelTests {
    @Test func subLayerProfilesAndLevels() throws {
        var w = HEVCSyntaxWriter()
        // Three sub-layers below the highest: profile+level, level only, neither.
        w.profileTierLevel(level: 120, subLayers: [(true, true), (false, true), (false, false)])
        w.bits.u(8, 0xA5)                       // a marker after the structure
        var reader = BitReader(RBSP(escaped: w.bits.bytes))
        let ptl = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: 3)
        #expect(try reader.u(8, "marker") == 0xA5)
        #expect(ptl.generalLevelIdc == 120)
        #expect(ptl.levelName == "4")
        #expect(ptl.subLayers.count == 3)
        var first = HEVCProfileTierLevel.SubLayer()
        first.subLayerProfilePresentFlag = true
        first.subLayerLevelPresentFlag = true
        first.subLayerTierFlag = true
        first.subLayerProfileIdc = 2
        first.subLayerProfileCompatibilityFlags = 0x2000_0000
        first.subLayerConstraintIndicatorFlags = 0x8800_0000_0001
        first.subLayerLevelIdc = 60
        #expect(ptl.subLayers[0] == first)
        var second = HEVCProfileTierLevel.SubLayer()
        second.subLayerLevelPresentFlag = true
        second.subLayerLevelIdc = 63
        #expect(ptl.subLayers[1] == second)
        #expect(ptl.subLayers[2] == HEVCProfileTierLevel.SubLayer())
    }

    @Test func maximumSubLayersHaveNoAlignmentBitsLeft() throws {
        // maxNumSubLayersMinus1 = 6: 6 flag pairs then 2 × reserved_zero_2bits (i = 6, 7).
        var w = HEVCSyntaxWriter()
        w.profileTierLevel(subLayers: Array(repeating: (false, false), count: 6))
        w.bits.u(8, 0x3C)
        var reader = BitReader(RBSP(escaped: w.bits.bytes))
        let ptl = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: 6)
        #expect(ptl.subLayers.count == 6)
        #expect(try reader.u(8, "marker") == 0x3C)
        #expect(reader.position == 88 + 8 + 6 * 2 + 2 * 2 + 8)
    }

    @Test func rejectsMoreThanSevenSubLayers() {
        var reader = BitReader(RBSP(escaped: [UInt8](repeating: 0, count: 32)))
        #expect(throws: NALUError.self) { _ = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: 7) }
    }

    @Test func profileNamesMatchFFprobe() {
        #expect(HEVCProfile.main.ffmpegName == "Main")
        #expect(HEVCProfile.main10.ffmpegName == "Main 10")
        #expect(HEVCProfile.mainStillPicture.ffmpegName == "Main Still Picture")
        #expect(HEVCProfile.formatRangeExtensions.ffmpegName == "Rext")
        #expect(HEVCProfile.multiviewMain.ffmpegName == "Multiview Main")
        #expect(HEVCProfile.screenContentCoding.ffmpegName == "Scc")
        // Profiles FFmpeg has no name for: ffprobe prints the number.
        #expect(HEVCProfile.highThroughput.ffmpegName == "5")
        #expect(HEVCProfile(rawValue: 0).ffmpegName == "0")
        #expect(HEVCProfile.screenContentCoding.specName == "Screen Content Coding Extensions")
        #expect(HEVCProfile(rawValue: 30).specName == nil)
    }

    @Test func profileIdcZeroFallsBackToCompatibilityFlags() {
        // FFmpeg's hevc_ps.c: with general_profile_idc 0 the highest j > 0 whose
        // general_profile_compatibility_flag[j] is set wins.
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0x6000_0000) == .main10)      // flags 1, 2
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0x4000_0000) == .main)        // flag 1
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0x0800_0000) == .formatRangeExtensions)
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0x8000_0000).rawValue == 0)   // flag 0 ignored
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0x0000_0001).rawValue == 31)
        #expect(HEVCProfile(profileIdc: 0, compatibilityFlags: 0).rawValue == 0)
        #expect(HEVCProfile(profileIdc: 1, compatibilityFlags: 0x2000_0000) == .main)         // idc wins
        let ptl = HEVCProfileTierLevel(generalProfileIdc: 0, generalProfileCompatibilityFlags: 0x1000_0000,
                                       generalConstraintIndicatorFlags: 0, generalLevelIdc: 93)
        #expect(ptl.profileName == "Main Still Picture")
        #expect(ptl.generalProfileCompatibilityFlag(3))
        #expect(!ptl.generalProfileCompatibilityFlag(2))
        #expect(!ptl.generalProfileCompatibilityFlag(32))
    }

    @Test func tierAndLevelNames() {
        #expect(HEVCProfileTierLevel.levelName(30) == "1")
        #expect(HEVCProfileTierLevel.levelName(60) == "2")
        #expect(HEVCProfileTierLevel.levelName(63) == "2.1")
        #expect(HEVCProfileTierLevel.levelName(93) == "3.1")
        #expect(HEVCProfileTierLevel.levelName(153) == "5.1")
        #expect(HEVCProfileTierLevel.levelName(156) == "5.2")
        #expect(HEVCProfileTierLevel.levelName(186) == "6.2")
        #expect(HEVCProfileTierLevel.levelName(31) == "31/30")
        let high = HEVCProfileTierLevel(generalTierFlag: true, generalProfileIdc: 1, generalProfileCompatibilityFlags: 0,
                                        generalConstraintIndicatorFlags: 0, generalLevelIdc: 150)
        #expect(high.tierName == "High")
        #expect(high.levelName == "5")
    }
}
