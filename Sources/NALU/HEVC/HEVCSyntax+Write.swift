/// Writing back the H.265 syntax structures shared by the VPS and SPS: `profile_tier_level()`
/// (ITU-T H.265 7.3.3), `vui_parameters()` (E.2.1), `hrd_parameters()` (E.2.2) with
/// `sub_layer_hrd_parameters()` (E.2.3), and the sub-layer ordering loop — each the mirror of its
/// parser, so parse → write → parse gives an equal value.
extension HEVCProfileTierLevel {
    /// Writes `profile_tier_level( profilePresentFlag, maxNumSubLayersMinus1 )` (7.3.3).
    /// `reserved_zero_2bits` are written as 0; sub-layer entries missing from ``subLayers`` are
    /// written as absent.
    package func write(to w: inout BitWriter, profilePresentFlag: Bool = true, maxNumSubLayersMinus1: Int) {
        let count = min(max(maxNumSubLayersMinus1, 0), 6)
        if profilePresentFlag {
            w.u(2, UInt64(generalProfileSpace))
            w.flag(generalTierFlag)
            w.u(5, UInt64(generalProfileIdc))
            w.u(32, generalProfileCompatibilityFlags)
            w.u(48, generalConstraintIndicatorFlags)
        }
        w.u(8, UInt64(generalLevelIdc))
        let layers = (0..<count).map { $0 < subLayers.count ? subLayers[$0] : SubLayer() }
        for layer in layers {
            w.flag(layer.subLayerProfilePresentFlag)
            w.flag(layer.subLayerLevelPresentFlag)
        }
        if count > 0 {
            for _ in count..<8 { w.u(2, 0 as UInt64) }
        }
        for layer in layers {
            if layer.subLayerProfilePresentFlag {
                w.u(2, UInt64(layer.subLayerProfileSpace))
                w.flag(layer.subLayerTierFlag)
                w.u(5, UInt64(layer.subLayerProfileIdc))
                w.u(32, layer.subLayerProfileCompatibilityFlags)
                w.u(48, layer.subLayerConstraintIndicatorFlags)
            }
            if layer.subLayerLevelPresentFlag { w.u(8, UInt64(layer.subLayerLevelIdc)) }
        }
    }
}

extension HEVCSubLayerOrderingInfo {
    /// Writes the `*_max_dec_pic_buffering_minus1`, `*_max_num_reorder_pics`,
    /// `*_max_latency_increase_plus1` loop of a VPS (7.3.2.1) or SPS (7.3.2.2.1): every sub-layer
    /// when `presentFlag`, else only the highest.
    static func write(_ entries: [HEVCSubLayerOrderingInfo], to w: inout BitWriter, presentFlag: Bool, maxSubLayersMinus1: Int) {
        let highest = min(max(maxSubLayersMinus1, 0), 6)
        for i in (presentFlag ? 0 : highest)...highest {
            let entry = i < entries.count ? entries[i]
                : (entries.last ?? HEVCSubLayerOrderingInfo(maxDecPicBufferingMinus1: 0, maxNumReorderPics: 0, maxLatencyIncreasePlus1: 0))
            w.ue(entry.maxDecPicBufferingMinus1)
            w.ue(entry.maxNumReorderPics)
            w.ue(entry.maxLatencyIncreasePlus1)
        }
    }
}

