import Testing
@testable import NALU

@Suite struct HEVCPictureParameterSetTests {
    @Test func x265PPSWithWavefronts() throws {
        let pps = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.mainPPS[...])
        #expect(pps.ppsPicParameterSetId == 0)
        #expect(pps.ppsSeqParameterSetId == 0)
        #expect(!pps.dependentSliceSegmentsEnabledFlag)
        #expect(!pps.outputFlagPresentFlag)
        #expect(pps.numExtraSliceHeaderBits == 0)
        #expect(pps.signDataHidingEnabledFlag)
        #expect(!pps.cabacInitPresentFlag)
        #expect(pps.numRefIdxL0DefaultActiveMinus1 == 0)
        #expect(pps.numRefIdxL1DefaultActiveMinus1 == 0)
        #expect(pps.initQpMinus26 == 0)
        #expect(!pps.constrainedIntraPredFlag)
        #expect(!pps.transformSkipEnabledFlag)
        #expect(pps.cuQpDeltaEnabledFlag)
        #expect(pps.diffCuQpDeltaDepth == 1)
        #expect(pps.ppsCbQpOffset == 0)
        #expect(pps.ppsCrQpOffset == 0)
        #expect(!pps.ppsSliceChromaQpOffsetsPresentFlag)
        #expect(pps.weightedPredFlag)
        #expect(!pps.weightedBipredFlag)
        #expect(!pps.transquantBypassEnabledFlag)
        #expect(!pps.tilesEnabledFlag)
        #expect(pps.entropyCodingSyncEnabledFlag)
        #expect(pps.numTileColumnsMinus1 == 0)
        #expect(pps.uniformSpacingFlag)
        #expect(pps.loopFilterAcrossTilesEnabledFlag)
        #expect(pps.ppsLoopFilterAcrossSlicesEnabledFlag)
        #expect(!pps.deblockingFilterControlPresentFlag)
        #expect(!pps.ppsScalingListDataPresentFlag)
        #expect(pps.scalingListData == nil)
        #expect(!pps.listsModificationPresentFlag)
        #expect(pps.log2ParallelMergeLevelMinus2 == 0)
        #expect(!pps.sliceSegmentHeaderExtensionPresentFlag)
        #expect(!pps.ppsExtensionPresentFlag)
        #expect(pps.ppsRangeExtension == nil)

