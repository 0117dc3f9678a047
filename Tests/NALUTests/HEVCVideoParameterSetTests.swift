import Testing
@testable import NALU

@Suite struct HEVCVideoParameterSetTests {
    @Test func mainVPSFromX265() throws {
        let vps = try HEVCVideoParameterSet(nalUnit: HEVCFixtures.mainVPS[...])
        #expect(vps.vpsVideoParameterSetId == 0)
        #expect(vps.vpsBaseLayerInternalFlag)
        #expect(vps.vpsBaseLayerAvailableFlag)
        #expect(vps.vpsMaxLayersMinus1 == 0)
        #expect(vps.vpsMaxSubLayersMinus1 == 0)
        #expect(vps.vpsTemporalIdNestingFlag)
        #expect(vps.vpsReserved0xffff16bits == 0xFFFF)
        #expect(vps.profileTierLevel.generalProfileIdc == 1)
        #expect(vps.profileTierLevel.generalProfileCompatibilityFlags == 0x6000_0000)
        #expect(vps.profileTierLevel.generalConstraintIndicatorFlags == 0x9000_0000_0000)
        #expect(vps.profileTierLevel.generalLevelIdc == 30)
        #expect(vps.vpsSubLayerOrderingInfoPresentFlag)
        #expect(vps.subLayerOrderingInfo == [HEVCSubLayerOrderingInfo(maxDecPicBufferingMinus1: 4, maxNumReorderPics: 2,
                                                                      maxLatencyIncreasePlus1: 5)])
        #expect(vps.vpsMaxLayerId == 0)
        #expect(vps.vpsNumLayerSetsMinus1 == 0)
        #expect(vps.layerIdIncludedFlag.isEmpty)
        #expect(!vps.vpsTimingInfoPresentFlag)
        #expect(vps.vpsNumHrdParameters == 0)
        #expect(!vps.vpsExtensionFlag)
    }

    @Test func rangeExtensionAndSubLayerVPS() throws {
        let p444 = try HEVCVideoParameterSet(nalUnit: HEVCFixtures.yuv444pVPS[...])
        #expect(p444.profileTierLevel.generalProfileIdc == 4)
        #expect(p444.profileTierLevel.generalConstraintIndicatorFlags == 0x9E08_0000_0000)

        let layered = try HEVCVideoParameterSet(nalUnit: HEVCFixtures.temporalLayersVPS[...])
        #expect(layered.vpsMaxSubLayersMinus1 == 1)
        #expect(!layered.vpsTemporalIdNestingFlag)
        #expect(layered.profileTierLevel.subLayers == [HEVCProfileTierLevel.SubLayer()])
        #expect(layered.subLayerOrderingInfo == Array(repeating: HEVCSubLayerOrderingInfo(
            maxDecPicBufferingMinus1: 4, maxNumReorderPics: 2, maxLatencyIncreasePlus1: 4), count: 2))
        #expect(!layered.vpsTimingInfoPresentFlag)
    }

    /// A VPS with 2 layer sets, timing and two HRD structures, the second inheriting the common
    /// part (`cprms_present_flag` 0), and sub-layer ordering info sent only for the highest layer.
    @Test func timingLayerSetsAndHRDInheritance() throws {
        var w = HEVCSyntaxWriter()
        w.bits.u(4, 3)                          // vps_video_parameter_set_id
        w.bits.flag(true); w.bits.flag(true)
        w.bits.u(6, 0)
        w.bits.u(3, 2)                          // vps_max_sub_layers_minus1
        w.bits.flag(false)
        w.bits.u(16, 0xFFFF)
        w.profileTierLevel(subLayers: [(false, false), (false, false)])
        w.bits.flag(false)                      // vps_sub_layer_ordering_info_present_flag
        w.bits.ue(5); w.bits.ue(3); w.bits.ue(0)
        w.bits.u(6, 2)                          // vps_max_layer_id
        w.bits.ue(1)                            // vps_num_layer_sets_minus1
        w.bits.flag(true); w.bits.flag(false); w.bits.flag(true)   // layer_id_included_flag[1][0...2]
        w.bits.flag(true)                       // vps_timing_info_present_flag
        w.bits.u(32, 1001); w.bits.u(32, 60000)
        w.bits.flag(true); w.bits.ue(1)         // poc proportional, ticks − 1
        w.bits.ue(2)                            // vps_num_hrd_parameters
        // hrd 0: layer set 0, common info present, VCL HRD with sub-picture parameters.
        w.bits.ue(0)
        w.bits.flag(false); w.bits.flag(true); w.bits.flag(true)
        w.bits.u(8, 10); w.bits.u(5, 4); w.bits.flag(true); w.bits.u(5, 6)
        w.bits.u(4, 2); w.bits.u(4, 3); w.bits.u(4, 1)
        w.bits.u(5, 20); w.bits.u(5, 21); w.bits.u(5, 22)
        for _ in 0..<3 {
            w.bits.flag(false); w.bits.flag(false); w.bits.flag(true)   // not fixed, low delay
            // low_delay_hrd_flag 1: no cpb_cnt_minus1; one CPB with DU values.
            w.bits.ue(99); w.bits.ue(199); w.bits.ue(9); w.bits.ue(19); w.bits.flag(true)
        }
        // hrd 1: layer set 1, cprms_present_flag 0 → inherits VCL + sub-picture flags.
        w.bits.ue(1)
        w.bits.flag(false)
        for _ in 0..<3 {
            w.bits.flag(true)                   // fixed_pic_rate_general_flag
            w.bits.ue(0)                        // elemental_duration_in_tc_minus1
            w.bits.ue(1)                        // cpb_cnt_minus1
            for k in 0..<2 { w.bits.ue(UInt32(k)); w.bits.ue(7); w.bits.ue(8); w.bits.ue(9); w.bits.flag(false) }
        }
        w.bits.flag(true)                       // vps_extension_flag
        w.bits.u(11, 0x5A5)                     // vps_extension_data_flag…
        let vps = try HEVCVideoParameterSet(nalUnit: w.nalUnit(type: 32)[...])
        #expect(vps.vpsVideoParameterSetId == 3)
        #expect(vps.vpsMaxSubLayersMinus1 == 2)
        #expect(vps.subLayerOrderingInfo == Array(repeating: HEVCSubLayerOrderingInfo(
            maxDecPicBufferingMinus1: 5, maxNumReorderPics: 3, maxLatencyIncreasePlus1: 0), count: 3))
        #expect(vps.vpsMaxLayerId == 2)
        #expect(vps.vpsNumLayerSetsMinus1 == 1)
        #expect(vps.layerIdIncludedFlag == [[true, false, true]])
        #expect(vps.vpsNumUnitsInTick == 1001)
        #expect(vps.vpsTimeScale == 60000)
        #expect(vps.vpsPocProportionalToTimingFlag)
        #expect(vps.vpsNumTicksPocDiffOneMinus1 == 1)
        #expect(vps.vpsNumHrdParameters == 2)
        let first = vps.hrdParameters[0]
        #expect(first.hrdLayerSetIdx == 0)
        #expect(first.cprmsPresentFlag)
        #expect(!first.hrdParameters.nalHrdParametersPresentFlag)
        #expect(first.hrdParameters.vclHrdParametersPresentFlag)
        #expect(first.hrdParameters.subPicHrdParamsPresentFlag)
        #expect(first.hrdParameters.tickDivisorMinus2 == 10)
        #expect(first.hrdParameters.cpbSizeDuScale == 1)
        #expect(first.hrdParameters.dpbOutputDelayLengthMinus1 == 22)
        #expect(first.hrdParameters.subLayers.count == 3)
        #expect(first.hrdParameters.subLayers[2].lowDelayHrdFlag)
        #expect(first.hrdParameters.subLayers[2].vclHrdParameters == [HEVCHRDParameters.CPB(
            bitRateValueMinus1: 99, cpbSizeValueMinus1: 199, cpbSizeDuValueMinus1: 9, bitRateDuValueMinus1: 19,
            cbrFlag: true)])
        let second = vps.hrdParameters[1]
        #expect(second.hrdLayerSetIdx == 1)
        #expect(!second.cprmsPresentFlag)
        #expect(second.hrdParameters.vclHrdParametersPresentFlag)
        #expect(second.hrdParameters.initialCpbRemovalDelayLengthMinus1 == 20)
        #expect(second.hrdParameters.subLayers[0].fixedPicRateWithinCvsFlag)
        #expect(second.hrdParameters.subLayers[0].cpbCntMinus1 == 1)
        #expect(second.hrdParameters.subLayers[1].vclHrdParameters?.map(\.bitRateValueMinus1) == [0, 1])
        #expect(vps.vpsExtensionFlag)
    }

    @Test func rejectsWrongNALType() {
        #expect(throws: NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0,
                                  detail: "expected 32 (VPS), got 33")) {
            _ = try HEVCVideoParameterSet(nalUnit: HEVCFixtures.mainSPS[...])
        }
    }
}
