/// An H.265 picture parameter set: `pic_parameter_set_rbsp()` (ITU-T H.265 7.3.2.3.1, semantics
/// 7.4.3.3.1).
///
/// The base part and `pps_range_extension()` (7.3.2.3.2) are parsed; the multilayer, 3D and
/// screen content coding extensions are recognised by their flags and skipped.
///
/// A PPS can be parsed without its SPS (parameter sets may arrive in any order), so ranges that
/// depend on the SPS are checked against their widest legal bounds: tile counts against the
/// largest `MaxTileCols` (20) and `MaxTileRows` (22) of Table A.8, `init_qp_minus26` against
/// −(26 + 48)...25 (QpBdOffsetY ≤ 48).
public struct HEVCPictureParameterSet: Hashable, Sendable {
    /// `pps_range_extension()` (7.3.2.3.2).
    public struct RangeExtension: Hashable, Sendable {
        /// `log2_max_transform_skip_block_size_minus2` (0 unless `transform_skip_enabled_flag`).
        public var log2MaxTransformSkipBlockSizeMinus2: Int
        /// `cross_component_prediction_enabled_flag`.
        public var crossComponentPredictionEnabledFlag: Bool
        /// `chroma_qp_offset_list_enabled_flag`.
        public var chromaQpOffsetListEnabledFlag: Bool
        /// `diff_cu_chroma_qp_offset_depth`.
        public var diffCuChromaQpOffsetDepth: Int
        /// `cb_qp_offset_list[i]` (−12...12), `chroma_qp_offset_list_len_minus1` + 1 entries (≤ 6).
        public var cbQpOffsetList: [Int]
        /// `cr_qp_offset_list[i]` (−12...12).
        public var crQpOffsetList: [Int]
        /// `log2_sao_offset_scale_luma` (0...6).
        public var log2SaoOffsetScaleLuma: Int
        /// `log2_sao_offset_scale_chroma` (0...6).
        public var log2SaoOffsetScaleChroma: Int
    }

    /// Largest `num_tile_columns_minus1` + 1 of any level (Table A.8, `MaxTileCols`).
    public static let maxTileColumns = 20
    /// Largest `num_tile_rows_minus1` + 1 of any level (Table A.8, `MaxTileRows`).
    public static let maxTileRows = 22

