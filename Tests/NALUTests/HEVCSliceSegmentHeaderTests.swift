import Testing
@testable import NALU

@Suite struct HEVCSliceSegmentHeaderTests {
    let mainSPS: HEVCSequenceParameterSet
    let mainPPS: HEVCPictureParameterSet

    init() throws {
        mainSPS = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.mainSPS[...])
        mainPPS = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.mainPPS[...])
    }

    func parse(_ nal: [UInt8]) throws(NALUError) -> HEVCSliceSegmentHeader {
        try HEVCSliceSegmentHeader(nalUnit: nal[...], sps: { $0 == 0 ? mainSPS : nil },
                                   pps: { $0 == 0 ? mainPPS : nil })
    }

    @Test func x265IPBSlices() throws {
        // trace_headers: IDR_N_LP I slice; TRAIL_R P slice POC 2; TRAIL_N B slice POC 1.
        let idr = try parse(HEVCFixtures.mainSlice0)
        #expect(idr.nalUnitHeader.nalUnitType == .idrNLP)
        #expect(idr.isIRAP)
        #expect(idr.firstSliceSegmentInPicFlag)
        #expect(!idr.noOutputOfPriorPicsFlag)
        #expect(idr.slicePicParameterSetId == 0)
        #expect(!idr.dependentSliceSegmentFlag)
        #expect(idr.sliceSegmentAddress == 0)
        #expect(idr.sliceType == .i)
        #expect(idr.pictureType == .i)
        #expect(idr.picOutputFlag)
        #expect(idr.colourPlaneId == nil)
        #expect(idr.slicePicOrderCntLsb == 0)

        let p = try parse(HEVCFixtures.mainSlice1)
        #expect(p.nalUnitHeader.nalUnitType == .trailR)
        #expect(!p.isIRAP)
        #expect(p.firstSliceSegmentInPicFlag)
        #expect(p.pictureType == .p)
        #expect(p.slicePicOrderCntLsb == 2)

        let b = try parse(HEVCFixtures.mainSlice2)
        #expect(b.nalUnitHeader.nalUnitType == .trailN)
        #expect(b.pictureType == .b)
        #expect(b.slicePicOrderCntLsb == 1)
        #expect(b.pictureType?.description == "B")
    }

    @Test func temporalSubLayerSlice() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.temporalLayersSPS[...])
        let header = try HEVCSliceSegmentHeader(nalUnit: HEVCFixtures.temporalLayersSlice2[...],
                                                sps: { _ in sps }, pps: { _ in mainPPS })
        #expect(header.nalUnitHeader.nalUnitType == .tsaN)
        #expect(header.nalUnitHeader.temporalId == 1)
        #expect(header.pictureType == .b)
        #expect(header.slicePicOrderCntLsb == 1)
    }

    @Test func x265MultipleSlicesAndOpenGOP() throws {
        // 352×288 with 32×32 CTBs: 11 × 9 = 99 CTBs, so slice_segment_address has 7 bits.
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.multiSliceSPS[...])
        let pps = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.multiSlicePPS[...])
        #expect(sps.width == 352)
        #expect(sps.height == 288)
        #expect(sps.log2CtbSize == 5)
        #expect(sps.picSizeInCtbsY == 99)
        #expect(sps.frameRate == Rational(25, 1))
        #expect(sps.levelName == "2")
        // The second slice segment of the first CRA picture (trace_headers: address 33, I, POC 16).
        let cra = try HEVCSliceSegmentHeader(nalUnit: HEVCFixtures.multiSliceCRASecondSegment[...],
                                             sps: { _ in sps }, pps: { _ in pps })
        #expect(cra.nalUnitHeader.nalUnitType == .cra)
        #expect(cra.isIRAP)
        #expect(!cra.firstSliceSegmentInPicFlag)
        #expect(!cra.noOutputOfPriorPicsFlag)
        #expect(!cra.dependentSliceSegmentFlag)
        #expect(cra.sliceSegmentAddress == 33)
        #expect(cra.pictureType == .i)
        #expect(cra.slicePicOrderCntLsb == 16)
        // A RASL_N picture after it: B, POC 14.
        let rasl = try HEVCSliceSegmentHeader(nalUnit: HEVCFixtures.multiSliceRASL[...],
                                              sps: { _ in sps }, pps: { _ in pps })
        #expect(rasl.nalUnitHeader.nalUnitType == .raslN)
        #expect(rasl.firstSliceSegmentInPicFlag)
        #expect(rasl.pictureType == .b)
        #expect(rasl.slicePicOrderCntLsb == 14)
    }

    @Test func missingParameterSets() {
        #expect {
            _ = try HEVCSliceSegmentHeader(nalUnit: HEVCFixtures.mainSlice1[...], sps: { _ in mainSPS }, pps: { _ in nil })
        } throws: { error in
            let error = error as? NALUError
            return error?.code == .missing && error?.field == "slice_pic_parameter_set_id"
        }
        #expect {
            _ = try HEVCSliceSegmentHeader(nalUnit: HEVCFixtures.mainSlice1[...], sps: { _ in nil }, pps: { _ in mainPPS })
        } throws: { error in
            let error = error as? NALUError
            return error?.code == .missing && error?.field == "pps_seq_parameter_set_id"
        }
        #expect { _ = try parse(HEVCFixtures.mainSPS) } throws: { ($0 as? NALUError)?.field == "nal_unit_type" }
    }

    /// 1920×1080 with 64×64 CTBs: PicSizeInCtbsY = 30 × 17 = 510, so slice_segment_address has 9 bits.
    struct Synthetic {
        let sps: HEVCSequenceParameterSet
        let pps: HEVCPictureParameterSet

        init(separateColourPlane: Bool = false) throws {
            var spsOptions = HEVCSyntaxWriter.SPSOptions()
            if separateColourPlane {
                spsOptions.chromaFormatIdc = 3
                spsOptions.separateColourPlane = true
                spsOptions.conformanceWindow = (0, 0, 0, 8)
            }
            sps = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(spsOptions)[...])
            var ppsOptions = HEVCPictureParameterSetTests.PPSOptions()
            ppsOptions.dependentSlices = true
            ppsOptions.outputFlagPresent = true
            ppsOptions.extraBits = 2
            pps = try HEVCPictureParameterSet(nalUnit: HEVCPictureParameterSetTests.pps(ppsOptions)[...])
        }

        func parse(_ nal: [UInt8]) throws(NALUError) -> HEVCSliceSegmentHeader {
            try HEVCSliceSegmentHeader(nalUnit: nal[...], sps: { $0 == 2 ? sps : nil }, pps: { $0 == 5 ? pps : nil })
        }
    }

    @Test func sliceSegmentAddressReservedBitsAndOutputFlag() throws {
        let synthetic = try Synthetic()
        #expect(synthetic.sps.picSizeInCtbsY == 510)
        var w = HEVCSyntaxWriter()
        w.bits.flag(false)                      // first_slice_segment_in_pic_flag
        w.bits.flag(true)                       // no_output_of_prior_pics_flag (CRA)
        w.bits.ue(5)
        w.bits.flag(false)                      // dependent_slice_segment_flag
        w.bits.u(9, 300)
        w.bits.u(2, 0b10)                       // slice_reserved_flag × 2
        w.bits.ue(0)                            // B
        w.bits.flag(false)                      // pic_output_flag
        w.bits.u(8, 77)
        let cra = try synthetic.parse(w.nalUnit(type: 21))
        #expect(cra.nalUnitHeader.nalUnitType == .cra)
        #expect(cra.noOutputOfPriorPicsFlag)
        #expect(cra.slicePicParameterSetId == 5)
        #expect(!cra.dependentSliceSegmentFlag)
        #expect(cra.sliceSegmentAddress == 300)
        #expect(cra.sliceReservedFlags == 0b10)
        #expect(cra.sliceType == .b)
        #expect(!cra.picOutputFlag)
        #expect(cra.slicePicOrderCntLsb == 77)

        var dependent = HEVCSyntaxWriter()
        dependent.bits.flag(false)
        dependent.bits.ue(5)
        dependent.bits.flag(true)               // dependent_slice_segment_flag
        dependent.bits.u(9, 509)
        let segment = try synthetic.parse(dependent.nalUnit(type: 1))
        #expect(segment.dependentSliceSegmentFlag)
        #expect(segment.sliceSegmentAddress == 509)
        #expect(segment.sliceType == nil)
        #expect(segment.slicePicOrderCntLsb == nil)

        var outside = HEVCSyntaxWriter()
        outside.bits.flag(false)
        outside.bits.ue(5)
        outside.bits.flag(true)
        outside.bits.u(9, 510)
        #expect { _ = try synthetic.parse(outside.nalUnit(type: 1)) } throws: {
            ($0 as? NALUError)?.field == "slice_segment_address"
        }
    }

    @Test func colourPlaneId() throws {
        let synthetic = try Synthetic(separateColourPlane: true)
        var w = HEVCSyntaxWriter()
        w.bits.flag(true)
        w.bits.flag(false)                      // no_output_of_prior_pics_flag (IDR)
        w.bits.ue(5)
        w.bits.u(2, 0)
        w.bits.ue(2)                            // I
        w.bits.flag(true)
        w.bits.u(2, 2)                          // colour_plane_id
        let header = try synthetic.parse(w.nalUnit(type: 19))
        #expect(header.colourPlaneId == 2)
        #expect(header.slicePicOrderCntLsb == 0)

        var bad = HEVCSyntaxWriter()
        bad.bits.flag(true)
        bad.bits.flag(false)
        bad.bits.ue(5)
        bad.bits.u(2, 0)
        bad.bits.ue(2)
        bad.bits.flag(true)
        bad.bits.u(2, 3)
        #expect { _ = try synthetic.parse(bad.nalUnit(type: 19)) } throws: {
            ($0 as? NALUError)?.field == "colour_plane_id"
        }
    }

    @Test func readsOnlyABoundedPrefixOfLargeSlices() throws {
        // A 1 MB slice whose payload after the header is full of emulation-prevention patterns.
        var nal = HEVCFixtures.mainSlice1
        nal.reserveCapacity(1 << 20)
        while nal.count < 1 << 20 { nal.append(contentsOf: [0x00, 0x00, 0x03, 0x01]) }
        let header = try parse(nal)
        #expect(header.slicePicOrderCntLsb == 2)
    }

    @Test func truncatedSlicesThrow() throws {
        // The P slice's header fields end in byte 3 (13 bits after the NAL header).
        for length in 0..<4 {
            #expect(throws: NALUError.self) { _ = try parse(Array(HEVCFixtures.mainSlice1.prefix(length))) }
        }
        #expect(try parse(Array(HEVCFixtures.mainSlice1.prefix(4))).slicePicOrderCntLsb == 2)
    }
}
