/// The limits of one H.265 level, ITU-T H.265 Annex A.4.1, Table A.8 ("General tier and level
/// limits": MaxLumaPs, MaxCPB per tier, MaxSliceSegmentsPerPicture, MaxTileRows, MaxTileCols)
/// and Table A.9 ("Tier and level limits for the video profiles": MaxLumaSr, MaxBR per tier).
///
/// Values are exactly the tables'. CPB sizes and bit rates are in units of CpbVclFactor
/// (1000 for Main and Main 10) bits and bits per second; `nil` for the High tier below level 4,
/// which has none.
public struct HEVCLevelLimits: Hashable, Sendable {
    /// The level's name: "1", "2", "2.1" … "6.2".
    public let name: String
    /// `general_level_idc`: 30 times the level number.
    public let levelIdc: Int
    /// MaxLumaPs: maximum luma picture size, samples.
    public let maxLumaPs: Int
    /// MaxCPB, Main tier (units of CpbVclFactor bits).
    public let maxCPBMain: Int
    /// MaxCPB, High tier.
    public let maxCPBHigh: Int?
    /// MaxSliceSegmentsPerPicture.
    public let maxSliceSegmentsPerPicture: Int
    /// MaxTileRows.
    public let maxTileRows: Int
    /// MaxTileCols.
    public let maxTileCols: Int
    /// MaxLumaSr: maximum luma sample rate, samples per second (Table A.9).
    public let maxLumaSr: Int
    /// MaxBR, Main tier (units of CpbVclFactor bits/s; Table A.9).
    public let maxBRMain: Int
    /// MaxBR, High tier.
    public let maxBRHigh: Int?

    /// Tables A.8 and A.9, in level order.
    public static let table: [HEVCLevelLimits] = [
        HEVCLevelLimits(name: "1", levelIdc: 30, maxLumaPs: 36864, maxCPBMain: 350, maxCPBHigh: nil, maxSliceSegmentsPerPicture: 16,
                        maxTileRows: 1, maxTileCols: 1, maxLumaSr: 552960, maxBRMain: 128, maxBRHigh: nil),
        HEVCLevelLimits(name: "2", levelIdc: 60, maxLumaPs: 122880, maxCPBMain: 1500, maxCPBHigh: nil, maxSliceSegmentsPerPicture: 16,
                        maxTileRows: 1, maxTileCols: 1, maxLumaSr: 3686400, maxBRMain: 1500, maxBRHigh: nil),
        HEVCLevelLimits(name: "2.1", levelIdc: 63, maxLumaPs: 245760, maxCPBMain: 3000, maxCPBHigh: nil, maxSliceSegmentsPerPicture: 20,
                        maxTileRows: 1, maxTileCols: 1, maxLumaSr: 7372800, maxBRMain: 3000, maxBRHigh: nil),
        HEVCLevelLimits(name: "3", levelIdc: 90, maxLumaPs: 552960, maxCPBMain: 6000, maxCPBHigh: nil, maxSliceSegmentsPerPicture: 30,
                        maxTileRows: 2, maxTileCols: 2, maxLumaSr: 16588800, maxBRMain: 6000, maxBRHigh: nil),
        HEVCLevelLimits(name: "3.1", levelIdc: 93, maxLumaPs: 983040, maxCPBMain: 10000, maxCPBHigh: nil, maxSliceSegmentsPerPicture: 40,
                        maxTileRows: 3, maxTileCols: 3, maxLumaSr: 33177600, maxBRMain: 10000, maxBRHigh: nil),
        HEVCLevelLimits(name: "4", levelIdc: 120, maxLumaPs: 2228224, maxCPBMain: 12000, maxCPBHigh: 30000, maxSliceSegmentsPerPicture: 75,
                        maxTileRows: 5, maxTileCols: 5, maxLumaSr: 66846720, maxBRMain: 12000, maxBRHigh: 30000),
        HEVCLevelLimits(name: "4.1", levelIdc: 123, maxLumaPs: 2228224, maxCPBMain: 20000, maxCPBHigh: 50000, maxSliceSegmentsPerPicture: 75,
                        maxTileRows: 5, maxTileCols: 5, maxLumaSr: 133693440, maxBRMain: 20000, maxBRHigh: 50000),
        HEVCLevelLimits(name: "5", levelIdc: 150, maxLumaPs: 8912896, maxCPBMain: 25000, maxCPBHigh: 100000, maxSliceSegmentsPerPicture: 200,
                        maxTileRows: 11, maxTileCols: 10, maxLumaSr: 267386880, maxBRMain: 25000, maxBRHigh: 100000),
        HEVCLevelLimits(name: "5.1", levelIdc: 153, maxLumaPs: 8912896, maxCPBMain: 40000, maxCPBHigh: 160000, maxSliceSegmentsPerPicture: 200,
                        maxTileRows: 11, maxTileCols: 10, maxLumaSr: 534773760, maxBRMain: 40000, maxBRHigh: 160000),
        HEVCLevelLimits(name: "5.2", levelIdc: 156, maxLumaPs: 8912896, maxCPBMain: 60000, maxCPBHigh: 240000, maxSliceSegmentsPerPicture: 200,
                        maxTileRows: 11, maxTileCols: 10, maxLumaSr: 1069547520, maxBRMain: 60000, maxBRHigh: 240000),
        HEVCLevelLimits(name: "6", levelIdc: 180, maxLumaPs: 35651584, maxCPBMain: 60000, maxCPBHigh: 240000, maxSliceSegmentsPerPicture: 600,
                        maxTileRows: 22, maxTileCols: 20, maxLumaSr: 1069547520, maxBRMain: 60000, maxBRHigh: 240000),
        HEVCLevelLimits(name: "6.1", levelIdc: 183, maxLumaPs: 35651584, maxCPBMain: 120000, maxCPBHigh: 480000, maxSliceSegmentsPerPicture: 600,
                        maxTileRows: 22, maxTileCols: 20, maxLumaSr: 2139095040, maxBRMain: 120000, maxBRHigh: 480000),
        HEVCLevelLimits(name: "6.2", levelIdc: 186, maxLumaPs: 35651584, maxCPBMain: 240000, maxCPBHigh: 800000, maxSliceSegmentsPerPicture: 600,
                        maxTileRows: 22, maxTileCols: 20, maxLumaSr: 4278190080, maxBRMain: 240000, maxBRHigh: 800000),
    ]

