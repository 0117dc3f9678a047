/// Writing an H.264 SPS back: `seq_parameter_set_rbsp()` (ITU-T H.264 7.3.2.1.1) with its
/// `vui_parameters()` (E.1.1) and `hrd_parameters()` (E.1.2), from the parsed fields.
///
/// Every element is coded from its field; the scaling lists are copied from
/// ``AVCSequenceParameterSet/seqScalingMatrixBits`` when the SPS was parsed (their coding is not
/// unique). Parsing the output gives back an equal value, and for an SPS read from a stream the
/// RBSP is the input's bit for bit (trailing `cabac_zero_word`s and zero bytes aside).
extension AVCSequenceParameterSet {
    /// The RBSP (after the NAL unit header), `rbsp_trailing_bits()` included, not escaped.
    public func rbspBytes() -> [UInt8] {
        var writer = BitWriter()
        write(to: &writer)
        writer.rbspTrailingBits()
        return writer.bytes
    }

    /// The escaped NAL unit behind the 1-byte `header` (an SPS's: `nal_ref_idc` as the input
    /// had it, `nal_unit_type` 7).
    public func nalUnit(header: UInt8 = 0x67) -> [UInt8] {
        [header] + RBSP.escape(rbspBytes())
    }

    /// Writes `seq_parameter_set_data()` up to (not including) `rbsp_trailing_bits()`.
    package func write(to w: inout BitWriter) {
        w.u(8, UInt64(profileIdc))
        w.u(8, UInt64(constraintSetFlags))
        w.u(8, UInt64(levelIdc))
        w.ue(seqParameterSetId)
        if AVCProfile.hasChromaFormatInfo(profileIdc) {
            w.ue(chromaFormatIdc)
            if chromaFormatIdc == 3 { w.flag(separateColourPlaneFlag) }
            w.ue(bitDepthLumaMinus8)
            w.ue(bitDepthChromaMinus8)
            w.flag(qpprimeYZeroTransformBypassFlag)
            w.flag(seqScalingMatrixPresentFlag)
            if seqScalingMatrixPresentFlag {
                if let bits = seqScalingMatrixBits {
                    w.append(bits)
                } else {
                    (seqScalingMatrix ?? AVCScalingMatrix(lists4x4: [], lists8x8: []))
                        .write(to: &w, count: chromaFormatIdc != 3 ? 8 : 12)
                }
            }
        }
        w.ue(log2MaxFrameNumMinus4)
        w.ue(picOrderCntType)
        if picOrderCntType == 0 {
            w.ue(log2MaxPicOrderCntLsbMinus4)
        } else if picOrderCntType == 1 {
            w.flag(deltaPicOrderAlwaysZeroFlag)
            w.se(offsetForNonRefPic)
            w.se(offsetForTopToBottomField)
            w.ue(offsetForRefFrame.count)
            for offset in offsetForRefFrame { w.se(offset) }
        }
        w.ue(maxNumRefFrames)
        w.flag(gapsInFrameNumValueAllowedFlag)
        w.ue(picWidthInMbsMinus1)
        w.ue(picHeightInMapUnitsMinus1)
        w.flag(frameMbsOnlyFlag)
        if !frameMbsOnlyFlag { w.flag(mbAdaptiveFrameFieldFlag) }
        w.flag(direct8x8InferenceFlag)
        w.flag(frameCroppingFlag)
        if frameCroppingFlag {
            w.ue(frameCropLeftOffset)
            w.ue(frameCropRightOffset)
            w.ue(frameCropTopOffset)
            w.ue(frameCropBottomOffset)
        }
        w.flag(vuiParameters != nil)
        vuiParameters?.write(to: &w)
    }
}

