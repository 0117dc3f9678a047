import Testing
@testable import NALU

@Suite struct HEVCSequenceParameterSetTests {
    @Test func mainProfileSPSFromX265() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.mainSPS[...])
        #expect(sps.spsVideoParameterSetId == 0)
        #expect(sps.spsMaxSubLayersMinus1 == 0)
        #expect(sps.spsTemporalIdNestingFlag)
        let ptl = sps.profileTierLevel
        #expect(ptl.generalProfileSpace == 0)
        #expect(ptl.generalTierFlag == false)
        #expect(ptl.generalProfileIdc == 1)
        #expect(ptl.generalProfileCompatibilityFlags == 0x6000_0000)
        #expect(ptl.generalConstraintIndicatorFlags == 0x9000_0000_0000)
        #expect(ptl.generalProgressiveSourceFlag)
        #expect(!ptl.generalInterlacedSourceFlag)
        #expect(!ptl.generalNonPackedConstraintFlag)
        #expect(ptl.generalFrameOnlyConstraintFlag)
        #expect(ptl.generalLevelIdc == 30)
        #expect(ptl.subLayers.isEmpty)
        #expect(sps.spsSeqParameterSetId == 0)
        #expect(sps.chromaFormatIdc == 1)
        #expect(!sps.separateColourPlaneFlag)
        #expect(sps.picWidthInLumaSamples == 176)
        #expect(sps.picHeightInLumaSamples == 104)
        #expect(sps.conformanceWindowFlag)
        #expect([sps.confWinLeftOffset, sps.confWinRightOffset, sps.confWinTopOffset, sps.confWinBottomOffset] == [0, 1, 0, 3])
        #expect(sps.bitDepthLumaMinus8 == 0)
        #expect(sps.bitDepthChromaMinus8 == 0)
        #expect(sps.log2MaxPicOrderCntLsbMinus4 == 4)
        #expect(sps.spsSubLayerOrderingInfoPresentFlag)
        #expect(sps.subLayerOrderingInfo == [HEVCSubLayerOrderingInfo(maxDecPicBufferingMinus1: 4, maxNumReorderPics: 2,
                                                                      maxLatencyIncreasePlus1: 5)])
        #expect(sps.log2MinLumaCodingBlockSizeMinus3 == 0)
        #expect(sps.log2DiffMaxMinLumaCodingBlockSize == 3)
        #expect(sps.log2MinLumaTransformBlockSizeMinus2 == 0)
        #expect(sps.log2DiffMaxMinLumaTransformBlockSize == 3)
        #expect(sps.maxTransformHierarchyDepthInter == 0)
        #expect(sps.maxTransformHierarchyDepthIntra == 0)
        #expect(!sps.scalingListEnabledFlag)
        #expect(sps.scalingListData == nil)
        #expect(!sps.ampEnabledFlag)
        #expect(sps.sampleAdaptiveOffsetEnabledFlag)
        #expect(!sps.pcmEnabledFlag)
        #expect(sps.pcm == nil)
        #expect(sps.numShortTermRefPicSets == 0)
        #expect(!sps.longTermRefPicsPresentFlag)
        #expect(sps.numLongTermRefPicsSps == 0)
        #expect(sps.spsTemporalMvpEnabledFlag)
        #expect(sps.strongIntraSmoothingEnabledFlag)
        #expect(sps.vuiParametersPresentFlag)
        let vui = try #require(sps.vuiParameters)
        #expect(vui.aspectRatioInfoPresentFlag)
        #expect(vui.aspectRatioIdc == 1)
        #expect(vui.sampleAspectRatio == Rational(1, 1))
        #expect(!vui.overscanInfoPresentFlag)
        #expect(vui.videoSignalTypePresentFlag)
        #expect(vui.videoFormat == 5)
        #expect(!vui.videoFullRangeFlag)
        #expect(!vui.colourDescriptionPresentFlag)
        #expect(vui.colourPrimaries == 2)
        #expect(!vui.chromaLocInfoPresentFlag)
        #expect(!vui.fieldSeqFlag)
        #expect(!vui.defaultDisplayWindowFlag)
        #expect(vui.vuiTimingInfoPresentFlag)
        #expect(vui.vuiNumUnitsInTick == 1001)
        #expect(vui.vuiTimeScale == 30000)
        #expect(!vui.vuiPocProportionalToTimingFlag)
        #expect(!vui.vuiHrdParametersPresentFlag)
        #expect(vui.hrdParameters == nil)
        #expect(!vui.bitstreamRestrictionFlag)
        #expect(vui.minSpatialSegmentationIdc == 0)
        #expect(!sps.spsExtensionPresentFlag)
        #expect(sps.spsRangeExtension == nil)

        // ffprobe: width=174 height=98 coded_width=176 coded_height=104 profile=Main level=30
        // pix_fmt=yuv420p r_frame_rate=30000/1001.
        #expect(sps.width == 174)
        #expect(sps.height == 98)
        #expect(sps.subWidthC == 2)
        #expect(sps.subHeightC == 2)
        #expect(sps.chromaArrayType == 1)
        #expect(sps.bitDepthLuma == 8)
        #expect(sps.bitDepthChroma == 8)
        #expect(sps.profileName == "Main")
        #expect(sps.tierName == "Main")
        #expect(sps.levelName == "1")
        #expect(sps.frameRate == Rational(30000, 1001))
        #expect(sps.log2CtbSize == 6)
        #expect(sps.ctbSize == 64)
        #expect(sps.picWidthInCtbsY == 3)
        #expect(sps.picHeightInCtbsY == 2)
        #expect(sps.picSizeInCtbsY == 6)
        #expect(sps.maxPicOrderCntLsb == 256)
    }

    @Test func rbspInitializerMatchesNALInitializer() throws {
        let nal = HEVCFixtures.mainSPS[...]
        let fromRBSP = try HEVCSequenceParameterSet(rbsp: RBSP(escaped: nal.dropFirst(2)))
        #expect(try fromRBSP == HEVCSequenceParameterSet(nalUnit: nal))
    }

    @Test func main10() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.main10SPS[...])
        #expect(sps.profileTierLevel.generalProfileIdc == 2)
        #expect(sps.profileTierLevel.generalProfileCompatibilityFlags == 0x2000_0000)
        #expect(sps.profileTierLevel.generalConstraintIndicatorFlags == 0x9000_0000_0000)
        #expect(sps.profileName == "Main 10")
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.bitDepthLuma == 10)
        #expect(sps.bitDepthChroma == 10)
        #expect(sps.width == 174)
        #expect(sps.height == 98)
    }

    @Test func rangeExtensions422And444And12Bit() throws {
        // ffprobe: profile=Rext, pix_fmt=yuv422p10le / yuv444p / yuv420p12le, 174x98.
        let p422 = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.yuv422p10SPS[...])
        #expect(p422.profileTierLevel.generalProfileIdc == 4)
        #expect(p422.profileTierLevel.generalProfileCompatibilityFlags == 0x0800_0000)
        // progressive, frame only, max_12bit, max_10bit, max_422chroma, lower_bit_rate.
        #expect(p422.profileTierLevel.generalConstraintIndicatorFlags == 0x9D08_0000_0000)
        #expect(p422.profileName == "Rext")
        #expect(p422.chromaFormatIdc == 2)
        #expect(p422.subWidthC == 2)
        #expect(p422.subHeightC == 1)
        #expect([p422.confWinRightOffset, p422.confWinBottomOffset] == [1, 6])
        #expect(p422.width == 174)
        #expect(p422.height == 98)
        #expect(p422.bitDepthLuma == 10)
        #expect(p422.bitDepthChroma == 10)

        let p444 = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.yuv444pSPS[...])
        #expect(p444.profileTierLevel.generalProfileIdc == 4)
        #expect(p444.profileTierLevel.generalConstraintIndicatorFlags == 0x9E08_0000_0000)
        #expect(p444.profileName == "Rext")
        #expect(p444.chromaFormatIdc == 3)
        #expect(!p444.separateColourPlaneFlag)
        #expect(p444.subWidthC == 1)
        #expect(p444.subHeightC == 1)
        #expect([p444.confWinRightOffset, p444.confWinBottomOffset] == [2, 6])
        #expect(p444.width == 174)
        #expect(p444.height == 98)
        #expect(p444.bitDepthLuma == 8)
        #expect(p444.bitDepthChroma == 8)

        let p12 = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.yuv420p12SPS[...])
        #expect(p12.profileTierLevel.generalConstraintIndicatorFlags == 0x9988_0000_0000)
        #expect(p12.profileName == "Rext")
        #expect(p12.chromaFormatIdc == 1)
        #expect(p12.bitDepthLuma == 12)
        #expect(p12.bitDepthChroma == 12)
    }

    @Test func twoTemporalSubLayers() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.temporalLayersSPS[...])
        #expect(sps.spsMaxSubLayersMinus1 == 1)
        #expect(!sps.spsTemporalIdNestingFlag)
        #expect(sps.profileTierLevel.subLayers == [HEVCProfileTierLevel.SubLayer()])
        #expect(sps.subLayerOrderingInfo.count == 2)
        #expect(sps.subLayerOrderingInfo.allSatisfy {
            $0 == HEVCSubLayerOrderingInfo(maxDecPicBufferingMinus1: 4, maxNumReorderPics: 2, maxLatencyIncreasePlus1: 4)
        })
        #expect(sps.width == 174)
        #expect(sps.profileName == "Main")
    }

    @Test func scalingListData() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.scalingListSPS[...])
        #expect(sps.scalingListEnabledFlag)
        #expect(sps.spsScalingListDataPresentFlag)
        let lists = try #require(sps.scalingListData)
        // Each list in the x265 file is 16 + row + column; x265 codes matrix 0 of each size and
        // predicts the others from the previous matrix (scaling_list_pred_matrix_id_delta 1).
        let expected4x4 = diagonalScan(size: 4) { 16 + $0 + $1 }
        let expected8x8 = diagonalScan(size: 8) { 16 + $0 + $1 }
        for sizeId in 0..<4 {
            for matrixId in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                #expect(lists.scalingListPredModeFlag[sizeId][matrixId] == (matrixId == 0))
                #expect(lists.scalingListPredMatrixIdDelta[sizeId][matrixId] == (matrixId == 0 ? 0 : 1))
            }
            for matrixId in 0..<6 {
                #expect(lists.scalingList[sizeId][matrixId] == (sizeId == 0 ? expected4x4 : expected8x8))
            }
        }
        #expect(lists.scalingListDcCoef == [[18, 18, 18, 18, 18, 18], [18, 18, 18, 18, 18, 18]])
        #expect(sps.width == 174)
    }

    @Test func defaultScalingListsWhenNoDataIsSent() throws {
        let defaults = HEVCScalingListData.default
        // Table 7-6 in raster order, converted with the up-right diagonal scan.
        let intraRaster: [UInt8] = [
            16, 16, 16, 16, 17, 18, 21, 24, 16, 16, 16, 16, 17, 19, 22, 25, 16, 16, 17, 18, 20, 22, 25, 29,
            16, 16, 18, 21, 24, 27, 31, 36, 17, 17, 20, 24, 30, 35, 41, 47, 18, 19, 22, 27, 35, 44, 54, 65,
            21, 22, 25, 31, 41, 54, 70, 88, 24, 25, 29, 36, 47, 65, 88, 115,
        ]
        #expect(defaults.scalingList[1][0] == diagonalScan(size: 8) { Int(intraRaster[8 * $0 + $1]) })
        #expect(defaults.scalingList[3][5].last == 91)
        #expect(defaults.scalingList[0][4] == [UInt8](repeating: 16, count: 16))
        #expect(defaults.scalingListDcCoef[1][3] == 16)
    }

    @Test func hrdParametersInVUI() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.hrdSPS[...])
        #expect(sps.levelName == "2")
        let vui = try #require(sps.vuiParameters)
        #expect(vui.vuiHrdParametersPresentFlag)
        let hrd = try #require(vui.hrdParameters)
        #expect(hrd.nalHrdParametersPresentFlag)
        #expect(!hrd.vclHrdParametersPresentFlag)
        #expect(!hrd.subPicHrdParamsPresentFlag)
        #expect(hrd.bitRateScale == 1)
        #expect(hrd.cpbSizeScale == 1)
        #expect(hrd.initialCpbRemovalDelayLengthMinus1 == 18)
        #expect(hrd.auCpbRemovalDelayLengthMinus1 == 11)
        #expect(hrd.dpbOutputDelayLengthMinus1 == 6)
        #expect(hrd.subLayers.count == 1)
        let layer = hrd.subLayers[0]
        #expect(layer.fixedPicRateGeneralFlag)
        #expect(layer.fixedPicRateWithinCvsFlag)
        #expect(layer.elementalDurationInTcMinus1 == 0)
        #expect(!layer.lowDelayHrdFlag)
        #expect(layer.cpbCntMinus1 == 0)
        #expect(layer.nalHrdParameters == [HEVCHRDParameters.CPB(bitRateValueMinus1: 3124, cpbSizeValueMinus1: 15624,
                                                                 cbrFlag: false)])
        #expect(layer.vclHrdParameters == nil)
        #expect(!vui.bitstreamRestrictionFlag)
        #expect(sps.frameRate == Rational(30000, 1001))
    }

    @Test func vuiColourExtendedSARAndDisplayWindow() throws {
        // ffprobe: sample_aspect_ratio=5:7 color_range=pc color_primaries=bt709
        // color_transfer=smpte2084 color_space=bt2020nc chroma_location=topleft.
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.vuiSPS[...])
        let vui = try #require(sps.vuiParameters)
        #expect(vui.aspectRatioIdc == HEVCVUIParameters.extendedSAR)
        #expect(vui.sarWidth == 5)
        #expect(vui.sarHeight == 7)
        #expect(vui.sampleAspectRatio == Rational(5, 7))
        #expect(vui.overscanInfoPresentFlag)
        #expect(!vui.overscanAppropriateFlag)
        #expect(vui.videoFormat == 5)
        #expect(vui.videoFullRangeFlag)
        #expect(vui.colourDescriptionPresentFlag)
        #expect(vui.colourPrimaries == 1)
        #expect(vui.transferCharacteristics == 16)
        #expect(vui.matrixCoeffs == 9)
        #expect(vui.chromaLocInfoPresentFlag)
        #expect(vui.chromaSampleLocTypeTopField == 2)
        #expect(vui.chromaSampleLocTypeBottomField == 2)
        #expect(vui.defaultDisplayWindowFlag)
        #expect([vui.defDispWinLeftOffset, vui.defDispWinRightOffset, vui.defDispWinTopOffset,
                 vui.defDispWinBottomOffset] == [2, 6, 4, 8])
        #expect(vui.vuiTimingInfoPresentFlag)
        #expect(sps.frameRate == Rational(30000, 1001))
        #expect(sps.width == 174)
        #expect(sps.height == 98)
    }

    @Test func interlacedFieldSequence() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.interlacedSPS[...])
        #expect(!sps.profileTierLevel.generalProgressiveSourceFlag)
        #expect(sps.profileTierLevel.generalInterlacedSourceFlag)
        #expect(!sps.profileTierLevel.generalFrameOnlyConstraintFlag)
        let vui = try #require(sps.vuiParameters)
        #expect(vui.fieldSeqFlag)
        #expect(vui.frameFieldInfoPresentFlag)
        #expect(sps.frameRate == Rational(30000, 1001))
    }

    @Test func pcmLongTermPicsRangeExtensionAndBitstreamRestriction() throws {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.pcm = true
        options.longTermPocLsbs = [5, 200, 17]
        options.rangeExtension = true
        options.vui = { bits in
            bits.u(4, 0)          // aspect, overscan, video signal, chroma loc: absent
            bits.u(4, 0)          // neutral chroma, field_seq, frame_field_info, default display window
            bits.flag(true)       // vui_timing_info_present_flag
            bits.u(32, 1); bits.u(32, 50)
            bits.flag(true); bits.ue(0)      // vui_poc_proportional_to_timing_flag, ticks − 1
            bits.flag(false)      // vui_hrd_parameters_present_flag
            bits.flag(true)       // bitstream_restriction_flag
            bits.flag(true); bits.flag(false); bits.flag(true)
            bits.ue(4095)         // min_spatial_segmentation_idc
            bits.ue(2); bits.ue(1); bits.ue(15); bits.ue(15)
        }
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
        #expect(sps.width == 1920)
        #expect(sps.height == 1080)
        #expect(sps.pcm == HEVCSequenceParameterSet.PCM(
            pcmSampleBitDepthLumaMinus1: 7, pcmSampleBitDepthChromaMinus1: 7, log2MinPcmLumaCodingBlockSizeMinus3: 0,
            log2DiffMaxMinPcmLumaCodingBlockSize: 2, pcmLoopFilterDisabledFlag: true))
        #expect(sps.ltRefPicPocLsbSps == [5, 200, 17])
        #expect(sps.usedByCurrPicLtSpsFlag == [true, false, true])
        let vui = try #require(sps.vuiParameters)
        #expect(vui.vuiPocProportionalToTimingFlag)
        #expect(vui.vuiNumTicksPocDiffOneMinus1 == 0)
        #expect(vui.tilesFixedStructureFlag)
        #expect(!vui.motionVectorsOverPicBoundariesFlag)
        #expect(vui.restrictedRefPicListsFlag)
        #expect(vui.minSpatialSegmentationIdc == 4095)
        #expect(vui.maxBytesPerPicDenom == 2)
        #expect(vui.maxBitsPerMinCuDenom == 1)
        #expect(sps.frameRate == Rational(50, 1))
        #expect(sps.spsExtensionPresentFlag)
        #expect(sps.spsRangeExtensionFlag)
        #expect(sps.spsRangeExtension == HEVCSequenceParameterSet.RangeExtension(
            transformSkipRotationEnabledFlag: true, transformSkipContextEnabledFlag: false,
            implicitRdpcmEnabledFlag: true, explicitRdpcmEnabledFlag: false, extendedPrecisionProcessingFlag: true,
            intraSmoothingDisabledFlag: false, highPrecisionOffsetsEnabledFlag: true,
            persistentRiceAdaptationEnabledFlag: false, cabacBypassAlignmentEnabledFlag: true))
    }

    @Test func unparsedExtensionsAreSkipped() throws {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.sccExtensionData = true
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
        #expect(sps.spsSccExtensionFlag)
        #expect(!sps.spsRangeExtensionFlag)
        #expect(sps.spsRangeExtension == nil)
        #expect(sps.width == 1920)
    }

    @Test func monochromeAndSeparateColourPlanes() throws {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.chromaFormatIdc = 0
        options.conformanceWindow = (1, 2, 3, 4)
        let mono = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
        #expect(mono.chromaArrayType == 0)
        #expect(mono.width == 1917)
        #expect(mono.height == 1081)

        options.chromaFormatIdc = 3
        options.separateColourPlane = true
        let planes = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
        #expect(planes.separateColourPlaneFlag)
        #expect(planes.chromaArrayType == 0)
        #expect(planes.subWidthC == 1)
        #expect(planes.width == 1917)
    }

    @Test func ctbSizesAndPicSizeInCtbs() throws {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.width = 3840
        options.height = 2160
        options.conformanceWindow = nil
        options.log2DiffMaxMinCb = 1                 // 16×16 CTBs
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
        #expect(sps.log2CtbSize == 4)
        #expect(sps.picWidthInCtbsY == 240)
        #expect(sps.picHeightInCtbsY == 135)
        #expect(sps.picSizeInCtbsY == 32400)
        #expect(sps.width == 3840)
    }
}

/// `ScalingList` order for a `size`×`size` matrix given as `value(row, column)`: the up-right
/// diagonal scan of ITU-T H.265 6.5.3 (8×8 for sizes above 8).
func diagonalScan(size: Int, _ value: (Int, Int) -> Int) -> [UInt8] {
    var out: [UInt8] = []
    var x = 0
    var y = 0
    while out.count < size * size {
        while y >= 0 {
            if x < size && y < size { out.append(UInt8(value(y, x))) }
            y -= 1
            x += 1
        }
        y = x
        x = 0
    }
    return out
}
