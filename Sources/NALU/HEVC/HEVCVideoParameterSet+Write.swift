/// Writing an H.265 VPS back: `video_parameter_set_rbsp()` (ITU-T H.265 7.3.2.1) from the parsed
/// fields, with its `profile_tier_level()`, timing and `hrd_parameters()`; `vps_extension()` is
/// copied from ``HEVCVideoParameterSet/vpsExtensionDataBits``.
extension HEVCVideoParameterSet {
    /// The RBSP (after the 2-byte NAL unit header), `rbsp_trailing_bits()` included, not escaped.
    public func rbspBytes() -> [UInt8] {
        var writer = BitWriter()
        write(to: &writer)
        writer.rbspTrailingBits()
        return writer.bytes
    }

    /// The escaped NAL unit behind the 2-byte `header`.
    public func nalUnit(header: (UInt8, UInt8) = (0x40, 0x01)) -> [UInt8] {
        [header.0, header.1] + RBSP.escape(rbspBytes())
    }

    /// Writes `video_parameter_set_rbsp()` up to (not including) `rbsp_trailing_bits()`.
    package func write(to w: inout BitWriter) {
        w.u(4, vpsVideoParameterSetId)
        w.flag(vpsBaseLayerInternalFlag)
        w.flag(vpsBaseLayerAvailableFlag)
        w.u(6, vpsMaxLayersMinus1)
        w.u(3, vpsMaxSubLayersMinus1)
        w.flag(vpsTemporalIdNestingFlag)
        w.u(16, vpsReserved0xffff16bits)
        profileTierLevel.write(to: &w, maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
        w.flag(vpsSubLayerOrderingInfoPresentFlag)
        HEVCSubLayerOrderingInfo.write(subLayerOrderingInfo, to: &w, presentFlag: vpsSubLayerOrderingInfoPresentFlag,
                                       maxSubLayersMinus1: vpsMaxSubLayersMinus1)
        w.u(6, vpsMaxLayerId)
        w.ue(vpsNumLayerSetsMinus1)
        for i in 0..<vpsNumLayerSetsMinus1 {
            let row = i < layerIdIncludedFlag.count ? layerIdIncludedFlag[i] : []
            for j in 0...max(vpsMaxLayerId, 0) { w.flag(j < row.count ? row[j] : false) }
        }
        w.flag(vpsTimingInfoPresentFlag)
        if vpsTimingInfoPresentFlag {
            w.u(32, vpsNumUnitsInTick)
            w.u(32, vpsTimeScale)
            w.flag(vpsPocProportionalToTimingFlag)
            if vpsPocProportionalToTimingFlag { w.ue(vpsNumTicksPocDiffOneMinus1) }
            w.ue(hrdParameters.count)
            for (index, hrd) in hrdParameters.enumerated() {
                w.ue(hrd.hrdLayerSetIdx)
                if index > 0 { w.flag(hrd.cprmsPresentFlag) }
                hrd.hrdParameters.write(to: &w, commonInfPresentFlag: index == 0 || hrd.cprmsPresentFlag,
                                        maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
            }
        }
        w.flag(vpsExtensionFlag)
        if vpsExtensionFlag, let bits = vpsExtensionDataBits { w.append(bits) }
    }
}
