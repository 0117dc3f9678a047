/// ``ParameterSetEdits`` on an H.265 SPS (ITU-T H.265 7.3.2.2.1, VUI E.2.1) and VPS (7.3.2.1).
extension ParameterSetEdits {
    /// The SPS with the edits applied (see the H.264 overload): `general_level_idc` in its
    /// `profile_tier_level()`, the conformance window, and the VUI (added when needed).
    public func apply(to input: HEVCSequenceParameterSet) throws(NALUError) -> HEVCSequenceParameterSet {
        var sps = input
        if let level { sps.profileTierLevel.generalLevelIdc = try Self.hevcLevelIdc(level) }
        if let crop {
            let chroma = ["monochrome", "4:2:0", "4:2:2", "4:4:4"][min(max(sps.chromaFormatIdc, 0), 3)]
            let units = try Self.cropUnits(crop, unitX: sps.subWidthC, unitY: sps.subHeightC,
                                           codedWidth: sps.picWidthInLumaSamples, codedHeight: sps.picHeightInLumaSamples,
                                           chroma: chroma)
            sps.confWinLeftOffset = units.0
            sps.confWinRightOffset = units.1
            sps.confWinTopOffset = units.2
            sps.confWinBottomOffset = units.3
            sps.conformanceWindowFlag = units != (0, 0, 0, 0)
        }
        if editsVUI {
            var vui = sps.vuiParametersPresentFlag ? (sps.vuiParameters ?? HEVCVUIParameters()) : HEVCVUIParameters()
            try applyVideoSignal(to: &vui)
            if let frameRate {
                let (tick, scale) = try Self.timing(frameRate, timeScaleFactor: 1)
                vui.vuiTimingInfoPresentFlag = true
                vui.vuiNumUnitsInTick = tick
                vui.vuiTimeScale = scale
            }
            sps.vuiParametersPresentFlag = true
            sps.vuiParameters = vui
        }
        return sps
    }

    /// The VPS with the edits applied: `general_level_idc` and the VPS timing
    /// (`vps_timing_info_present_flag`, `vps_num_units_in_tick`, `vps_time_scale`).
    public func apply(to input: HEVCVideoParameterSet) throws(NALUError) -> HEVCVideoParameterSet {
        var vps = input
        if let level { vps.profileTierLevel.generalLevelIdc = try Self.hevcLevelIdc(level) }
        if let frameRate {
            let (tick, scale) = try Self.timing(frameRate, timeScaleFactor: 1)
            vps.vpsTimingInfoPresentFlag = true
            vps.vpsNumUnitsInTick = tick
            vps.vpsTimeScale = scale
        }
        return vps
    }

    /// Whether the VPS changes at all.
    var editsVPS: Bool { level != nil || frameRate != nil }

    static func hevcLevelIdc(_ level: Level) throws(NALUError) -> UInt8 {
        let idc = level.hevcLevelIdc
        guard !level.is1b, Level.hevcLevels.contains(idc) else {
            throw NALUError(.invalidValue, field: "--level", detail: "\(level) is not an H.265 level (Table A.8)")
        }
        return UInt8(idc)
    }
}
