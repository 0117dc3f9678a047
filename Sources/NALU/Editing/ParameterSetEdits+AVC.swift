/// ``ParameterSetEdits`` on an H.264 SPS (ITU-T H.264 7.3.2.1.1, VUI E.1.1).
extension ParameterSetEdits {
    /// The SPS with the edits applied: the VUI is added when needed, the presence flags
    /// (`aspect_ratio_info_present_flag`, `video_signal_type_present_flag`,
    /// `colour_description_present_flag`, `timing_info_present_flag`, `frame_cropping_flag`) set
    /// as the new values require. Unedited fields keep their values; write it with
    /// ``AVCSequenceParameterSet/nalUnit(header:)``.
    /// - Throws: ``NALUError/Code/invalidValue`` naming the option (`--level`, `--crop`, `--sar`,
    ///   `--fps`) when a value cannot be coded in this SPS.
    public func apply(to input: AVCSequenceParameterSet) throws(NALUError) -> AVCSequenceParameterSet {
        var sps = input
        if let level {
            let idc = level.avcLevelIdc
            guard level.is1b || Level.avcLevels.contains(idc) else {
                throw NALUError(.invalidValue, field: "--level", detail: "\(level) is not an H.264 level (Table A-1)")
            }
            // Level 1b: level_idc 11 with constraint_set3_flag in Baseline, Main and Extended, else 9 (A.3.1, A.3.2).
            let legacyProfile = [66, 77, 88].contains(sps.profileIdc)
            if level.is1b {
                sps.levelIdc = legacyProfile ? 11 : 9
                if legacyProfile { sps.constraintSetFlags |= 0x10 }
            } else {
                sps.levelIdc = UInt8(idc)
                if legacyProfile && idc == 11 { sps.constraintSetFlags &= ~0x10 }
            }
        }
        if let crop {
            let chromaArrayType = sps.chromaArrayType
            let fieldFactor = sps.frameMbsOnlyFlag ? 1 : 2
            let unitX = chromaArrayType == 1 || chromaArrayType == 2 ? 2 : 1
            let unitY = (chromaArrayType == 1 ? 2 : 1) * fieldFactor
            let chroma = ["monochrome", "4:2:0", "4:2:2", "4:4:4"][min(max(sps.chromaFormatIdc, 0), 3)]
                + (fieldFactor == 2 ? ", field coding" : "")
            let units = try Self.cropUnits(crop, unitX: unitX, unitY: unitY, codedWidth: sps.codedWidth,
                                           codedHeight: sps.codedHeight, chroma: chroma)
            sps.frameCropLeftOffset = units.0
            sps.frameCropRightOffset = units.1
            sps.frameCropTopOffset = units.2
            sps.frameCropBottomOffset = units.3
            sps.frameCroppingFlag = units != (0, 0, 0, 0)
        }
        if editsVUI {
            var vui = sps.vuiParameters ?? AVCVUIParameters()
            try applyVideoSignal(to: &vui)
            if let frameRate {
                let (tick, scale) = try Self.timing(frameRate, timeScaleFactor: 2)
                if !vui.timingInfoPresentFlag { vui.fixedFrameRateFlag = true }
                vui.timingInfoPresentFlag = true
                vui.numUnitsInTick = tick
                vui.timeScale = scale
            }
            sps.vuiParameters = vui
        }
        return sps
    }
}