    /// The limits of `general_level_idc`, or `nil` for a value the tables do not list.
    public static func limits(levelIdc: Int) -> HEVCLevelLimits? {
        table.first { $0.levelIdc == levelIdc }
    }

    /// MaxBR of the tier (`general_tier_flag` 1: High), `nil` for the High tier below level 4.
    public func maxBR(highTier: Bool) -> Int? { highTier ? maxBRHigh : maxBRMain }

    /// CpbNalFactor (A.4.2) of the Main (1) and Main 10 (2) profiles: 1100; `nil` for the
    /// others, whose factors depend on their constraint flags.
    public static func cpbNalFactor(profileIdc: Int) -> Int? {
        profileIdc == 1 || profileIdc == 2 ? 1100 : nil
    }

    /// maxDpbSize of A.4.2 (equation A-2) for a picture of `picSizeInSamplesY` luma samples,
    /// with `maxDpbPicBuf` 6 (7 for the screen content coding profiles):
    ///
    ///     if PicSizeInSamplesY <= (MaxLumaPs >> 2)          maxDpbSize = Min(4 * maxDpbPicBuf, 16)
    ///     else if PicSizeInSamplesY <= (MaxLumaPs >> 1)     maxDpbSize = Min(2 * maxDpbPicBuf, 16)
    ///     else if PicSizeInSamplesY <= ((3 * MaxLumaPs) >> 2)  maxDpbSize = Min((4 * maxDpbPicBuf) / 3, 16)
    ///     else                                              maxDpbSize = maxDpbPicBuf
    public func maxDpbSize(picSizeInSamplesY: Int, maxDpbPicBuf: Int = 6) -> Int {
        if picSizeInSamplesY <= maxLumaPs >> 2 { return min(4 * maxDpbPicBuf, 16) }
        if picSizeInSamplesY <= maxLumaPs >> 1 { return min(2 * maxDpbPicBuf, 16) }
        if picSizeInSamplesY <= (3 * maxLumaPs) >> 2 { return min((4 * maxDpbPicBuf) / 3, 16) }
        return maxDpbPicBuf
    }

    /// The largest picture width or height the level allows, Sqrt(MaxLumaPs * 8) (A.4.1 items
    /// a and b: pic_width_in_luma_samples and pic_height_in_luma_samples ≤ Sqrt(MaxLumaPs * 8)).
    public var maxDimension: Int {
        let bound = maxLumaPs * 8
        var root = Int(Double(bound).squareRoot())
        while root * root > bound { root -= 1 }
        while (root + 1) * (root + 1) <= bound { root += 1 }
        return root
    }
}
