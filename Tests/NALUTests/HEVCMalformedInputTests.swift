import Testing
@testable import NALU

/// Hostile and broken input: every failure must be a thrown `NALUError` naming the syntax
/// element, never a trap.
@Suite struct HEVCMalformedInputTests {
    static let parameterSets: [(String, [UInt8])] = [
        ("mainVPS", HEVCFixtures.mainVPS), ("temporalLayersVPS", HEVCFixtures.temporalLayersVPS),
        ("yuv444pVPS", HEVCFixtures.yuv444pVPS), ("hrdVPS", HEVCFixtures.hrdVPS),
        ("mainSPS", HEVCFixtures.mainSPS), ("main10SPS", HEVCFixtures.main10SPS),
        ("yuv422p10SPS", HEVCFixtures.yuv422p10SPS), ("yuv444pSPS", HEVCFixtures.yuv444pSPS),
        ("yuv420p12SPS", HEVCFixtures.yuv420p12SPS), ("temporalLayersSPS", HEVCFixtures.temporalLayersSPS),
        ("scalingListSPS", HEVCFixtures.scalingListSPS), ("hrdSPS", HEVCFixtures.hrdSPS),
        ("vuiSPS", HEVCFixtures.vuiSPS), ("interlacedSPS", HEVCFixtures.interlacedSPS),
        ("mainPPS", HEVCFixtures.mainPPS), ("yuv444pPPS", HEVCFixtures.yuv444pPPS),
        ("multiSliceSPS", HEVCFixtures.multiSliceSPS), ("multiSlicePPS", HEVCFixtures.multiSlicePPS),
    ]

    /// Parses `nal` with the parser its header names.
    static func parse(_ nal: ArraySlice<UInt8>) throws(NALUError) {
        let type = nal.first.map { ($0 >> 1) & 0x3F } ?? 0
        switch type {
        case 32: _ = try HEVCVideoParameterSet(nalUnit: nal)
        case 33: _ = try HEVCSequenceParameterSet(nalUnit: nal)
        default: _ = try HEVCPictureParameterSet(nalUnit: nal)
        }
    }

    @Test(arguments: parameterSets.map(\.0))
    func truncatedAtEveryByteOffsetThrowsTruncated(name: String) throws {
        let nal = try #require(Self.parameterSets.first { $0.0 == name }).1
        try Self.parse(nal[...])
        for length in 0..<nal.count {
            do {
                try Self.parse(nal.prefix(length))
                Issue.record("\(name) cut to \(length) of \(nal.count) bytes parsed")
            } catch {
                #expect(error.code == .truncated, "\(name) cut to \(length): \(error)")
            }
        }
    }

    @Test func everySingleBitFlipIsHandled() {
        // Flipping any bit may change the meaning or make the NAL invalid; it must never trap.
        var parsed = 0
        var rejected = 0
        for (_, nal) in Self.parameterSets {
            for bit in 0..<(nal.count * 8) {
                var copy = nal
                copy[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                do { try Self.parse(copy[...]); parsed += 1 } catch { rejected += 1 }
                _ = try? HEVCSliceSegmentHeader(nalUnit: copy[...], sps: { _ in nil }, pps: { _ in nil })
            }
        }
        #expect(parsed > 0)
        #expect(rejected > 0)
    }

    @Test func randomBytesNeverTrap() throws {
        var generator = SplitMix64(seed: 0x4E41_4C55)
        let sps = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.mainSPS[...])
        let pps = try HEVCPictureParameterSet(nalUnit: HEVCFixtures.mainPPS[...])
        for round in 0..<3000 {
            let count = Int(generator.next() % 96)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if bytes.count >= 2 {
                // Mostly valid headers so the parsers get past them.
                bytes[0] = UInt8(32 + round % 3) << 1
                bytes[1] = 1
            }
            _ = try? HEVCVideoParameterSet(nalUnit: bytes[...])
            _ = try? HEVCSequenceParameterSet(nalUnit: bytes[...])
            _ = try? HEVCPictureParameterSet(nalUnit: bytes[...])
            _ = try? HEVCVideoParameterSet(rbsp: RBSP(escaped: bytes[...]))
            _ = try? HEVCSequenceParameterSet(rbsp: RBSP(escaped: bytes[...]))
            _ = try? HEVCPictureParameterSet(rbsp: RBSP(escaped: bytes[...]))
            if bytes.count >= 2 { bytes[0] = UInt8(round % 32) << 1 }
            _ = try? HEVCSliceSegmentHeader(nalUnit: bytes[...], sps: { _ in sps }, pps: { _ in pps })
        }
    }

