import NALU
import Testing

/// The level tables against the numbers of ITU-T H.264 Table A-1 and H.265 Tables A.8/A.9.
@Suite struct LevelLimitsTests {
    @Test func avcTableA1() throws {
        #expect(AVCLevelLimits.table.count == 20)
        let l31 = try #require(AVCLevelLimits.limits(levelIdc: 31, constraintSet3Flag: false, profileIdc: 100))
        #expect([l31.maxMBPS, l31.maxFS, l31.maxDpbMbs, l31.maxBR, l31.maxCPB] == [108000, 3600, 18000, 14000, 14000])
        let l41 = try #require(AVCLevelLimits.limits(levelIdc: 41, constraintSet3Flag: false, profileIdc: 100))
        #expect([l41.maxMBPS, l41.maxFS, l41.maxDpbMbs, l41.maxBR, l41.maxCPB] == [245760, 8192, 32768, 50000, 62500])
        let l52 = try #require(AVCLevelLimits.limits(levelIdc: 52, constraintSet3Flag: false, profileIdc: 100))
        #expect([l52.maxMBPS, l52.maxFS, l52.maxDpbMbs, l52.maxBR, l52.maxCPB] == [2073600, 36864, 184320, 240000, 240000])
        let l62 = try #require(AVCLevelLimits.limits(levelIdc: 62, constraintSet3Flag: false, profileIdc: 100))
        #expect([l62.maxMBPS, l62.maxFS, l62.maxDpbMbs, l62.maxBR, l62.maxCPB] == [16711680, 139264, 696320, 800000, 800000])
        // Level 1b: level_idc 11 with constraint_set3_flag in Baseline/Main/Extended, or 9.
        #expect(AVCLevelLimits.limits(levelIdc: 11, constraintSet3Flag: true, profileIdc: 66)?.name == "1b")
        #expect(AVCLevelLimits.limits(levelIdc: 11, constraintSet3Flag: true, profileIdc: 100)?.name == "1.1")
        #expect(AVCLevelLimits.limits(levelIdc: 9, constraintSet3Flag: false, profileIdc: 100)?.maxBR == 128)
        #expect(AVCLevelLimits.limits(levelIdc: 14, constraintSet3Flag: false, profileIdc: 100) == nil)
        // MaxDpbFrames for 1920x1088 (120x68 macroblocks) at level 4.1: 32768 / 8160 = 4.
        #expect(l41.maxDpbFrames(picWidthInMbs: 120, frameHeightInMbs: 68) == 4)
        #expect(l52.maxDpbFrames(picWidthInMbs: 20, frameHeightInMbs: 12) == 16)
        #expect(AVCLevelLimits.cpbBrVclFactor(profileIdc: 100) == 1250)
        // Table A-2: cpbBrNalFactor 1200 (Baseline, Main, Extended), 1500 (High), 3600 (High 10), 4800 (High 4:2:2, 4:4:4).
        #expect([66, 77, 88, 100, 110, 122, 244].map { AVCLevelLimits.cpbBrNalFactor(profileIdc: $0) } == [1200, 1200, 1200, 1500, 3600, 4800, 4800])
    }

    @Test func hevcTablesA8A9() throws {
        #expect(HEVCLevelLimits.table.count == 13)
        let l41 = try #require(HEVCLevelLimits.limits(levelIdc: 123))
        #expect([l41.maxLumaPs, l41.maxCPBMain, l41.maxCPBHigh, l41.maxSliceSegmentsPerPicture, l41.maxTileRows, l41.maxTileCols]
                == [2228224, 20000, 50000, 75, 5, 5])
        #expect([l41.maxLumaSr, l41.maxBRMain, l41.maxBRHigh] == [133693440, 20000, 50000])
        let l1 = try #require(HEVCLevelLimits.limits(levelIdc: 30))
        #expect(l1.maxCPBHigh == nil && l1.maxBRHigh == nil && l1.maxLumaPs == 36864 && l1.maxLumaSr == 552960)
        #expect(l41.maxBR(highTier: true) == 50000 && l1.maxBR(highTier: true) == nil && l1.maxBR(highTier: false) == 128)
        #expect(HEVCLevelLimits.cpbNalFactor(profileIdc: 1) == 1100 && HEVCLevelLimits.cpbNalFactor(profileIdc: 4) == nil)
        let l62 = try #require(HEVCLevelLimits.limits(levelIdc: 186))
        #expect(l62.maxLumaSr == 4278190080 && l62.maxBRHigh == 800000 && l62.maxSliceSegmentsPerPicture == 600)
        // A.4.2 maxDpbSize: 1920x1080 at level 4.1 (2073600 > 3/4 of 2228224) is maxDpbPicBuf = 6;
        // 1280x720 (921600 ≤ MaxLumaPs / 2) is 12; 640x360 (≤ MaxLumaPs / 4) is 16.
        #expect(l41.maxDpbSize(picSizeInSamplesY: 1920 * 1080) == 6)
        #expect(l41.maxDpbSize(picSizeInSamplesY: 1280 * 720) == 12)
        #expect(l41.maxDpbSize(picSizeInSamplesY: 640 * 360) == 16)
        #expect(l41.maxDpbSize(picSizeInSamplesY: 1600 * 1000) == 8)
        // Sqrt(MaxLumaPs * 8): 4222 at level 4.1 (4222² = 17825284 ≤ 17825792), 543 at level 1.
        #expect(l41.maxDimension == 4222)
        #expect(l1.maxDimension == 543)
    }
}
