/// Writing an H.265 SPS back: `seq_parameter_set_rbsp()` (ITU-T H.265 7.3.2.2.1) from the parsed
/// fields, with `profile_tier_level()`, `scaling_list_data()` (7.3.4), `vui_parameters()` (E.2.1)
/// and `sps_range_extension()` (7.3.2.2.2) coded from their structures. The `st_ref_pic_set()`s
/// and the unparsed extensions are copied from ``HEVCSequenceParameterSet/shortTermRefPicSetsBits``
/// and ``HEVCSequenceParameterSet/spsExtensionDataBits`` when present, so an SPS read from a
/// stream is written back bit for bit.
extension HEVCSequenceParameterSet {
    /// The RBSP (after the 2-byte NAL unit header), `rbsp_trailing_bits()` included, not escaped.
    public func rbspBytes() -> [UInt8] {
        var writer = BitWriter()
        write(to: &writer)
        writer.rbspTrailingBits()
        return writer.bytes
    }

    /// The escaped NAL unit behind the 2-byte `header` (`nal_unit_type` 33, layer and temporal
    /// id as given).
    public func nalUnit(header: (UInt8, UInt8) = (0x42, 0x01)) -> [UInt8] {
        [header.0, header.1] + RBSP.escape(rbspBytes())
    }