    @Test func nalUnitHeaderErrors() {
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: [0x42, 0x00, 0x01][...]) } throws: {
            ($0 as? NALUError) == NALUError(.invalidValue, field: "nuh_temporal_id_plus1", byteOffset: 1,
                                            detail: "must not be 0")
        }
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: [0xC2, 0x01, 0x01][...]) } throws: {
            ($0 as? NALUError)?.code == .forbiddenZeroBit
        }
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: HEVCFixtures.mainPPS[...]) } throws: {
            ($0 as? NALUError) == NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0,
                                            detail: "expected 33 (SPS), got 34")
        }
        #expect {
            _ = try HEVCSliceSegmentHeader(nalUnit: [0x02, 0x00, 0x80][...], sps: { _ in nil }, pps: { _ in nil })
        } throws: { ($0 as? NALUError)?.field == "nuh_temporal_id_plus1" }
    }

    @Test func multiLayerExtensionSPSIsUnsupported() {
        var nal = HEVCSyntaxWriter.sps(HEVCSyntaxWriter.SPSOptions())
        nal[2] |= 0x0E                          // sps_ext_or_max_sub_layers_minus1 = 7
        nal[0] |= 0x01                          // nuh_layer_id 32
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: nal[...]) } throws: {
            ($0 as? NALUError)?.code == .unsupported && ($0 as? NALUError)?.field == "sps_ext_or_max_sub_layers_minus1"
        }
        nal[0] &= 0xFE                          // base layer: 7 is simply out of range
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: nal[...]) } throws: {
            ($0 as? NALUError)?.code == .invalidValue && ($0 as? NALUError)?.field == "sps_max_sub_layers_minus1"
        }
    }

    static func spsError(_ change: (inout HEVCSyntaxWriter.SPSOptions) -> Void) -> NALUError? {
        var options = HEVCSyntaxWriter.SPSOptions()
        change(&options)
        do {
            _ = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
            return nil
        } catch {
            return error
        }
    }

    @Test func outOfRangeSPSValues() {
        #expect(Self.spsError { $0.maxSubLayersMinus1 = 7 }?.field == "sps_max_sub_layers_minus1")
        #expect(Self.spsError { $0.chromaFormatIdc = 4 }?.field == "chroma_format_idc")
        #expect(Self.spsError { $0.bitDepthLumaMinus8 = 9 }?.field == "bit_depth_luma_minus8")
        #expect(Self.spsError { $0.bitDepthChromaMinus8 = 9 }?.field == "bit_depth_chroma_minus8")
        #expect(Self.spsError { $0.log2MaxPocLsbMinus4 = 13 }?.field == "log2_max_pic_order_cnt_lsb_minus4")
        #expect(Self.spsError { $0.log2MinCbMinus3 = 4 }?.field == "log2_min_luma_coding_block_size_minus3")
        #expect(Self.spsError { $0.log2DiffMaxMinCb = 4 }?.field == "log2_diff_max_min_luma_coding_block_size")
        #expect(Self.spsError { $0.width = 1922 }?.field == "pic_width_in_luma_samples")
        #expect(Self.spsError { $0.width = 0 }?.field == "pic_width_in_luma_samples")
        #expect(Self.spsError { $0.conformanceWindow = (0, 960, 0, 0) }?.field == "conf_win_right_offset")
        #expect(Self.spsError { $0.conformanceWindow = (0, 0, 300, 244) }?.field == "conf_win_bottom_offset")
        #expect(Self.spsError { $0.conformanceWindow = (0, UInt32.max - 1, 0, 0) }?.field == "conf_win_right_offset")
        #expect(Self.spsError { $0.longTermPocLsbs = Array(repeating: 1, count: 33) }?.field == "num_long_term_ref_pics_sps")
        #expect(Self.spsError { $0.longTermPocLsbs = Array(repeating: 1, count: 32) } == nil)

        let error = Self.spsError { $0.chromaFormatIdc = 4 }
        #expect(error?.code == .invalidValue)
        #expect(error?.detail == "4 not in 0...3")
        #expect(error?.byteOffset != nil)
        #expect(error?.bitOffset != nil)
    }

    @Test func outOfRangeVUIValues() {
        func vuiError(_ write: @escaping (inout BitWriter) -> Void) -> NALUError? {
            Self.spsError { $0.vui = write }
        }
        // chroma_loc_info_present_flag then an Exp-Golomb code with 40 leading zeros.
        let overflow = vuiError { bits in
            bits.u(3, 0); bits.flag(true)
            bits.u(40, 0); bits.u(1, 1); bits.u(40, 0)
        }
        #expect(overflow?.code == .expGolombOverflow)
        #expect(overflow?.field == "chroma_sample_loc_type_top_field")
        #expect(vuiError { bits in bits.u(3, 0); bits.flag(true); bits.ue(6) }?.field == "chroma_sample_loc_type_top_field")
        let segmentation = vuiError { bits in
            bits.u(8, 0); bits.flag(false)
            bits.flag(true); bits.u(3, 0); bits.ue(4096)
        }
        #expect(segmentation?.field == "min_spatial_segmentation_idc")
        let cpbCount = vuiError { bits in
            bits.u(8, 0)
            bits.flag(true); bits.u(32, 1); bits.u(32, 25); bits.flag(false)
            bits.flag(true)                      // vui_hrd_parameters_present_flag
            bits.flag(true); bits.flag(false); bits.flag(false)
            bits.u(4, 0); bits.u(4, 0); bits.u(15, 0)
            bits.flag(false); bits.flag(false); bits.flag(false)
            bits.ue(32)                          // cpb_cnt_minus1
        }
        #expect(cpbCount?.field == "cpb_cnt_minus1")
    }

    @Test func hostileVPSCounts() throws {
        func vps(_ write: (inout HEVCSyntaxWriter) -> Void) -> NALUError? {
            var w = HEVCSyntaxWriter()
            w.bits.u(4, 0); w.bits.flag(true); w.bits.flag(true); w.bits.u(6, 0); w.bits.u(3, 0); w.bits.flag(true)
            w.bits.u(16, 0xFFFF)
            w.profileTierLevel()
            w.bits.flag(true); w.bits.ue(4); w.bits.ue(2); w.bits.ue(5)
            write(&w)
            do {
                _ = try HEVCVideoParameterSet(nalUnit: w.nalUnit(type: 32)[...])
                return nil
            } catch {
                return error
            }
        }
        #expect(vps { $0.bits.u(6, 0); $0.bits.ue(1024) }?.field == "vps_num_layer_sets_minus1")
        // 1023 layer sets × 64 layers would need 65 472 flags: rejected before looping.
        let short = vps { $0.bits.u(6, 63); $0.bits.ue(1023) }
        #expect(short?.code == .truncated)
        #expect(short?.field == "layer_id_included_flag")
        let hrdCount = vps { w in
            w.bits.u(6, 0); w.bits.ue(0)
            w.bits.flag(true); w.bits.u(32, 1); w.bits.u(32, 25); w.bits.flag(false)
            w.bits.ue(2)                          // vps_num_hrd_parameters > vps_num_layer_sets_minus1 + 1
        }
        #expect(hrdCount?.field == "vps_num_hrd_parameters")
        let layerSet = vps { w in
            w.bits.u(6, 0); w.bits.ue(0)
            w.bits.flag(true); w.bits.u(32, 1); w.bits.u(32, 25); w.bits.flag(false)
            w.bits.ue(1); w.bits.ue(1)            // hrd_layer_set_idx 1 > vps_num_layer_sets_minus1
        }
        #expect(layerSet?.field == "hrd_layer_set_idx")
        let nothingAfterOrderingInfo = vps { _ in }
        #expect(nothingAfterOrderingInfo?.field == "vps_max_layer_id")   // no bits left after the ordering info
        #expect(nothingAfterOrderingInfo?.code == .truncated)
    }

    @Test func hostileScalingLists() {
        // scaling_list_pred_matrix_id_delta for sizeId 0, matrixId 0 must be 0.
        var bits = BitWriter()
        bits.flag(false); bits.ue(1)
        bits.u(32, 0)
        var reader = BitReader(RBSP(escaped: bits.bytes))
        #expect { _ = try HEVCScalingListData(&reader) } throws: {
            ($0 as? NALUError)?.field == "scaling_list_pred_matrix_id_delta"
        }
        var dc = BitWriter()
        for _ in 0..<12 { dc.flag(false); dc.ue(0) }
        dc.flag(true); dc.se(248)                  // scaling_list_dc_coef_minus8 above 247
        dc.u(32, 0)
        var dcReader = BitReader(RBSP(escaped: dc.bytes))
        #expect { _ = try HEVCScalingListData(&dcReader) } throws: {
            ($0 as? NALUError)?.field == "scaling_list_dc_coef_minus8"
        }
    }
}

/// A small deterministic generator for the random-input test.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
