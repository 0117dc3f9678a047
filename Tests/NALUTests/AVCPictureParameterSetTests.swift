import Testing
@testable import NALU

@Suite struct AVCPictureParameterSetTests {
    typealias V = AVCTestVectors

    @Test func highPPSWithTransform8x8() throws {
        // trace_headers: entropy_coding_mode_flag=1, num_ref_idx_l0_default_active_minus1=2,
        // weighted_pred_flag=1, weighted_bipred_idc=2, pic_init_qp_minus26=-3,
        // chroma_qp_index_offset=-2, deblocking_filter_control_present_flag=1,
        // transform_8x8_mode_flag=1, pic_scaling_matrix_present_flag=0,
        // second_chroma_qp_index_offset=-2.
        let pps = try AVCPictureParameterSet(nalUnit: V.highPPS[...])
        #expect(pps.picParameterSetId == 0)
        #expect(pps.seqParameterSetId == 0)
        #expect(pps.entropyCodingModeFlag)
        #expect(pps.bottomFieldPicOrderInFramePresentFlag == false)
        #expect(pps.numSliceGroupsMinus1 == 0)
        #expect(pps.numRefIdxL0DefaultActiveMinus1 == 2)
        #expect(pps.numRefIdxL1DefaultActiveMinus1 == 0)
        #expect(pps.weightedPredFlag)
        #expect(pps.weightedBipredIdc == 2)
        #expect(pps.picInitQpMinus26 == -3)
        #expect(pps.picInitQsMinus26 == 0)
        #expect(pps.chromaQpIndexOffset == -2)
        #expect(pps.deblockingFilterControlPresentFlag)
        #expect(pps.constrainedIntraPredFlag == false)
        #expect(pps.redundantPicCntPresentFlag == false)
        #expect(pps.transform8x8ModeFlag)
        #expect(pps.picScalingMatrixPresentFlag == false)
        #expect(pps.picScalingMatrix == nil)
        #expect(pps.secondChromaQpIndexOffset == -2)
    }

    @Test func mainPPSWithoutTail() throws {
        let pps = try AVCPictureParameterSet(nalUnit: V.mainPPS[...])
        #expect(pps.entropyCodingModeFlag)
        #expect(pps.transform8x8ModeFlag == false)
        #expect(pps.picScalingMatrixPresentFlag == false)
        #expect(pps.secondChromaQpIndexOffset == pps.chromaQpIndexOffset)
        #expect(pps.chromaQpIndexOffset == -2)
        let baseline = try AVCPictureParameterSet(nalUnit: V.constrainedBaselinePPS[...])
        #expect(baseline.entropyCodingModeFlag == false)  // CAVLC
        #expect(baseline.weightedPredFlag == false)
        #expect(baseline.weightedBipredIdc == 0)
    }

    @Test func high444PPS() throws {
        let pps = try AVCPictureParameterSet(nalUnit: V.high444PPS[...])
        #expect(pps.chromaQpIndexOffset == 4)
        #expect(pps.transform8x8ModeFlag)
        #expect(pps.secondChromaQpIndexOffset == 4)
        let interlaced = try AVCPictureParameterSet(nalUnit: V.interlacedPPS[...])
        #expect(interlaced.bottomFieldPicOrderInFramePresentFlag)
    }

    @Test func jvtScalingMatrixFlagsOnly() throws {
        let pps = try AVCPictureParameterSet(nalUnit: V.jvtCQMPPS[...])
        #expect(pps.picScalingMatrixPresentFlag)
        let matrix = try #require(pps.picScalingMatrix)
        #expect(matrix.lists4x4 == Array(repeating: .notPresent, count: 6))
        #expect(matrix.lists8x8 == [.notPresent, .notPresent])
        #expect(pps.secondChromaQpIndexOffset == -2)
    }

