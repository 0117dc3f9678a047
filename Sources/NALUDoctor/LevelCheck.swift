public import NALU
import NALUMedia

/// Which limits of a level a sequence exceeds (H.264 A.3.1/A.3.2 with Table A-1; H.265 A.4.1/A.4.2
/// with Tables A.8 and A.9), and the lowest level it fits.
public enum LevelCheck {
    /// The H.264 limits `sps` exceeds at `limits`, as readable reasons (empty when it fits):
    /// frame size against MaxFS and the width/height bounds Sqrt(8 · MaxFS) (A.3.1 f, g), the
    /// DPB (`max_dec_frame_buffering`, or `max_num_ref_frames` without it) against MaxDpbFrames
    /// (A.3.1 h), and, when the frame rate is known, the macroblock rate against MaxMBPS.
    public static func violations(_ sps: AVCSequenceParameterSet, _ limits: AVCLevelLimits, frameRate: Rational?) -> [String] {
        var reasons: [String] = []
        let (frameMbs, overflow) = sps.picWidthInMbs.multipliedReportingOverflow(by: sps.frameHeightInMbs)
        guard !overflow else { return ["the frame size overflows"] }
        if frameMbs > limits.maxFS { reasons.append("frame size \(frameMbs) macroblocks > MaxFS \(limits.maxFS)") }
        let bound = 8 * limits.maxFS
        for (name, value) in [("width", sps.picWidthInMbs), ("height", sps.frameHeightInMbs)] {
            let (square, over) = value.multipliedReportingOverflow(by: value)
            if over || square > bound { reasons.append("\(name) \(value) macroblocks > Sqrt(8 * MaxFS)") }
        }
        let dpbFrames = limits.maxDpbFrames(picWidthInMbs: sps.picWidthInMbs, frameHeightInMbs: sps.frameHeightInMbs)
        let buffering = sps.vuiParameters?.maxDecFrameBuffering
        let needed = buffering ?? sps.maxNumRefFrames
        if needed > dpbFrames {
            let field = buffering == nil ? "max_num_ref_frames" : "max_dec_frame_buffering"
            reasons.append("\(field) \(needed) > MaxDpbFrames \(dpbFrames) (MaxDpbMbs \(limits.maxDpbMbs) / \(frameMbs))")
        }
        if let rate = frameRate, rate.numerator > 0, rate.denominator > 0 {
            if exceeds(Int64(frameMbs), rate, limit: Int64(limits.maxMBPS)) {
                reasons.append("\(perSecondText(frameMbs, rate)) macroblocks/s at \(rateText(rate)) fps > MaxMBPS \(limits.maxMBPS)")
            }
        }
        return reasons
    }

    /// The H.265 limits `sps` exceeds at `limits`: the High tier below level 4 (Table A.8 has
    /// none there), luma picture size against MaxLumaPs, width
    /// and height against Sqrt(MaxLumaPs · 8) (A.4.1 a, b), `sps_max_dec_pic_buffering_minus1`
    /// + 1 of the highest sub-layer against maxDpbSize (A.4.2, equation A-2), and, when the frame
    /// rate is known, the luma sample rate against MaxLumaSr (A.4.2, Table A.9).
    public static func violations(_ sps: HEVCSequenceParameterSet, _ limits: HEVCLevelLimits, frameRate: Rational?) -> [String] {
        var reasons: [String] = []
        let width = sps.picWidthInLumaSamples, height = sps.picHeightInLumaSamples
        let (picSize, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else { return ["the picture size overflows"] }
        if sps.profileTierLevel.generalTierFlag && limits.maxBRHigh == nil {
            reasons.append("general_tier_flag 1 (High tier), which levels below 4 do not have")
        }
        if picSize > limits.maxLumaPs { reasons.append("picture size \(picSize) luma samples > MaxLumaPs \(limits.maxLumaPs)") }
        if width > limits.maxDimension { reasons.append("width \(width) > Sqrt(MaxLumaPs * 8) = \(limits.maxDimension)") }
        if height > limits.maxDimension { reasons.append("height \(height) > Sqrt(MaxLumaPs * 8) = \(limits.maxDimension)") }
        if let buffering = sps.subLayerOrderingInfo.last?.maxDecPicBufferingMinus1 {
            let dpbSize = limits.maxDpbSize(picSizeInSamplesY: picSize)
            if buffering + 1 > dpbSize {
                reasons.append("sps_max_dec_pic_buffering_minus1 + 1 = \(buffering + 1) > maxDpbSize \(dpbSize)")
            }
        }
        if let rate = frameRate, rate.numerator > 0, rate.denominator > 0 {
            if exceeds(Int64(picSize), rate, limit: Int64(limits.maxLumaSr)) {
                reasons.append("\(perSecondText(picSize, rate)) luma samples/s at \(rateText(rate)) fps > MaxLumaSr \(limits.maxLumaSr)")
            }
        }
        return reasons
    }

    /// The lowest level of Table A-1 (1b aside) whose limits `sps` fits.
    public static func lowestLevel(for sps: AVCSequenceParameterSet, frameRate: Rational?) -> AVCLevelLimits? {
        AVCLevelLimits.table.first { $0.name != "1b" && violations(sps, $0, frameRate: frameRate).isEmpty }
    }

    /// The lowest level of Table A.8 whose limits `sps` fits.
    public static func lowestLevel(for sps: HEVCSequenceParameterSet, frameRate: Rational?) -> HEVCLevelLimits? {
        HEVCLevelLimits.table.first { violations(sps, $0, frameRate: frameRate).isEmpty }
    }

    /// Whether `perFrame · rate` passes `limit` per second, compared exactly as
    /// `perFrame · numerator > limit · denominator` (an overflowing side is the larger).
    static func exceeds(_ perFrame: Int64, _ rate: Rational, limit: Int64) -> Bool {
        let (left, leftOverflow) = perFrame.multipliedReportingOverflow(by: rate.numerator)
        let (right, rightOverflow) = limit.multipliedReportingOverflow(by: rate.denominator)
        if leftOverflow || rightOverflow { return leftOverflow && !rightOverflow }
        return left > right
    }

    /// `perFrame · rate` per second, rounded, for messages.
    static func perSecondText(_ perFrame: Int, _ rate: Rational) -> String {
        let value = (Double(perFrame) * Double(rate.numerator) / Double(rate.denominator)).rounded()
        return value.magnitude < 1e15 ? String(Int64(value)) : String(value)
    }

    static func rateText(_ rate: Rational) -> String {
        rate.denominator == 1 ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator)"
    }
}