        let p444 = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.yuv444pPPS[...])
        #expect(p444.ppsCbQpOffset == 6)
        #expect(p444.ppsCrQpOffset == 6)
        #expect(try HEVCPictureParameterSet(rbsp: RBSP(escaped: HEVCFixtures.yuv444pPPS.dropFirst(2))) == p444)
    }

    struct PPSOptions {
        var id: UInt32 = 5
        var dependentSlices = false
        var outputFlagPresent = false
        var extraBits: UInt64 = 0
        var transformSkip = false
        var tiles: (columns: [UInt32], rows: [UInt32], uniform: Bool)? = nil
        var wavefronts = false
        var deblocking = false
        var scalingList = false
        var rangeExtension = false
        var sccExtension = false
    }

    static func pps(_ o: PPSOptions) -> [UInt8] {
        var w = HEVCSyntaxWriter()
        w.bits.ue(o.id); w.bits.ue(2)
        w.bits.flag(o.dependentSlices); w.bits.flag(o.outputFlagPresent); w.bits.u(3, o.extraBits)
        w.bits.flag(false); w.bits.flag(true)
        w.bits.ue(3); w.bits.ue(14)
        w.bits.se(-30)
        w.bits.flag(true); w.bits.flag(o.transformSkip)
        w.bits.flag(true); w.bits.ue(3)
        w.bits.se(-12); w.bits.se(12)
        w.bits.flag(true); w.bits.flag(true); w.bits.flag(true); w.bits.flag(true)
        w.bits.flag(o.tiles != nil); w.bits.flag(o.wavefronts)
        if let tiles = o.tiles {
            w.bits.ue(UInt32(tiles.columns.count)); w.bits.ue(UInt32(tiles.rows.count))
            w.bits.flag(tiles.uniform)
            if !tiles.uniform {
                for c in tiles.columns { w.bits.ue(c) }
                for r in tiles.rows { w.bits.ue(r) }
            }
            w.bits.flag(false)                  // loop_filter_across_tiles_enabled_flag
        }
        w.bits.flag(false)                      // pps_loop_filter_across_slices_enabled_flag
        w.bits.flag(o.deblocking)
        if o.deblocking {
            w.bits.flag(true); w.bits.flag(false); w.bits.se(-6); w.bits.se(6)
        }
        w.bits.flag(o.scalingList)
        if o.scalingList {
            // Every matrix: scaling_list_pred_mode_flag 0, delta 0 (defaults).
            for sizeId in 0..<4 { for _ in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) { w.bits.flag(false); w.bits.ue(0) } }
        }
        w.bits.flag(true); w.bits.ue(2); w.bits.flag(true)
        if o.rangeExtension || o.sccExtension {
            w.bits.flag(true)
            w.bits.flag(o.rangeExtension); w.bits.flag(false); w.bits.flag(false); w.bits.flag(o.sccExtension)
            w.bits.u(4, 0)
            if o.rangeExtension {
                if o.transformSkip { w.bits.ue(3) }
                w.bits.flag(true); w.bits.flag(true)
                w.bits.ue(2); w.bits.ue(2)
                for v: Int32 in [-12, 0, 12] { w.bits.se(v); w.bits.se(-v) }
                w.bits.ue(2); w.bits.ue(0)
            }
            if o.sccExtension { w.bits.u(20, 0xABCDE) }
        } else {
            w.bits.flag(false)
        }
        return w.nalUnit(type: 34)
    }

    @Test func explicitTilesWavefrontsDeblockingAndRangeExtension() throws {
        var options = PPSOptions()
        options.tiles = ([3, 5, 7], [1, 2], false)
        options.wavefronts = true
        options.deblocking = true
        options.transformSkip = true
        options.rangeExtension = true
        options.outputFlagPresent = true
        options.extraBits = 2
        let pps = try HEVCPictureParameterSet(nalUnit: Self.pps(options)[...])
        #expect(pps.ppsPicParameterSetId == 5)
        #expect(pps.ppsSeqParameterSetId == 2)
        #expect(pps.outputFlagPresentFlag)
        #expect(pps.numExtraSliceHeaderBits == 2)
        #expect(pps.cabacInitPresentFlag)
        #expect(pps.numRefIdxL0DefaultActiveMinus1 == 3)
        #expect(pps.numRefIdxL1DefaultActiveMinus1 == 14)
        #expect(pps.initQpMinus26 == -30)
        #expect(pps.diffCuQpDeltaDepth == 3)
        #expect(pps.ppsCbQpOffset == -12)
        #expect(pps.ppsCrQpOffset == 12)
        #expect(pps.tilesEnabledFlag)
        #expect(pps.entropyCodingSyncEnabledFlag)
        #expect(pps.numTileColumnsMinus1 == 3)
        #expect(pps.numTileRowsMinus1 == 2)
        #expect(!pps.uniformSpacingFlag)
        #expect(pps.columnWidthMinus1 == [3, 5, 7])
        #expect(pps.rowHeightMinus1 == [1, 2])
        #expect(!pps.loopFilterAcrossTilesEnabledFlag)
        #expect(!pps.ppsLoopFilterAcrossSlicesEnabledFlag)
        #expect(pps.deblockingFilterControlPresentFlag)
        #expect(pps.deblockingFilterOverrideEnabledFlag)
        #expect(!pps.ppsDeblockingFilterDisabledFlag)
        #expect(pps.ppsBetaOffsetDiv2 == -6)
        #expect(pps.ppsTcOffsetDiv2 == 6)
        #expect(pps.listsModificationPresentFlag)
        #expect(pps.log2ParallelMergeLevelMinus2 == 2)
        #expect(pps.sliceSegmentHeaderExtensionPresentFlag)
        #expect(pps.ppsRangeExtension == HEVCPictureParameterSet.RangeExtension(
            log2MaxTransformSkipBlockSizeMinus2: 3, crossComponentPredictionEnabledFlag: true,
            chromaQpOffsetListEnabledFlag: true, diffCuChromaQpOffsetDepth: 2,
            cbQpOffsetList: [-12, 0, 12], crQpOffsetList: [12, 0, -12],
            log2SaoOffsetScaleLuma: 2, log2SaoOffsetScaleChroma: 0))
    }

    @Test func uniformTilesScalingListsAndSkippedExtension() throws {
        var options = PPSOptions()
        options.tiles = ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], Array(repeating: 0, count: 21), true)
        options.scalingList = true
        options.sccExtension = true
        let pps = try HEVCPictureParameterSet(nalUnit: Self.pps(options)[...])
        #expect(pps.numTileColumnsMinus1 == 19)
        #expect(pps.numTileRowsMinus1 == 21)
        #expect(pps.uniformSpacingFlag)
        #expect(pps.columnWidthMinus1.isEmpty)
        #expect(pps.scalingListData == .default)
        #expect(pps.ppsSccExtensionFlag)
        #expect(pps.ppsRangeExtension == nil)
    }

    @Test func rejectsOutOfRangeValues() {
        var options = PPSOptions()
        options.id = 64
        #expect { _ = try HEVCPictureParameterSet(nalUnit: Self.pps(options)[...]) } throws: {
            ($0 as? NALUError) == NALUError(.invalidValue, field: "pps_pic_parameter_set_id", byteOffset: 2, bitOffset: 16,
                                            detail: "64 not in 0...63")
        }
        options.id = 0
        options.tiles = (Array(repeating: 0, count: 20), [], true)
        #expect { _ = try HEVCPictureParameterSet(nalUnit: Self.pps(options)[...]) } throws: {
            ($0 as? NALUError)?.field == "num_tile_columns_minus1"
        }
        options.tiles = ([], Array(repeating: 0, count: 22), true)
        #expect { _ = try HEVCPictureParameterSet(nalUnit: Self.pps(options)[...]) } throws: {
            ($0 as? NALUError)?.field == "num_tile_rows_minus1"
        }
        #expect { _ = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.mainVPS[...]) } throws: {
            ($0 as? NALUError)?.field == "nal_unit_type"
        }
    }
}
