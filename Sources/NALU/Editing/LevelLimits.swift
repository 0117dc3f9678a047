/// The few level limits `nalu edit --level` checks a stream against, to warn when the level
/// written is below what the stream needs: the picture size and the decoded picture buffer
/// (ITU-T H.264 Table A-1: MaxFS, MaxDpbMbs, MaxMBPS; ITU-T H.265 Table A.8: MaxLumaPs, and
/// Table A.9: MaxLumaSr). Not a full conformance check.
package enum EditLevelLimits {
    /// H.264 Table A-1 rows: `level_idc` (9 for 1b) → (MaxMBPS, MaxFS, MaxDpbMbs).
    static let avc: [Int: (maxMBPS: Int, maxFS: Int, maxDpbMbs: Int)] = [
        9: (1485, 99, 396), 10: (1485, 99, 396), 11: (3000, 396, 900), 12: (6000, 396, 2376),
        13: (11880, 396, 2376), 20: (11880, 396, 2376), 21: (19800, 792, 4752), 22: (20250, 1620, 8100),
        30: (40500, 1620, 8100), 31: (108000, 3600, 18000), 32: (216000, 5120, 20480),
        40: (245760, 8192, 32768), 41: (245760, 8192, 32768), 42: (522240, 8704, 34816),
        50: (589824, 22080, 110400), 51: (983040, 36864, 184320), 52: (2073600, 36864, 184320),
        60: (4177920, 139264, 696320), 61: (8355840, 139264, 696320), 62: (16711680, 139264, 696320),
    ]

    /// H.265 Tables A.8/A.9 rows: `general_level_idc` → (MaxLumaPs, MaxLumaSr).
    static let hevc: [Int: (maxLumaPs: Int, maxLumaSr: Int)] = [
        30: (36864, 552960), 60: (122880, 3686400), 63: (245760, 7372800), 90: (552960, 16588800),
        93: (983040, 33177600), 120: (2228224, 66846720), 123: (2228224, 133693440),
        150: (8912896, 267386880), 153: (8912896, 534773760), 156: (8912896, 1069547520),
        180: (35651584, 1069547520), 183: (35651584, 2139095040), 186: (35651584, 4278190080),
    ]

    /// What an H.264 SPS needs beyond its `level_idc` (A.3.1): the frame size against MaxFS and
    /// √(8·MaxFS) per dimension, `max_num_ref_frames` frames against MaxDpbMbs, and the
    /// macroblock rate (at the VUI frame rate) against MaxMBPS. Empty when it fits.
    package static func warnings(for sps: AVCSequenceParameterSet) -> [String] {
        let idc = sps.isLevel1b ? 9 : Int(sps.levelIdc)
        guard let limits = avc[idc] else { return [] }
        let level = "level \(sps.levelName)"
        var found: [String] = []
        let widthMbs = sps.picWidthInMbs
        let heightMbs = sps.frameHeightInMbs
        let frameSize = widthMbs * heightMbs
        if frameSize > limits.maxFS {
            found.append("\(frameSize) macroblocks per frame exceed MaxFS \(limits.maxFS) of \(level)")
        }
        let side = Int((8 * Double(limits.maxFS)).squareRoot())
        if widthMbs > side || heightMbs > side {
            found.append("\(widthMbs)x\(heightMbs) macroblocks exceed √(8·MaxFS) = \(side) of \(level)")
        }
        if sps.maxNumRefFrames * frameSize > limits.maxDpbMbs {
            found.append("\(sps.maxNumRefFrames) reference frames of \(frameSize) macroblocks exceed MaxDpbMbs \(limits.maxDpbMbs) of \(level)")
        }
        if let rate = sps.frameRate, rate.denominator > 0 {
            let perSecond = Double(frameSize) * Double(rate.numerator) / Double(rate.denominator)
            if perSecond > Double(limits.maxMBPS) {
                found.append("\(Int(perSecond)) macroblocks per second exceed MaxMBPS \(limits.maxMBPS) of \(level)")
            }
        }
        return found
    }

    /// What an H.265 SPS needs beyond its `general_level_idc` (A.4.1): the picture size against
    /// MaxLumaPs and √(8·MaxLumaPs) per dimension, and the luma sample rate at the VUI frame rate
    /// against MaxLumaSr.
    package static func warnings(for sps: HEVCSequenceParameterSet) -> [String] {
        guard let limits = hevc[Int(sps.profileTierLevel.generalLevelIdc)] else { return [] }
        let level = "level \(sps.levelName)"
        var found: [String] = []
        let width = sps.picWidthInLumaSamples
        let height = sps.picHeightInLumaSamples
        let (size, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || size > limits.maxLumaPs {
            found.append("\(width)x\(height) luma samples exceed MaxLumaPs \(limits.maxLumaPs) of \(level)")
        }
        let side = Int((8 * Double(limits.maxLumaPs)).squareRoot())
        if width > side || height > side {
            found.append("\(width)x\(height) exceeds √(8·MaxLumaPs) = \(side) of \(level)")
        }
        if let rate = sps.frameRate, rate.denominator > 0, !overflow {
            let perSecond = Double(size) * Double(rate.numerator) / Double(rate.denominator)
            if perSecond > Double(limits.maxLumaSr) {
                found.append("\(Int(perSecond)) luma samples per second exceed MaxLumaSr \(limits.maxLumaSr) of \(level)")
            }
        }
        return found
    }
}
