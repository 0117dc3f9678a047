/// The limits of one H.264 level, ITU-T H.264 Table A-1 ("Level limits").
///
/// Values are exactly the table's; bit rates are in units of `cpbBrVclFactor`/`cpbBrNalFactor`
/// bits per second and CPB sizes in units of those factors' bits (Table A-1 footnote; A.3.1,
/// A.3.3, Table A-2), so `maxBR` 10000 at level 3 is 10 Mbit/s of VCL data for the Baseline,
/// Main and Extended profiles (factor 1000) and 12.5 Mbit/s for High (1250).
public struct AVCLevelLimits: Hashable, Sendable {
    /// The level's name: "1", "1b", "1.1" … "6.2".
    public let name: String
    /// `level_idc` (9 for level 1b when signalled that way).
    public let levelIdc: Int
    /// MaxMBPS: maximum macroblock processing rate, macroblocks per second.
    public let maxMBPS: Int
    /// MaxFS: maximum frame size, macroblocks.
    public let maxFS: Int
    /// MaxDpbMbs: maximum decoded picture buffer size, macroblocks.
    public let maxDpbMbs: Int
    /// MaxBR: maximum video bit rate, in 1000 (or cpbBrVclFactor) bits/s.
    public let maxBR: Int
    /// MaxCPB: maximum CPB size, in 1000 (or cpbBrVclFactor) bits.
    public let maxCPB: Int

    /// Table A-1, in its order, level 1b once (its `level_idc` is 11 with constraint_set3_flag
    /// in the Baseline, Constrained Baseline, Main and Extended profiles, or 9: see
    /// ``limits(levelIdc:constraintSet3Flag:profileIdc:)``).
    public static let table: [AVCLevelLimits] = [
        AVCLevelLimits(name: "1", levelIdc: 10, maxMBPS: 1485, maxFS: 99, maxDpbMbs: 396, maxBR: 64, maxCPB: 175),
        AVCLevelLimits(name: "1b", levelIdc: 9, maxMBPS: 1485, maxFS: 99, maxDpbMbs: 396, maxBR: 128, maxCPB: 350),
        AVCLevelLimits(name: "1.1", levelIdc: 11, maxMBPS: 3000, maxFS: 396, maxDpbMbs: 900, maxBR: 192, maxCPB: 500),
        AVCLevelLimits(name: "1.2", levelIdc: 12, maxMBPS: 6000, maxFS: 396, maxDpbMbs: 2376, maxBR: 384, maxCPB: 1000),
        AVCLevelLimits(name: "1.3", levelIdc: 13, maxMBPS: 11880, maxFS: 396, maxDpbMbs: 2376, maxBR: 768, maxCPB: 2000),
        AVCLevelLimits(name: "2", levelIdc: 20, maxMBPS: 11880, maxFS: 396, maxDpbMbs: 2376, maxBR: 2000, maxCPB: 2000),
        AVCLevelLimits(name: "2.1", levelIdc: 21, maxMBPS: 19800, maxFS: 792, maxDpbMbs: 4752, maxBR: 4000, maxCPB: 4000),
        AVCLevelLimits(name: "2.2", levelIdc: 22, maxMBPS: 20250, maxFS: 1620, maxDpbMbs: 8100, maxBR: 4000, maxCPB: 4000),
        AVCLevelLimits(name: "3", levelIdc: 30, maxMBPS: 40500, maxFS: 1620, maxDpbMbs: 8100, maxBR: 10000, maxCPB: 10000),
        AVCLevelLimits(name: "3.1", levelIdc: 31, maxMBPS: 108000, maxFS: 3600, maxDpbMbs: 18000, maxBR: 14000, maxCPB: 14000),
        AVCLevelLimits(name: "3.2", levelIdc: 32, maxMBPS: 216000, maxFS: 5120, maxDpbMbs: 20480, maxBR: 20000, maxCPB: 20000),
        AVCLevelLimits(name: "4", levelIdc: 40, maxMBPS: 245760, maxFS: 8192, maxDpbMbs: 32768, maxBR: 20000, maxCPB: 25000),
        AVCLevelLimits(name: "4.1", levelIdc: 41, maxMBPS: 245760, maxFS: 8192, maxDpbMbs: 32768, maxBR: 50000, maxCPB: 62500),
        AVCLevelLimits(name: "4.2", levelIdc: 42, maxMBPS: 522240, maxFS: 8704, maxDpbMbs: 34816, maxBR: 50000, maxCPB: 62500),
        AVCLevelLimits(name: "5", levelIdc: 50, maxMBPS: 589824, maxFS: 22080, maxDpbMbs: 110400, maxBR: 135000, maxCPB: 135000),
        AVCLevelLimits(name: "5.1", levelIdc: 51, maxMBPS: 983040, maxFS: 36864, maxDpbMbs: 184320, maxBR: 240000, maxCPB: 240000),
        AVCLevelLimits(name: "5.2", levelIdc: 52, maxMBPS: 2073600, maxFS: 36864, maxDpbMbs: 184320, maxBR: 240000, maxCPB: 240000),
        AVCLevelLimits(name: "6", levelIdc: 60, maxMBPS: 4177920, maxFS: 139264, maxDpbMbs: 696320, maxBR: 240000, maxCPB: 240000),
        AVCLevelLimits(name: "6.1", levelIdc: 61, maxMBPS: 8355840, maxFS: 139264, maxDpbMbs: 696320, maxBR: 480000, maxCPB: 480000),
        AVCLevelLimits(name: "6.2", levelIdc: 62, maxMBPS: 16711680, maxFS: 139264, maxDpbMbs: 696320, maxBR: 800000, maxCPB: 800000),
    ]