extension HEVCHRDParameters {
    /// Writes `hrd_parameters( commonInfPresentFlag, maxNumSubLayersMinus1 )` (E.2.2).
    package func write(to w: inout BitWriter, commonInfPresentFlag: Bool, maxNumSubLayersMinus1: Int) {
        if commonInfPresentFlag {
            w.flag(nalHrdParametersPresentFlag)
            w.flag(vclHrdParametersPresentFlag)
            if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                w.flag(subPicHrdParamsPresentFlag)
                if subPicHrdParamsPresentFlag {
                    w.u(8, tickDivisorMinus2)
                    w.u(5, duCpbRemovalDelayIncrementLengthMinus1)
                    w.flag(subPicCpbParamsInPicTimingSeiFlag)
                    w.u(5, dpbOutputDelayDuLengthMinus1)
                }
                w.u(4, bitRateScale)
                w.u(4, cpbSizeScale)
                if subPicHrdParamsPresentFlag { w.u(4, cpbSizeDuScale) }
                w.u(5, initialCpbRemovalDelayLengthMinus1)
                w.u(5, auCpbRemovalDelayLengthMinus1)
                w.u(5, dpbOutputDelayLengthMinus1)
            }
        }
        for i in 0...min(max(maxNumSubLayersMinus1, 0), 6) {
            let layer = i < subLayers.count ? subLayers[i] : SubLayer()
            w.flag(layer.fixedPicRateGeneralFlag)
            let withinCvs = layer.fixedPicRateGeneralFlag || layer.fixedPicRateWithinCvsFlag
            if !layer.fixedPicRateGeneralFlag { w.flag(layer.fixedPicRateWithinCvsFlag) }
            let lowDelay = withinCvs ? false : layer.lowDelayHrdFlag
            if withinCvs {
                w.ue(layer.elementalDurationInTcMinus1 ?? 0)
            } else {
                w.flag(layer.lowDelayHrdFlag)
            }
            let cpbCount = lowDelay ? 1 : min(max(layer.cpbCntMinus1, 0), 31) + 1
            if !lowDelay { w.ue(cpbCount - 1) }
            if nalHrdParametersPresentFlag {
                Self.write(layer.nalHrdParameters ?? [], count: cpbCount, subPic: subPicHrdParamsPresentFlag, to: &w)
            }
            if vclHrdParametersPresentFlag {
                Self.write(layer.vclHrdParameters ?? [], count: cpbCount, subPic: subPicHrdParamsPresentFlag, to: &w)
            }
        }
    }

    /// `sub_layer_hrd_parameters()` (E.2.3): `count` entries, missing ones as zeros.
    private static func write(_ cpbs: [CPB], count: Int, subPic: Bool, to w: inout BitWriter) {
        for index in 0..<count {
            let cpb = index < cpbs.count ? cpbs[index] : CPB(bitRateValueMinus1: 0, cpbSizeValueMinus1: 0, cbrFlag: false)
            w.ue(cpb.bitRateValueMinus1)
            w.ue(cpb.cpbSizeValueMinus1)
            if subPic {
                w.ue(cpb.cpbSizeDuValueMinus1)
                w.ue(cpb.bitRateDuValueMinus1)
            }
            w.flag(cpb.cbrFlag)
        }
    }
}

extension HEVCVUIParameters {
    /// Writes `vui_parameters()` (E.2.1) of an SPS whose `sps_max_sub_layers_minus1` is
    /// `maxSubLayersMinus1`.
    package func write(to w: inout BitWriter, maxSubLayersMinus1: Int) {
        w.flag(aspectRatioInfoPresentFlag)
        if aspectRatioInfoPresentFlag {
            w.u(8, aspectRatioIdc)
            if aspectRatioIdc == Self.extendedSAR {
                w.u(16, sarWidth)
                w.u(16, sarHeight)
            }
        }
        w.flag(overscanInfoPresentFlag)
        if overscanInfoPresentFlag { w.flag(overscanAppropriateFlag) }
        w.flag(videoSignalTypePresentFlag)
        if videoSignalTypePresentFlag {
            w.u(3, videoFormat)
            w.flag(videoFullRangeFlag)
            w.flag(colourDescriptionPresentFlag)
            if colourDescriptionPresentFlag {
                w.u(8, colourPrimaries)
                w.u(8, transferCharacteristics)
                w.u(8, matrixCoeffs)
            }
        }
        w.flag(chromaLocInfoPresentFlag)
        if chromaLocInfoPresentFlag {
            w.ue(chromaSampleLocTypeTopField)
            w.ue(chromaSampleLocTypeBottomField)
        }
        w.flag(neutralChromaIndicationFlag)
        w.flag(fieldSeqFlag)
        w.flag(frameFieldInfoPresentFlag)
        w.flag(defaultDisplayWindowFlag)
        if defaultDisplayWindowFlag {
            w.ue(defDispWinLeftOffset)
            w.ue(defDispWinRightOffset)
            w.ue(defDispWinTopOffset)
            w.ue(defDispWinBottomOffset)
        }
        w.flag(vuiTimingInfoPresentFlag)
        if vuiTimingInfoPresentFlag {
            w.u(32, vuiNumUnitsInTick)
            w.u(32, vuiTimeScale)
            w.flag(vuiPocProportionalToTimingFlag)
            if vuiPocProportionalToTimingFlag { w.ue(vuiNumTicksPocDiffOneMinus1) }
            let hrd = vuiHrdParametersPresentFlag ? hrdParameters : nil
            w.flag(hrd != nil)
            hrd?.write(to: &w, commonInfPresentFlag: true, maxNumSubLayersMinus1: maxSubLayersMinus1)
        }
        w.flag(bitstreamRestrictionFlag)
        if bitstreamRestrictionFlag {
            w.flag(tilesFixedStructureFlag)
            w.flag(motionVectorsOverPicBoundariesFlag)
            w.flag(restrictedRefPicListsFlag)
            w.ue(minSpatialSegmentationIdc)
            w.ue(maxBytesPerPicDenom)
            w.ue(maxBitsPerMinCuDenom)
            w.ue(log2MaxMvLengthHorizontal)
            w.ue(log2MaxMvLengthVertical)
        }
    }
}