    @Test func customScalingMatrixMatchesCQMFile() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: V.highSPS)
        let pps = try AVCPictureParameterSet(nalUnit: V.customCQMPPS[...], sps: { $0 == 0 ? sps : nil })
        #expect(pps.transform8x8ModeFlag)
        let matrix = try #require(pps.picScalingMatrix)
        #expect(matrix.lists4x4.count == 6)
        #expect(matrix.lists8x8.count == 2)
        let zigZag4 = V.zigZag(size: 4)
        let zigZag8 = V.zigZag(size: 8)
        #expect(zigZag4 == [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15])  // Table 8-12
        // Lists 0, 1, 3, 4 are coded; 2 and 5 (Cr) are left out.
        for list in [0, 1, 3, 4] {
            guard case .explicit(let values) = matrix.lists4x4[list] else {
                Issue.record("list \(list) is \(matrix.lists4x4[list])"); continue
            }
            var raster = [Int](repeating: 0, count: 16)
            for (k, value) in values.enumerated() { raster[zigZag4[k]] = Int(value) }
            #expect(raster == (0..<16).map { V.customCQM4x4(list: list, row: $0 / 4, column: $0 % 4) })
        }
        #expect(matrix.lists4x4[2] == .notPresent)
        #expect(matrix.lists4x4[5] == .notPresent)
        for list in 0..<2 {
            guard case .explicit(let values) = matrix.lists8x8[list] else {
                Issue.record("8x8 list \(list) is \(matrix.lists8x8[list])"); continue
            }
            var raster = [Int](repeating: 0, count: 64)
            for (k, value) in values.enumerated() { raster[zigZag8[k]] = Int(value) }
            #expect(raster == (0..<64).map { V.customCQM8x8(list: list, row: $0 / 8, column: $0 % 8) })
        }
        // The same PPS parses identically with the chroma_format_idc given directly.
        #expect(try AVCPictureParameterSet(nalUnit: V.customCQMPPS[...], chromaFormatIdc: 1) == pps)
    }

    @Test func eightByEightListCountNeedsTheSPS() throws {
        // A 4:4:4 PPS with transform_8x8 and pic_scaling_matrix: 6 + 6 lists.
        let nal = V.nal(0x68) { w in
            w.ue(0); w.ue(0); w.flag(true); w.flag(false); w.ue(0)
            w.ue(0); w.ue(0); w.flag(false); w.u(2, 0); w.se(0); w.se(0); w.se(0)
            w.flag(true); w.flag(false); w.flag(false)
            w.flag(true); w.flag(true)  // transform_8x8_mode_flag, pic_scaling_matrix_present_flag
            for index in 0..<12 { w.flag(index == 11); if index == 11 { w.se(-8) } }
            w.se(3)
            w.rbspTrailingBits()
        }
        let sps444 = try AVCSequenceParameterSet(nalUnit: V.high444SPS)
        let pps = try AVCPictureParameterSet(nalUnit: nal[...], sps: { _ in sps444 })
        #expect(pps.picScalingMatrix?.lists8x8.count == 6)
        #expect(pps.picScalingMatrix?.lists8x8[5] == .useDefault)
        #expect(pps.secondChromaQpIndexOffset == 3)
        #expect(try AVCPictureParameterSet(nalUnit: nal[...], chromaFormatIdc: 3) == pps)
        // Unknown SPS: the count of 8x8 lists cannot be known.
        #expect {
            _ = try AVCPictureParameterSet(nalUnit: nal[...], sps: { _ in nil })
        } throws: { ($0 as? NALUError)?.code == .missing && ($0 as? NALUError)?.field == "seq_parameter_set_id" }
        // Parsed as 4:2:0 the stream is misread and does not end where it should.
        #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: nal[...]) }
    }

    @Test func sliceGroupMapTypes() throws {
        func pps(groupsMinus1: UInt32, mapType: UInt32, _ body: @escaping (inout BitWriter) -> Void) -> [UInt8] {
            V.nal(0x68) { w in
                w.ue(3); w.ue(1); w.flag(false); w.flag(false); w.ue(groupsMinus1); w.ue(mapType)
                body(&w)
                w.ue(0); w.ue(0); w.flag(false); w.u(2, 0); w.se(0); w.se(0); w.se(0)
                w.flag(false); w.flag(false); w.flag(false)
                w.rbspTrailingBits()
            }
        }
        let type0 = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 2, mapType: 0) { w in
            w.ue(4); w.ue(5); w.ue(6)
        }[...])
        #expect(type0.picParameterSetId == 3 && type0.seqParameterSetId == 1)
        #expect(type0.numSliceGroupsMinus1 == 2 && type0.sliceGroupMapType == 0)
        #expect(type0.runLengthMinus1 == [4, 5, 6])
        let type2 = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 2, mapType: 2) { w in
            w.ue(0); w.ue(10); w.ue(11); w.ue(22)
        }[...])
        #expect(type2.topLeft == [0, 11] && type2.bottomRight == [10, 22])
        let type4 = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 1, mapType: 4) { w in
            w.flag(true); w.ue(9)
        }[...])
        #expect(type4.sliceGroupChangeDirectionFlag && type4.sliceGroupChangeRateMinus1 == 9)
        let type6 = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 4, mapType: 6) { w in
            w.ue(4); for id in [0, 1, 2, 3, 4] as [UInt64] { w.u(3, id) }
        }[...])
        #expect(type6.picSizeInMapUnitsMinus1 == 4)
        #expect(type6.sliceGroupId == [0, 1, 2, 3, 4])
        // slice_group_id above num_slice_groups_minus1.
        #expect(throws: NALUError.self) {
            _ = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 4, mapType: 6) { w in
                w.ue(1); w.u(3, 0); w.u(3, 7)
            }[...])
        }
        // pic_size_in_map_units_minus1 far larger than the data: refused before allocating.
        do {
            _ = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 1, mapType: 6) { w in
                w.ue(4_000_000_000)
            }[...])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.field == "slice_group_id")
        }
        // With the SPS known, the map size must match PicSizeInMapUnits (77 for 174x98).
        let sps = try AVCSequenceParameterSet(nalUnit: V.highSPS)
        do {
            _ = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 1, mapType: 6) { w in
                w.ue(4); for _ in 0..<5 { w.u(1, 0) }
            }[...], sps: { _ in sps })
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "pic_size_in_map_units_minus1")
        }
        // run_length_minus1 beyond the picture when the SPS is known.
        #expect(throws: NALUError.self) {
            _ = try AVCPictureParameterSet(nalUnit: pps(groupsMinus1: 1, mapType: 0) { w in
                w.ue(77); w.ue(0)
            }[...], sps: { _ in sps })
        }
    }

    @Test func rbspInitialiser() throws {
        #expect(try AVCPictureParameterSet(rbsp: RBSP(escaped: V.highPPS[1...])) == AVCPictureParameterSet(nalUnit: V.highPPS[...]))
    }
}