    /// The limits a sequence parameter set signals: `level_idc` 11 with `constraint_set3_flag`
    /// in the Baseline (66), Main (77) or Extended (88) profile is level 1b (A.3.1, 7.4.2.1.1),
    /// as is `level_idc` 9; `nil` for a `level_idc` Table A-1 does not list.
    public static func limits(levelIdc: Int, constraintSet3Flag: Bool, profileIdc: Int) -> AVCLevelLimits? {
        if levelIdc == 11 && constraintSet3Flag && [66, 77, 88].contains(profileIdc) { return table[1] }
        return table.first { $0.levelIdc == levelIdc }
    }

    /// The limits of `sps`'s level.
    public static func limits(of sps: AVCSequenceParameterSet) -> AVCLevelLimits? {
        limits(levelIdc: Int(sps.levelIdc), constraintSet3Flag: sps.constraintSet3Flag, profileIdc: Int(sps.profileIdc))
    }

    /// MaxDpbFrames = Min(MaxDpbMbs / (PicWidthInMbs * FrameHeightInMbs), 16) (A.3.1 item h,
    /// A.3.2 item f); 0 for an empty frame size.
    public func maxDpbFrames(picWidthInMbs: Int, frameHeightInMbs: Int) -> Int {
        let (frameMbs, overflow) = picWidthInMbs.multipliedReportingOverflow(by: frameHeightInMbs)
        guard !overflow, frameMbs > 0 else { return 0 }
        return min(maxDpbMbs / frameMbs, 16)
    }

    /// cpbBrNalFactor of Table A-2 for `profileIdc`: 1.2 times ``cpbBrVclFactor(profileIdc:)``
    /// (1200, 1500, 3600, 4800), the factor for a NAL unit stream's bit rate (A.3.1 j).
    public static func cpbBrNalFactor(profileIdc: Int) -> Int {
        cpbBrVclFactor(profileIdc: profileIdc) * 6 / 5
    }

    /// cpbBrVclFactor of Table A-2 for `profileIdc`: 1250 for High, 3000 for High 10, 4000 for
    /// High 4:2:2, High 4:4:4 Predictive and CAVLC 4:4:4 Intra, 1000 otherwise (A.3.1, A.3.3).
    public static func cpbBrVclFactor(profileIdc: Int) -> Int {
        switch profileIdc {
        case 100: 1250
        case 110: 3000
        case 122, 244, 44: 4000
        default: 1000
        }
    }
}