    /// `pps_pic_parameter_set_id` (0...63).
    public var ppsPicParameterSetId: Int
    /// `pps_seq_parameter_set_id` (0...15).
    public var ppsSeqParameterSetId: Int
    /// `dependent_slice_segments_enabled_flag`.
    public var dependentSliceSegmentsEnabledFlag: Bool
    /// `output_flag_present_flag`.
    public var outputFlagPresentFlag: Bool
    /// `num_extra_slice_header_bits` (u(3)).
    public var numExtraSliceHeaderBits: Int
    /// `sign_data_hiding_enabled_flag`.
    public var signDataHidingEnabledFlag: Bool
    /// `cabac_init_present_flag`.
    public var cabacInitPresentFlag: Bool
    /// `num_ref_idx_l0_default_active_minus1` (0...14).
    public var numRefIdxL0DefaultActiveMinus1: Int
    /// `num_ref_idx_l1_default_active_minus1` (0...14).
    public var numRefIdxL1DefaultActiveMinus1: Int
    /// `init_qp_minus26`.
    public var initQpMinus26: Int
    /// `constrained_intra_pred_flag`.
    public var constrainedIntraPredFlag: Bool
    /// `transform_skip_enabled_flag`.
    public var transformSkipEnabledFlag: Bool
    /// `cu_qp_delta_enabled_flag`.
    public var cuQpDeltaEnabledFlag: Bool
    /// `diff_cu_qp_delta_depth` (0...3; 0 when `cu_qp_delta_enabled_flag` is 0).
    public var diffCuQpDeltaDepth: Int
    /// `pps_cb_qp_offset` (−12...12).
    public var ppsCbQpOffset: Int
    /// `pps_cr_qp_offset` (−12...12).
    public var ppsCrQpOffset: Int
    /// `pps_slice_chroma_qp_offsets_present_flag`.
    public var ppsSliceChromaQpOffsetsPresentFlag: Bool
    /// `weighted_pred_flag`.
    public var weightedPredFlag: Bool
    /// `weighted_bipred_flag`.
    public var weightedBipredFlag: Bool
    /// `transquant_bypass_enabled_flag`.
    public var transquantBypassEnabledFlag: Bool
    /// `tiles_enabled_flag`.
    public var tilesEnabledFlag: Bool
    /// `entropy_coding_sync_enabled_flag` (wavefront parallel processing).
    public var entropyCodingSyncEnabledFlag: Bool
    /// `num_tile_columns_minus1` (0...19).
    public var numTileColumnsMinus1: Int
    /// `num_tile_rows_minus1` (0...21).
    public var numTileRowsMinus1: Int
    /// `uniform_spacing_flag` (inferred 1 when tiles are off).
    public var uniformSpacingFlag: Bool
    /// `column_width_minus1[i]` for i in 0..<num_tile_columns_minus1 (empty with uniform spacing).
    public var columnWidthMinus1: [Int]
    /// `row_height_minus1[i]` for i in 0..<num_tile_rows_minus1 (empty with uniform spacing).
    public var rowHeightMinus1: [Int]
    /// `loop_filter_across_tiles_enabled_flag` (inferred 1).
    public var loopFilterAcrossTilesEnabledFlag: Bool
    /// `pps_loop_filter_across_slices_enabled_flag`.
    public var ppsLoopFilterAcrossSlicesEnabledFlag: Bool
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag: Bool
    /// `deblocking_filter_override_enabled_flag`.
    public var deblockingFilterOverrideEnabledFlag: Bool
    /// `pps_deblocking_filter_disabled_flag`.
    public var ppsDeblockingFilterDisabledFlag: Bool
    /// `pps_beta_offset_div2` (−6...6).
    public var ppsBetaOffsetDiv2: Int
    /// `pps_tc_offset_div2` (−6...6).
    public var ppsTcOffsetDiv2: Int
    /// `pps_scaling_list_data_present_flag`.
    public var ppsScalingListDataPresentFlag: Bool
    /// `scaling_list_data()` when `pps_scaling_list_data_present_flag` is 1.
    public var scalingListData: HEVCScalingListData?
    /// `lists_modification_present_flag`.
    public var listsModificationPresentFlag: Bool
    /// `log2_parallel_merge_level_minus2` (0...4).
    public var log2ParallelMergeLevelMinus2: Int
    /// `slice_segment_header_extension_present_flag`.
    public var sliceSegmentHeaderExtensionPresentFlag: Bool
    /// `pps_extension_present_flag`.
    public var ppsExtensionPresentFlag: Bool
    /// `pps_range_extension_flag`.
    public var ppsRangeExtensionFlag: Bool
    /// `pps_multilayer_extension_flag` (extension not parsed).
    public var ppsMultilayerExtensionFlag: Bool
    /// `pps_3d_extension_flag` (extension not parsed).
    public var pps3dExtensionFlag: Bool
    /// `pps_scc_extension_flag` (extension not parsed).
    public var ppsSccExtensionFlag: Bool
    /// `pps_extension_4bits`.
    public var ppsExtension4bits: Int
    /// `pps_range_extension()` when `pps_range_extension_flag` is 1.
    public var ppsRangeExtension: RangeExtension?

    /// Parses a PPS NAL unit: the whole escaped NAL unit, 2-byte header included, with
    /// `nal_unit_type` 34. Error byte offsets are relative to the start of `nalUnit`.
    public init(nalUnit: ArraySlice<UInt8>) throws(NALUError) {
        var reader = try HEVCNALUnitHeader.reader(for: nalUnit, expecting: .pps).reader
        try self.init(&reader)
    }

