import Testing
@testable import NALU

@Suite struct AVCSequenceParameterSetTests {
    typealias V = AVCTestVectors

    @Test func highProfileFromX264() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: V.highSPS)
        #expect(sps.profileIdc == 100)
        #expect(sps.constraintSetFlags == 0)
        #expect(sps.levelIdc == 11)
        #expect(sps.seqParameterSetId == 0)
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.separateColourPlaneFlag == false)
        #expect(sps.bitDepthLumaMinus8 == 0)
        #expect(sps.bitDepthChromaMinus8 == 0)
        #expect(sps.qpprimeYZeroTransformBypassFlag == false)
        #expect(sps.seqScalingMatrixPresentFlag == false)
        #expect(sps.seqScalingMatrix == nil)
        #expect(sps.log2MaxFrameNumMinus4 == 0)
        #expect(sps.picOrderCntType == 0)
        #expect(sps.log2MaxPicOrderCntLsbMinus4 == 2)
        #expect(sps.maxNumRefFrames == 4)
        #expect(sps.gapsInFrameNumValueAllowedFlag == false)
        #expect(sps.picWidthInMbsMinus1 == 10)
        #expect(sps.picHeightInMapUnitsMinus1 == 6)
        #expect(sps.frameMbsOnlyFlag)
        #expect(sps.mbAdaptiveFrameFieldFlag == false)
        #expect(sps.direct8x8InferenceFlag)
        #expect(sps.frameCroppingFlag)
        #expect(sps.frameCropLeftOffset == 0)
        #expect(sps.frameCropRightOffset == 1)
        #expect(sps.frameCropTopOffset == 0)
        #expect(sps.frameCropBottomOffset == 7)
        // Derived, as ffprobe reports them.
        #expect(sps.width == 174)
        #expect(sps.height == 98)
        #expect(sps.codedWidth == 176)
        #expect(sps.codedHeight == 112)
        #expect(sps.chromaArrayType == 1)
        #expect(sps.bitDepthLuma == 8)
        #expect(sps.bitDepthChroma == 8)
        #expect(sps.frameRate == Rational(30000, 1001))
        #expect(sps.profileName == "High")
        #expect(sps.levelName == "1.1")
        #expect(sps.isLevel1b == false)
        #expect(sps.maxFrameNum == 16)
        #expect(sps.maxPicOrderCntLsb == 64)
        #expect(sps.picSizeInMapUnits == 77)
    }

    @Test func vuiFromX264() throws {
        let vui = try #require(try AVCSequenceParameterSet(nalUnit: V.highSPS).vuiParameters)
        #expect(vui.aspectRatioInfoPresentFlag)
        #expect(vui.aspectRatioIdc == 1)
        #expect(vui.sampleAspectRatio == Rational(1, 1))
        #expect(vui.overscanInfoPresentFlag == false)
        #expect(vui.videoSignalTypePresentFlag == false)
        #expect(vui.videoFormat == 5)
        #expect(vui.colourPrimaries == 2)
        #expect(vui.chromaLocInfoPresentFlag == false)
        #expect(vui.timingInfoPresentFlag)
        #expect(vui.numUnitsInTick == 1001)
        #expect(vui.timeScale == 60000)
        #expect(vui.fixedFrameRateFlag == false)
        #expect(vui.nalHRDParameters == nil)
        #expect(vui.vclHRDParameters == nil)
        #expect(vui.lowDelayHRDFlag == false)
        #expect(vui.picStructPresentFlag == false)
        #expect(vui.bitstreamRestrictionFlag)
        #expect(vui.motionVectorsOverPicBoundariesFlag)
        #expect(vui.maxBytesPerPicDenom == 0)
        #expect(vui.maxBitsPerMbDenom == 0)
        #expect(vui.log2MaxMvLengthHorizontal == 9)
        #expect(vui.log2MaxMvLengthVertical == 9)
        #expect(vui.maxNumReorderFrames == 2)
        #expect(vui.maxDecFrameBuffering == 4)
    }

    /// profile, pix_fmt (→ chroma format and bit depths), size and rate as ffprobe reports them.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var profile: String
        var chroma: Int
        var depth: Int
        var width = 174
        var height = 98
        var rate = Rational(30000, 1001)
        var level = "1.1"
        var testDescription: String { name }
    }

    static let expectations: [Expectation] = [
        Expectation(name: "Constrained Baseline", bytes: V.constrainedBaselineSPS, profile: "Constrained Baseline", chroma: 1, depth: 8),
        Expectation(name: "Main", bytes: V.mainSPS, profile: "Main", chroma: 1, depth: 8),
        Expectation(name: "High", bytes: V.highSPS, profile: "High", chroma: 1, depth: 8),
        Expectation(name: "High 10", bytes: V.high10SPS, profile: "High 10", chroma: 1, depth: 10),
        Expectation(name: "High 10 Intra", bytes: V.high10IntraSPS, profile: "High 10 Intra", chroma: 1, depth: 10),
        Expectation(name: "High 4:2:2", bytes: V.high422SPS, profile: "High 4:2:2", chroma: 2, depth: 8),
        Expectation(name: "High 4:4:4 Predictive", bytes: V.high444SPS, profile: "High 4:4:4 Predictive", chroma: 3, depth: 8),
        Expectation(name: "High 4:4:4 Intra", bytes: V.high444IntraSPS, profile: "High 4:4:4 Intra", chroma: 3, depth: 8),
        Expectation(name: "monochrome", bytes: V.monochromeSPS, profile: "High", chroma: 0, depth: 8),
        Expectation(name: "interlaced", bytes: V.interlacedSPS, profile: "High", chroma: 1, depth: 8, height: 100, level: "2.1"),
        Expectation(name: "64x64 25 fps", bytes: V.small25fpsSPS, profile: "High", chroma: 1, depth: 8,
                    width: 64, height: 64, rate: Rational(25, 1), level: "1"),
    ]

    @Test(arguments: expectations)
    func matchesFFprobe(_ expected: Expectation) throws {
        let sps = try AVCSequenceParameterSet(nalUnit: expected.bytes)
        #expect(sps.profileName == expected.profile)
        #expect(sps.chromaFormatIdc == expected.chroma)
        #expect(sps.chromaArrayType == expected.chroma)
        #expect(sps.bitDepthLuma == expected.depth)
        #expect(sps.bitDepthChroma == expected.depth)
        #expect(sps.width == expected.width)
        #expect(sps.height == expected.height)
        #expect(sps.frameRate == expected.rate)
        #expect(sps.levelName == expected.level)
    }

    @Test func baselineWithoutConstraintSet1() throws {
        // The x264 Baseline SPS with constraint_set1_flag cleared (C0 → 80): plain Baseline.
        var bytes = V.constrainedBaselineSPS
        bytes[2] = 0x80
        let sps = try AVCSequenceParameterSet(nalUnit: bytes)
        #expect(sps.constraintSet0Flag && !sps.constraintSet1Flag)
        #expect(sps.profileName == "Baseline")
        let constrained = try AVCSequenceParameterSet(nalUnit: V.constrainedBaselineSPS)
        #expect(constrained.constraintSetFlags == 0xC0)
        #expect(constrained.constraintSet0Flag && constrained.constraintSet1Flag)
        #expect(!constrained.constraintSet2Flag && !constrained.constraintSet3Flag)
        #expect(!constrained.constraintSet4Flag && !constrained.constraintSet5Flag)
        #expect(constrained.chromaFormatIdc == 1)  // inferred outside the High profiles
    }

    @Test func interlacedMBAFF() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: V.interlacedSPS)
        #expect(sps.frameMbsOnlyFlag == false)
        #expect(sps.mbAdaptiveFrameFieldFlag)
        #expect(sps.picHeightInMapUnitsMinus1 == 3)
        #expect(sps.frameHeightInMbs == 8)
        #expect(sps.frameCropBottomOffset == 7)  // CropUnitY = 2 · (2 − 0) = 4: 128 − 4 · 7 = 100
        #expect(sps.codedHeight == 128)
        #expect(sps.height == 100)
        #expect(sps.levelIdc == 21)
    }

    @Test func emulationPreventionInsideSPS() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: V.small25fpsSPS)
        #expect(sps.frameCroppingFlag == false)
        #expect(sps.vuiParameters?.numUnitsInTick == 1)
        #expect(sps.vuiParameters?.timeScale == 50)
        let high10 = try AVCSequenceParameterSet(nalUnit: V.high10SPS)
        #expect(high10.bitDepthLumaMinus8 == 2)
        #expect(high10.bitDepthChromaMinus8 == 2)
        #expect(high10.vuiParameters?.numUnitsInTick == 1001)
    }

    @Test func rbspInitialiserMatchesNALUnitInitialiser() throws {
        let rbsp = RBSP(escaped: V.high10SPS[1...])
        #expect(try AVCSequenceParameterSet(rbsp: rbsp) == AVCSequenceParameterSet(nalUnit: V.high10SPS))
    }

    @Test func levelNames() throws {
        // level_idc 11 with constraint_set3 in Baseline is 1b; in High it is 1.1.
        var builder = V.SPSBuilder(profileIdc: 66, constraintFlags: 0x50, levelIdc: 11)
        var sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.levelName == "1b")
        #expect(sps.isLevel1b)
        #expect(sps.profileName == "Constrained Baseline")
        builder.profileIdc = 77
        #expect(try AVCSequenceParameterSet(nalUnit: builder.nal()).levelName == "1b")
        builder.profileIdc = 100
        #expect(try AVCSequenceParameterSet(nalUnit: builder.nal()).levelName == "1.1")
        builder.levelIdc = 9
        sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.levelName == "1b")
        builder.levelIdc = 30
        #expect(try AVCSequenceParameterSet(nalUnit: builder.nal()).levelName == "3")
        builder.levelIdc = 62
        #expect(try AVCSequenceParameterSet(nalUnit: builder.nal()).levelName == "6.2")
    }

    @Test func profileNamesMatchFFmpegTable() {
        func name(_ idc: UInt8, _ flags: UInt8 = 0) -> String { AVCProfile.name(profileIdc: idc, constraintSetFlags: flags) }
        #expect(name(66) == "Baseline")
        #expect(name(66, 0x40) == "Constrained Baseline")
        #expect(name(77) == "Main")
        #expect(name(77, 0x40) == "Main")
        #expect(name(88) == "Extended")
        #expect(name(100) == "High")
        #expect(name(100, 0x10) == "High")  // FFmpeg has no "High Intra"
        #expect(name(110) == "High 10")
        #expect(name(110, 0x10) == "High 10 Intra")
        #expect(name(122) == "High 4:2:2")
        #expect(name(122, 0x10) == "High 4:2:2 Intra")
        #expect(name(244) == "High 4:4:4 Predictive")
        #expect(name(244, 0x10) == "High 4:4:4 Intra")
        #expect(name(44) == "CAVLC 4:4:4")
        #expect(name(118) == "Multiview High")
        #expect(name(128) == "Stereo High")
        #expect(name(83) == "Scalable Baseline")
        #expect(name(86) == "Scalable High")
        #expect(name(134) == "MFC High")
        #expect(name(135) == "MFC Depth High")
        #expect(name(138) == "Multiview Depth High")
        #expect(name(139) == "Enhanced Multiview Depth High")
        #expect(name(1) == "1")
    }

    @Test func pocType1WithOffsets() throws {
        var builder = V.SPSBuilder(profileIdc: 77)
        builder.pocType = 1
        builder.pocType1 = (alwaysZero: false, nonRef: -2, topToBottom: 1, cycle: [2, -3, 2_147_483_647])
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.picOrderCntType == 1)
        #expect(sps.deltaPicOrderAlwaysZeroFlag == false)
        #expect(sps.offsetForNonRefPic == -2)
        #expect(sps.offsetForTopToBottomField == 1)
        #expect(sps.numRefFramesInPicOrderCntCycle == 3)
        #expect(sps.offsetForRefFrame == [2, -3, 2_147_483_647])
        #expect(sps.log2MaxPicOrderCntLsbMinus4 == 0)
    }

    @Test func sequenceScalingMatrix() throws {
        // 4:4:4 → 12 lists. List 0 explicit (deltas 8, then 0s: all 16), list 1 "use default"
        // (delta -8 makes nextScale 0 at j = 0), list 6 (8x8 intra Y) explicit with varying deltas,
        // the rest absent.
        var builder = V.SPSBuilder(profileIdc: 244, chromaFormatIdc: 3)
        builder.scalingLists = { w in
            w.flag(true); w.se(8); for _ in 1..<16 { w.se(0) }
            w.flag(true); w.se(-8)
            for _ in 2..<6 { w.flag(false) }
            w.flag(true)
            // 8x8: 8, 9, 10, ... 71 → first delta 0 (lastScale 8), then +1 each.
            w.se(0); for _ in 1..<64 { w.se(1) }
            for _ in 7..<12 { w.flag(false) }
        }
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.seqScalingMatrixPresentFlag)
        let matrix = try #require(sps.seqScalingMatrix)
        #expect(matrix.lists4x4.count == 6)
        #expect(matrix.lists8x8.count == 6)
        #expect(matrix.lists4x4[0] == .explicit(Array(repeating: 16, count: 16)))
        #expect(matrix.lists4x4[1] == .useDefault)
        #expect(matrix.lists4x4[2] == .notPresent)
        #expect(matrix.lists8x8[0] == .explicit((8..<72).map { UInt8($0) }))
        #expect(matrix.lists8x8[5] == .notPresent)
        #expect(sps.width == 176 - 0 && sps.height == 112)
    }

    @Test func scalingListStopsReadingAfterZeroNextScale() throws {
        // deltas 4, then -12 → nextScale 0 at j = 1: the remaining 14 entries repeat lastScale 12.
        var builder = V.SPSBuilder()
        builder.scalingLists = { w in
            w.flag(true); w.se(4); w.se(-12)
            for _ in 1..<8 { w.flag(false) }
        }
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        let matrix = try #require(sps.seqScalingMatrix)
        #expect(matrix.lists4x4[0] == .explicit(Array(repeating: 12, count: 16)))
        #expect(matrix.lists8x8 == [.notPresent, .notPresent])
    }

    @Test func cropUnitsFollowChromaArrayType() throws {
        // 4:2:2 progressive: CropUnitX 2, CropUnitY 1.
        var builder = V.SPSBuilder(profileIdc: 122, chromaFormatIdc: 2)
        builder.crop = (1, 2, 3, 4)
        var sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.width == 176 - 2 * 3)
        #expect(sps.height == 112 - 1 * 7)
        // 4:4:4 with separate planes: ChromaArrayType 0 → CropUnitX 1, CropUnitY 2 − 1 = 1.
        builder = V.SPSBuilder(profileIdc: 244, chromaFormatIdc: 3, separateColourPlane: true)
        builder.crop = (1, 2, 3, 4)
        sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.chromaArrayType == 0)
        #expect(sps.separateColourPlaneFlag)
        #expect(sps.width == 173)
        #expect(sps.height == 105)
        // 4:2:0 field-capable: CropUnitY 4, height doubled.
        builder = V.SPSBuilder(frameMbsOnly: false)
        builder.crop = (0, 0, 1, 1)
        sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.height == 2 * 7 * 16 - 8)
    }

    @Test func vuiWithExtendedSARSignalTypeAndHRD() throws {
        var builder = V.SPSBuilder()
        builder.vui = { w in
            w.flag(true); w.u(8, 255); w.u(16, 64); w.u(16, 45)  // Extended_SAR 64:45
            w.flag(true); w.flag(true)  // overscan appropriate
            w.flag(true); w.u(3, 1); w.flag(true); w.flag(true); w.u(8, 1); w.u(8, 1); w.u(8, 1)  // BT.709 full range
            w.flag(true); w.ue(2); w.ue(2)  // chroma loc 2/2
            w.flag(true); w.u(32, 1); w.u(32, 50); w.flag(true)  // 25 fps fixed
            w.flag(true)  // NAL HRD
            w.ue(1); w.u(4, 2); w.u(4, 3)
            w.ue(999); w.ue(2999); w.flag(false)
            w.ue(1999); w.ue(3999); w.flag(true)
            w.u(5, 23); w.u(5, 23); w.u(5, 23); w.u(5, 24)
            w.flag(false)  // no VCL HRD
            w.flag(true)  // low delay
            w.flag(true)  // pic_struct_present_flag
            w.flag(false)  // no bitstream restriction
        }
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        let vui = try #require(sps.vuiParameters)
        #expect(vui.aspectRatioIdc == 255)
        #expect(vui.sarWidth == 64 && vui.sarHeight == 45)
        #expect(vui.sampleAspectRatio == Rational(64, 45))
        #expect(vui.overscanAppropriateFlag)
        #expect(vui.videoFormat == 1 && vui.videoFullRangeFlag)
        #expect(vui.colourPrimaries == 1 && vui.transferCharacteristics == 1 && vui.matrixCoefficients == 1)
        #expect(vui.chromaSampleLocTypeTopField == 2 && vui.chromaSampleLocTypeBottomField == 2)
        #expect(vui.fixedFrameRateFlag)
        #expect(sps.frameRate == Rational(25, 1))
        let hrd = try #require(vui.nalHRDParameters)
        #expect(vui.vclHRDParameters == nil)
        #expect(hrd.cpbCntMinus1 == 1)
        #expect(hrd.bitRateScale == 2 && hrd.cpbSizeScale == 3)
        #expect(hrd.schedules.count == 2)
        #expect(hrd.schedules[1] == AVCHRDParameters.Schedule(bitRateValueMinus1: 1999, cpbSizeValueMinus1: 3999, cbrFlag: true))
        #expect(hrd.bitRate(0) == 1000 * 256)
        #expect(hrd.cpbSize(1) == 4000 * 128)
        #expect(hrd.bitRate(2) == nil)
        #expect(hrd.initialCpbRemovalDelayLengthMinus1 == 23 && hrd.timeOffsetLength == 24)
        #expect(vui.lowDelayHRDFlag)
        #expect(vui.picStructPresentFlag)
        #expect(vui.bitstreamRestrictionFlag == false)
        #expect(vui.maxNumReorderFrames == nil)
        #expect(vui.log2MaxMvLengthHorizontal == 15)
    }

    @Test func frameRateNilWithoutTimingOrWithZeroTick() throws {
        var builder = V.SPSBuilder()
        #expect(try AVCSequenceParameterSet(nalUnit: builder.nal()).frameRate == nil)
        builder.vui = { w in
            w.flag(false); w.flag(false); w.flag(false); w.flag(false)
            w.flag(true); w.u(32, 0); w.u(32, 50); w.flag(false)
            w.flag(false); w.flag(false); w.flag(false); w.flag(false)
        }
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.vuiParameters?.timingInfoPresentFlag == true)
        #expect(sps.frameRate == nil)
    }
}