    /// Writes `seq_parameter_set_rbsp()` up to (not including) `rbsp_trailing_bits()`.
    package func write(to w: inout BitWriter) {
        w.u(4, spsVideoParameterSetId)
        w.u(3, spsMaxSubLayersMinus1)
        w.flag(spsTemporalIdNestingFlag)
        profileTierLevel.write(to: &w, maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
        w.ue(spsSeqParameterSetId)
        w.ue(chromaFormatIdc)
        if chromaFormatIdc == 3 { w.flag(separateColourPlaneFlag) }
        w.ue(picWidthInLumaSamples)
        w.ue(picHeightInLumaSamples)
        w.flag(conformanceWindowFlag)
        if conformanceWindowFlag {
            w.ue(confWinLeftOffset)
            w.ue(confWinRightOffset)
            w.ue(confWinTopOffset)
            w.ue(confWinBottomOffset)
        }
        w.ue(bitDepthLumaMinus8)
        w.ue(bitDepthChromaMinus8)
        w.ue(log2MaxPicOrderCntLsbMinus4)
        w.flag(spsSubLayerOrderingInfoPresentFlag)
        HEVCSubLayerOrderingInfo.write(subLayerOrderingInfo, to: &w, presentFlag: spsSubLayerOrderingInfoPresentFlag,
                                       maxSubLayersMinus1: spsMaxSubLayersMinus1)
        w.ue(log2MinLumaCodingBlockSizeMinus3)
        w.ue(log2DiffMaxMinLumaCodingBlockSize)
        w.ue(log2MinLumaTransformBlockSizeMinus2)
        w.ue(log2DiffMaxMinLumaTransformBlockSize)
        w.ue(maxTransformHierarchyDepthInter)
        w.ue(maxTransformHierarchyDepthIntra)
        w.flag(scalingListEnabledFlag)
        if scalingListEnabledFlag {
            w.flag(spsScalingListDataPresentFlag)
            if spsScalingListDataPresentFlag { (scalingListData ?? .default).write(to: &w) }
        }
        w.flag(ampEnabledFlag)
        w.flag(sampleAdaptiveOffsetEnabledFlag)
        w.flag(pcmEnabledFlag)
        if pcmEnabledFlag {
            let pcm = self.pcm ?? PCM(pcmSampleBitDepthLumaMinus1: 0, pcmSampleBitDepthChromaMinus1: 0,
                                      log2MinPcmLumaCodingBlockSizeMinus3: 0, log2DiffMaxMinPcmLumaCodingBlockSize: 0,
                                      pcmLoopFilterDisabledFlag: false)
            w.u(4, pcm.pcmSampleBitDepthLumaMinus1)
            w.u(4, pcm.pcmSampleBitDepthChromaMinus1)
            w.ue(pcm.log2MinPcmLumaCodingBlockSizeMinus3)
            w.ue(pcm.log2DiffMaxMinPcmLumaCodingBlockSize)
            w.flag(pcm.pcmLoopFilterDisabledFlag)
        }
        w.ue(shortTermRefPicSets.count)
        if let bits = shortTermRefPicSetsBits {
            w.append(bits)
        } else {
            for (index, set) in shortTermRefPicSets.enumerated() { set.writeExplicit(to: &w, stRpsIdx: index) }
        }
        w.flag(longTermRefPicsPresentFlag)
        if longTermRefPicsPresentFlag {
            w.ue(ltRefPicPocLsbSps.count)
            for (index, lsb) in ltRefPicPocLsbSps.enumerated() {
                w.u(log2MaxPicOrderCntLsbMinus4 + 4, lsb)
                w.flag(index < usedByCurrPicLtSpsFlag.count ? usedByCurrPicLtSpsFlag[index] : false)
            }
        }
        w.flag(spsTemporalMvpEnabledFlag)
        w.flag(strongIntraSmoothingEnabledFlag)
        let vui = vuiParametersPresentFlag ? vuiParameters : nil
        w.flag(vui != nil)
        vui?.write(to: &w, maxSubLayersMinus1: spsMaxSubLayersMinus1)
        w.flag(spsExtensionPresentFlag)
        if spsExtensionPresentFlag {
            w.flag(spsRangeExtensionFlag)
            w.flag(spsMultilayerExtensionFlag)
            w.flag(sps3dExtensionFlag)
            w.flag(spsSccExtensionFlag)
            w.u(4, spsExtension4bits)
            if spsRangeExtensionFlag, let range = spsRangeExtension {
                w.flag(range.transformSkipRotationEnabledFlag)
                w.flag(range.transformSkipContextEnabledFlag)
                w.flag(range.implicitRdpcmEnabledFlag)
                w.flag(range.explicitRdpcmEnabledFlag)
                w.flag(range.extendedPrecisionProcessingFlag)
                w.flag(range.intraSmoothingDisabledFlag)
                w.flag(range.highPrecisionOffsetsEnabledFlag)
                w.flag(range.persistentRiceAdaptationEnabledFlag)
                w.flag(range.cabacBypassAlignmentEnabledFlag)
            } else if spsRangeExtensionFlag {
                w.u(9, 0 as UInt64)
            }
            if let bits = spsExtensionDataBits { w.append(bits) }
        }
    }
}

extension HEVCShortTermRefPicSet {
    /// Codes the set without inter prediction (7.3.7): `num_negative_pics`, `num_positive_pics`
    /// and the POC deltas, for a set built by hand.
    func writeExplicit(to w: inout BitWriter, stRpsIdx: Int) {
        if stRpsIdx != 0 { w.flag(false) }
        w.ue(deltaPocS0.count)
        w.ue(deltaPocS1.count)
        var previous: Int32 = 0
        for (index, poc) in deltaPocS0.enumerated() {
            w.ue(Int(previous) - Int(poc) - 1)
            w.flag(index < usedByCurrPicS0.count ? usedByCurrPicS0[index] : false)
            previous = poc
        }
        previous = 0
        for (index, poc) in deltaPocS1.enumerated() {
            w.ue(Int(poc) - Int(previous) - 1)
            w.flag(index < usedByCurrPicS1.count ? usedByCurrPicS1[index] : false)
            previous = poc
        }
    }
}

extension HEVCScalingListData {
    /// Writes `scaling_list_data()` (7.3.4): each list as its predictor reference or as DPCM
    /// deltas (the coding is unique, so a parsed list is written back bit for bit).
    package func write(to w: inout BitWriter) {
        for sizeId in 0..<4 {
            let coefNum = min(64, 1 << (4 + (sizeId << 1)))
            let step = sizeId == 3 ? 3 : 1
            for matrixId in stride(from: 0, to: 6, by: step) {
                let predMode = value(scalingListPredModeFlag, sizeId, matrixId) ?? false
                w.flag(predMode)
                if !predMode {
                    w.ue(value(scalingListPredMatrixIdDelta, sizeId, matrixId) ?? 0)
                    continue
                }
                var nextCoef = 8
                if sizeId > 1 {
                    let dc = value(scalingListDcCoef, sizeId - 2, matrixId) ?? 16
                    w.se(dc - 8)
                    nextCoef = dc
                }
                let list = value(scalingList, sizeId, matrixId) ?? []
                for i in 0..<coefNum {
                    let coefficient = i < list.count ? Int(list[i]) : nextCoef
                    var delta = coefficient - nextCoef
                    if delta > 127 { delta -= 256 }
                    if delta < -128 { delta += 256 }
                    w.se(delta)
                    nextCoef = coefficient
                }
            }
        }
    }

    private func value<T>(_ table: [[T]], _ i: Int, _ j: Int) -> T? {
        guard i >= 0, i < table.count, j >= 0, j < table[i].count else { return nil }
        return table[i][j]
    }
}