    /// Parses a NAL unit held in an array, as the `ArraySlice` initialiser does.
    public init(nalUnit: [UInt8]) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...])
    }

    /// Parses `pic_parameter_set_rbsp()` from an RBSP that starts after the NAL unit header.
    public init(rbsp: RBSP) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(&reader)
    }

    /// Parses `pic_parameter_set_rbsp()` at the reader's position, through `rbsp_trailing_bits()`.
    init(_ reader: inout BitReader) throws(NALUError) {
        ppsPicParameterSetId = try reader.ue("pps_pic_parameter_set_id", in: 0...63)
        ppsSeqParameterSetId = try reader.ue("pps_seq_parameter_set_id", in: 0...15)
        dependentSliceSegmentsEnabledFlag = try reader.flag("dependent_slice_segments_enabled_flag")
        outputFlagPresentFlag = try reader.flag("output_flag_present_flag")
        numExtraSliceHeaderBits = try reader.bits(3, "num_extra_slice_header_bits")
        signDataHidingEnabledFlag = try reader.flag("sign_data_hiding_enabled_flag")
        cabacInitPresentFlag = try reader.flag("cabac_init_present_flag")
        numRefIdxL0DefaultActiveMinus1 = try reader.ue("num_ref_idx_l0_default_active_minus1", in: 0...14)
        numRefIdxL1DefaultActiveMinus1 = try reader.ue("num_ref_idx_l1_default_active_minus1", in: 0...14)
        initQpMinus26 = try reader.se("init_qp_minus26", in: -(26 + 48)...25)
        constrainedIntraPredFlag = try reader.flag("constrained_intra_pred_flag")
        transformSkipEnabledFlag = try reader.flag("transform_skip_enabled_flag")
        cuQpDeltaEnabledFlag = try reader.flag("cu_qp_delta_enabled_flag")
        diffCuQpDeltaDepth = 0
        if cuQpDeltaEnabledFlag {
            // 0...log2_diff_max_min_luma_coding_block_size, which is at most 3.
            diffCuQpDeltaDepth = try reader.ue("diff_cu_qp_delta_depth", in: 0...3)
        }
        ppsCbQpOffset = try reader.se("pps_cb_qp_offset", in: -12...12)
        ppsCrQpOffset = try reader.se("pps_cr_qp_offset", in: -12...12)
        ppsSliceChromaQpOffsetsPresentFlag = try reader.flag("pps_slice_chroma_qp_offsets_present_flag")
        weightedPredFlag = try reader.flag("weighted_pred_flag")
        weightedBipredFlag = try reader.flag("weighted_bipred_flag")
        transquantBypassEnabledFlag = try reader.flag("transquant_bypass_enabled_flag")
        tilesEnabledFlag = try reader.flag("tiles_enabled_flag")
        entropyCodingSyncEnabledFlag = try reader.flag("entropy_coding_sync_enabled_flag")
        numTileColumnsMinus1 = 0
        numTileRowsMinus1 = 0
        uniformSpacingFlag = true
        columnWidthMinus1 = []
        rowHeightMinus1 = []
        loopFilterAcrossTilesEnabledFlag = true
        if tilesEnabledFlag {
            numTileColumnsMinus1 = try reader.ue("num_tile_columns_minus1", in: 0...(Self.maxTileColumns - 1))
            numTileRowsMinus1 = try reader.ue("num_tile_rows_minus1", in: 0...(Self.maxTileRows - 1))
            uniformSpacingFlag = try reader.flag("uniform_spacing_flag")
            if !uniformSpacingFlag {
                columnWidthMinus1.reserveCapacity(numTileColumnsMinus1)
                for _ in 0..<numTileColumnsMinus1 {
                    columnWidthMinus1.append(Int(try reader.ue("column_width_minus1")))
                }
                rowHeightMinus1.reserveCapacity(numTileRowsMinus1)
                for _ in 0..<numTileRowsMinus1 {
                    rowHeightMinus1.append(Int(try reader.ue("row_height_minus1")))
                }
            }
            loopFilterAcrossTilesEnabledFlag = try reader.flag("loop_filter_across_tiles_enabled_flag")
        }
        ppsLoopFilterAcrossSlicesEnabledFlag = try reader.flag("pps_loop_filter_across_slices_enabled_flag")
        deblockingFilterControlPresentFlag = try reader.flag("deblocking_filter_control_present_flag")
        deblockingFilterOverrideEnabledFlag = false
        ppsDeblockingFilterDisabledFlag = false
        ppsBetaOffsetDiv2 = 0
        ppsTcOffsetDiv2 = 0
        if deblockingFilterControlPresentFlag {
            deblockingFilterOverrideEnabledFlag = try reader.flag("deblocking_filter_override_enabled_flag")
            ppsDeblockingFilterDisabledFlag = try reader.flag("pps_deblocking_filter_disabled_flag")
            if !ppsDeblockingFilterDisabledFlag {
                ppsBetaOffsetDiv2 = try reader.se("pps_beta_offset_div2", in: -6...6)
                ppsTcOffsetDiv2 = try reader.se("pps_tc_offset_div2", in: -6...6)
            }
        }
        ppsScalingListDataPresentFlag = try reader.flag("pps_scaling_list_data_present_flag")
        scalingListData = ppsScalingListDataPresentFlag ? try HEVCScalingListData(&reader) : nil
        listsModificationPresentFlag = try reader.flag("lists_modification_present_flag")
        // 0...CtbLog2SizeY − 2, and CtbLog2SizeY is at most 6.
        log2ParallelMergeLevelMinus2 = try reader.ue("log2_parallel_merge_level_minus2", in: 0...4)
        sliceSegmentHeaderExtensionPresentFlag = try reader.flag("slice_segment_header_extension_present_flag")
        ppsExtensionPresentFlag = try reader.flag("pps_extension_present_flag")
        ppsRangeExtensionFlag = false
        ppsMultilayerExtensionFlag = false
        pps3dExtensionFlag = false
        ppsSccExtensionFlag = false
        ppsExtension4bits = 0
        ppsRangeExtension = nil
        if ppsExtensionPresentFlag {
            ppsRangeExtensionFlag = try reader.flag("pps_range_extension_flag")
            ppsMultilayerExtensionFlag = try reader.flag("pps_multilayer_extension_flag")
            pps3dExtensionFlag = try reader.flag("pps_3d_extension_flag")
            ppsSccExtensionFlag = try reader.flag("pps_scc_extension_flag")
            ppsExtension4bits = try reader.bits(4, "pps_extension_4bits")
        }
        if ppsRangeExtensionFlag {
            ppsRangeExtension = try Self.rangeExtension(&reader, transformSkipEnabled: transformSkipEnabledFlag)
        }
        if ppsMultilayerExtensionFlag || pps3dExtensionFlag || ppsSccExtensionFlag || ppsExtension4bits != 0 {
            // pps_multilayer_extension(), pps_3d_extension(), pps_scc_extension() and
            // pps_extension_data_flag: not parsed; skip to the stop bit.
            reader.skipToRBSPStopBit()
        }
        try reader.rbspTrailingBits()
    }

    /// `pps_range_extension()` (7.3.2.3.2). Ranges that depend on the SPS use their widest bounds.
    private static func rangeExtension(_ reader: inout BitReader,
                                       transformSkipEnabled: Bool) throws(NALUError) -> RangeExtension {
        var log2MaxTransformSkip = 0
        if transformSkipEnabled {
            // Log2MaxTransformSkipSize ≤ MaxTbLog2SizeY ≤ 5.
            log2MaxTransformSkip = try reader.ue("log2_max_transform_skip_block_size_minus2", in: 0...3)
        }
        let crossComponent = try reader.flag("cross_component_prediction_enabled_flag")
        let listEnabled = try reader.flag("chroma_qp_offset_list_enabled_flag")
        var depth = 0
        var cb: [Int] = []
        var cr: [Int] = []
        if listEnabled {
            depth = try reader.ue("diff_cu_chroma_qp_offset_depth", in: 0...3)
            let length = try reader.ue("chroma_qp_offset_list_len_minus1", in: 0...5) + 1
            for _ in 0..<length {
                cb.append(try reader.se("cb_qp_offset_list", in: -12...12))
                cr.append(try reader.se("cr_qp_offset_list", in: -12...12))
            }
        }
        let saoLuma = try reader.ue("log2_sao_offset_scale_luma", in: 0...6)
        let saoChroma = try reader.ue("log2_sao_offset_scale_chroma", in: 0...6)
        return RangeExtension(log2MaxTransformSkipBlockSizeMinus2: log2MaxTransformSkip,
                              crossComponentPredictionEnabledFlag: crossComponent,
                              chromaQpOffsetListEnabledFlag: listEnabled, diffCuChromaQpOffsetDepth: depth,
                              cbQpOffsetList: cb, crQpOffsetList: cr,
                              log2SaoOffsetScaleLuma: saoLuma, log2SaoOffsetScaleChroma: saoChroma)
    }
}