extension AVCScalingMatrix {
    /// Codes the lists (7.3.2.1.1.1) for an SPS or PPS built by hand: `.useDefault` as a first
    /// `delta_scale` of −8, `.explicit` with every delta. Missing entries are written as absent.
    func write(to w: inout BitWriter, count: Int) {
        for index in 0..<max(0, min(count, 12)) {
            let list: AVCScalingList = index < 6
                ? (index < lists4x4.count ? lists4x4[index] : .notPresent)
                : (index - 6 < lists8x8.count ? lists8x8[index - 6] : .notPresent)
            switch list {
            case .notPresent:
                w.flag(false)
            case .useDefault:
                w.flag(true)
                w.se(-8)
            case .explicit(let values):
                w.flag(true)
                var lastScale = 8
                for value in values {
                    var delta = Int(value) - lastScale
                    if delta > 127 { delta -= 256 }
                    if delta < -128 { delta += 256 }
                    w.se(delta)
                    lastScale = Int(value)
                }
            }
        }
    }
}

extension AVCVUIParameters {
    /// Writes `vui_parameters()` (E.1.1).
    package func write(to w: inout BitWriter) {
        w.flag(aspectRatioInfoPresentFlag)
        if aspectRatioInfoPresentFlag {
            w.u(8, UInt64(aspectRatioIdc))
            if aspectRatioIdc == 255 {
                w.u(16, UInt64(sarWidth))
                w.u(16, UInt64(sarHeight))
            }
        }
        w.flag(overscanInfoPresentFlag)
        if overscanInfoPresentFlag { w.flag(overscanAppropriateFlag) }
        w.flag(videoSignalTypePresentFlag)
        if videoSignalTypePresentFlag {
            w.u(3, UInt64(videoFormat))
            w.flag(videoFullRangeFlag)
            w.flag(colourDescriptionPresentFlag)
            if colourDescriptionPresentFlag {
                w.u(8, UInt64(colourPrimaries))
                w.u(8, UInt64(transferCharacteristics))
                w.u(8, UInt64(matrixCoefficients))
            }
        }
        w.flag(chromaLocInfoPresentFlag)
        if chromaLocInfoPresentFlag {
            w.ue(chromaSampleLocTypeTopField)
            w.ue(chromaSampleLocTypeBottomField)
        }
        w.flag(timingInfoPresentFlag)
        if timingInfoPresentFlag {
            w.u(32, numUnitsInTick)
            w.u(32, timeScale)
            w.flag(fixedFrameRateFlag)
        }
        w.flag(nalHRDParameters != nil)
        nalHRDParameters?.write(to: &w)
        w.flag(vclHRDParameters != nil)
        vclHRDParameters?.write(to: &w)
        if nalHRDParameters != nil || vclHRDParameters != nil { w.flag(lowDelayHRDFlag) }
        w.flag(picStructPresentFlag)
        w.flag(bitstreamRestrictionFlag)
        if bitstreamRestrictionFlag {
            w.flag(motionVectorsOverPicBoundariesFlag)
            w.ue(maxBytesPerPicDenom)
            w.ue(maxBitsPerMbDenom)
            w.ue(log2MaxMvLengthHorizontal)
            w.ue(log2MaxMvLengthVertical)
            w.ue(maxNumReorderFrames ?? 0)
            w.ue(maxDecFrameBuffering ?? 0)
        }
    }
}

extension AVCHRDParameters {
    /// Writes `hrd_parameters()` (E.1.2).
    package func write(to w: inout BitWriter) {
        w.ue(max(schedules.count - 1, 0))
        w.u(4, UInt64(bitRateScale))
        w.u(4, UInt64(cpbSizeScale))
        let written = schedules.isEmpty ? [Schedule(bitRateValueMinus1: 0, cpbSizeValueMinus1: 0, cbrFlag: false)] : schedules
        for schedule in written.prefix(32) {
            w.ue(schedule.bitRateValueMinus1)
            w.ue(schedule.cpbSizeValueMinus1)
            w.flag(schedule.cbrFlag)
        }
        w.u(5, UInt64(initialCpbRemovalDelayLengthMinus1))
        w.u(5, UInt64(cpbRemovalDelayLengthMinus1))
        w.u(5, UInt64(dpbOutputDelayLengthMinus1))
        w.u(5, UInt64(timeOffsetLength))
    }
}
