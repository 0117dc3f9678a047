/// An H.265 sequence parameter set: `seq_parameter_set_rbsp()` (ITU-T H.265 7.3.2.2.1, semantics
/// 7.4.3.2.1).
///
/// Everything up to and including the extension flags is parsed, as is
/// `sps_range_extension()` (7.3.2.2.2). The multilayer, 3D and screen content coding extensions
/// are recognised by their flags but not parsed; their data is skipped.
///
/// ```swift
/// let sps = try HEVCSequenceParameterSet(nalUnit: nal)
/// print(sps.width, sps.height, sps.profileName, sps.levelName)
/// ```
public struct HEVCSequenceParameterSet: Hashable, Sendable {
    /// `pcm_*` fields, present when `pcm_enabled_flag` is 1.
    public struct PCM: Hashable, Sendable {
        /// `pcm_sample_bit_depth_luma_minus1` (u(4)).
        public var pcmSampleBitDepthLumaMinus1: Int
        /// `pcm_sample_bit_depth_chroma_minus1` (u(4)).
        public var pcmSampleBitDepthChromaMinus1: Int
        /// `log2_min_pcm_luma_coding_block_size_minus3`.
        public var log2MinPcmLumaCodingBlockSizeMinus3: Int
        /// `log2_diff_max_min_pcm_luma_coding_block_size`.
        public var log2DiffMaxMinPcmLumaCodingBlockSize: Int
        /// `pcm_loop_filter_disabled_flag`.
        public var pcmLoopFilterDisabledFlag: Bool
    }

    /// `sps_range_extension()` (7.3.2.2.2).
    public struct RangeExtension: Hashable, Sendable {
        /// `transform_skip_rotation_enabled_flag`.
        public var transformSkipRotationEnabledFlag: Bool
        /// `transform_skip_context_enabled_flag`.
        public var transformSkipContextEnabledFlag: Bool
        /// `implicit_rdpcm_enabled_flag`.
        public var implicitRdpcmEnabledFlag: Bool
        /// `explicit_rdpcm_enabled_flag`.
        public var explicitRdpcmEnabledFlag: Bool
        /// `extended_precision_processing_flag`.
        public var extendedPrecisionProcessingFlag: Bool
        /// `intra_smoothing_disabled_flag`.
        public var intraSmoothingDisabledFlag: Bool
        /// `high_precision_offsets_enabled_flag`.
        public var highPrecisionOffsetsEnabledFlag: Bool
        /// `persistent_rice_adaptation_enabled_flag`.
        public var persistentRiceAdaptationEnabledFlag: Bool
        /// `cabac_bypass_alignment_enabled_flag`.
        public var cabacBypassAlignmentEnabledFlag: Bool
    }

    /// `sps_video_parameter_set_id` (u(4)).
    public var spsVideoParameterSetId: Int
    /// `sps_max_sub_layers_minus1` (0...6).
    public var spsMaxSubLayersMinus1: Int
    /// `sps_temporal_id_nesting_flag`.
    public var spsTemporalIdNestingFlag: Bool
    /// `profile_tier_level( 1, sps_max_sub_layers_minus1 )`.
    public var profileTierLevel: HEVCProfileTierLevel
    /// `sps_seq_parameter_set_id` (0...15).
    public var spsSeqParameterSetId: Int
    /// `chroma_format_idc` (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4).
    public var chromaFormatIdc: Int
    /// `separate_colour_plane_flag` (only with `chroma_format_idc` 3).
    public var separateColourPlaneFlag: Bool
    /// `pic_width_in_luma_samples`: the coded width, a multiple of MinCbSizeY (1...2^31 − 1 accepted).
    public var picWidthInLumaSamples: Int
    /// `pic_height_in_luma_samples`: the coded height, a multiple of MinCbSizeY (1...2^31 − 1 accepted).
    public var picHeightInLumaSamples: Int
    /// `conformance_window_flag`.
    public var conformanceWindowFlag: Bool
    /// `conf_win_left_offset`, in chroma sample units (× SubWidthC for luma).
    public var confWinLeftOffset: Int
    /// `conf_win_right_offset`, in chroma sample units (× SubWidthC for luma).
    public var confWinRightOffset: Int
    /// `conf_win_top_offset`, in chroma sample units (× SubHeightC for luma).
    public var confWinTopOffset: Int
    /// `conf_win_bottom_offset`, in chroma sample units (× SubHeightC for luma).
    public var confWinBottomOffset: Int
    /// `bit_depth_luma_minus8` (0...8).
    public var bitDepthLumaMinus8: Int
    /// `bit_depth_chroma_minus8` (0...8).
    public var bitDepthChromaMinus8: Int
    /// `log2_max_pic_order_cnt_lsb_minus4` (0...12).
    public var log2MaxPicOrderCntLsbMinus4: Int
    /// `sps_sub_layer_ordering_info_present_flag`.
    public var spsSubLayerOrderingInfoPresentFlag: Bool
    /// `sps_max_dec_pic_buffering_minus1[i]`, `sps_max_num_reorder_pics[i]`,
    /// `sps_max_latency_increase_plus1[i]` for i = 0...sps_max_sub_layers_minus1 (inferred entries
    /// filled in).
    public var subLayerOrderingInfo: [HEVCSubLayerOrderingInfo]
    /// `log2_min_luma_coding_block_size_minus3`.
    public var log2MinLumaCodingBlockSizeMinus3: Int
    /// `log2_diff_max_min_luma_coding_block_size`.
    public var log2DiffMaxMinLumaCodingBlockSize: Int
    /// `log2_min_luma_transform_block_size_minus2`.
    public var log2MinLumaTransformBlockSizeMinus2: Int
    /// `log2_diff_max_min_luma_transform_block_size`.
    public var log2DiffMaxMinLumaTransformBlockSize: Int
    /// `max_transform_hierarchy_depth_inter`.
    public var maxTransformHierarchyDepthInter: Int
    /// `max_transform_hierarchy_depth_intra`.
    public var maxTransformHierarchyDepthIntra: Int
    /// `scaling_list_enabled_flag`.
    public var scalingListEnabledFlag: Bool
    /// `sps_scaling_list_data_present_flag`.
    public var spsScalingListDataPresentFlag: Bool
    /// The scaling lists in effect: `scaling_list_data()` when sent, the defaults (Tables 7-5,
    /// 7-6) when `scaling_list_enabled_flag` is 1 without data, `nil` when scaling lists are off.
    public var scalingListData: HEVCScalingListData?
    /// `amp_enabled_flag`: asymmetric motion partitions.
    public var ampEnabledFlag: Bool
    /// `sample_adaptive_offset_enabled_flag`.
    public var sampleAdaptiveOffsetEnabledFlag: Bool
    /// `pcm_enabled_flag`.
    public var pcmEnabledFlag: Bool
    /// The PCM fields when `pcm_enabled_flag` is 1.
    public var pcm: PCM?
    /// `st_ref_pic_set( i )` for i in 0..<num_short_term_ref_pic_sets (0...64).
    public var shortTermRefPicSets: [HEVCShortTermRefPicSet]
    /// `long_term_ref_pics_present_flag`.
    public var longTermRefPicsPresentFlag: Bool
    /// `lt_ref_pic_poc_lsb_sps[i]` (u(v), `log2_max_pic_order_cnt_lsb_minus4` + 4 bits), at most 32.
    public var ltRefPicPocLsbSps: [UInt32]
    /// `used_by_curr_pic_lt_sps_flag[i]`.
    public var usedByCurrPicLtSpsFlag: [Bool]
    /// `sps_temporal_mvp_enabled_flag`.
    public var spsTemporalMvpEnabledFlag: Bool
    /// `strong_intra_smoothing_enabled_flag`.
    public var strongIntraSmoothingEnabledFlag: Bool
    /// `vui_parameters_present_flag`.
    public var vuiParametersPresentFlag: Bool
    /// `vui_parameters()` (E.2.1) when present.
    public var vuiParameters: HEVCVUIParameters?
    /// `sps_extension_present_flag`.
    public var spsExtensionPresentFlag: Bool
    /// `sps_range_extension_flag`.
    public var spsRangeExtensionFlag: Bool
    /// `sps_multilayer_extension_flag` (extension not parsed).
    public var spsMultilayerExtensionFlag: Bool
    /// `sps_3d_extension_flag` (extension not parsed).
    public var sps3dExtensionFlag: Bool
    /// `sps_scc_extension_flag` (extension not parsed).
    public var spsSccExtensionFlag: Bool
    /// `sps_extension_4bits`.
    public var spsExtension4bits: Int
    /// `sps_range_extension()` when `sps_range_extension_flag` is 1.
    public var spsRangeExtension: RangeExtension?
    /// The coded bits of every `st_ref_pic_set( i )`, as read: inter-predicted sets keep only
    /// their derived pictures in ``shortTermRefPicSets``, so writing the SPS back copies these
    /// bits (``rbspBytes()``). `nil` for an SPS not parsed from a stream (the sets are then coded
    /// without inter prediction).
    package var shortTermRefPicSetsBits: RBSPBits? = nil
    /// The coded bits after `sps_range_extension()` up to the `rbsp_stop_one_bit`: the unparsed
    /// multilayer, 3D and SCC extensions and `sps_extension_data_flag`s, copied when writing back.
    package var spsExtensionDataBits: RBSPBits? = nil

    /// Parses an SPS NAL unit: the whole escaped NAL unit, 2-byte header included. The header must
    /// have `nal_unit_type` 33. Error byte offsets are relative to the start of `nalUnit`.
    public init(nalUnit: ArraySlice<UInt8>) throws(NALUError) {
        var (header, reader) = try HEVCNALUnitHeader.reader(for: nalUnit, expecting: .sps)
        try self.init(&reader, nuhLayerId: header.nuhLayerId)
    }

    /// Parses a NAL unit held in an array, as the `ArraySlice` initialiser does.
    public init(nalUnit: [UInt8]) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...])
    }

    /// Parses `seq_parameter_set_rbsp()` from an RBSP that starts after the NAL unit header.
    public init(rbsp: RBSP) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(&reader)
    }

    /// Parses `seq_parameter_set_rbsp()` at the reader's position, through `rbsp_trailing_bits()`.
    ///
    /// - Parameter nuhLayerId: the `nuh_layer_id` of the SPS NAL unit. For a layer above 0, the
    ///   value 7 in the place of `sps_max_sub_layers_minus1` (`sps_ext_or_max_sub_layers_minus1`)
    ///   selects the multi-layer SPS syntax of F.7.3.2.2.1, which is not supported and throws
    ///   `.unsupported`.
    init(_ reader: inout BitReader, nuhLayerId: UInt8 = 0) throws(NALUError) {
        spsVideoParameterSetId = try reader.bits(4, "sps_video_parameter_set_id")
        spsMaxSubLayersMinus1 = try reader.bits(3, "sps_max_sub_layers_minus1")
        if nuhLayerId > 0 && spsMaxSubLayersMinus1 == 7 {
            throw reader.error(.unsupported, "sps_ext_or_max_sub_layers_minus1",
                               detail: "multi-layer extension SPS (MultiLayerExtSpsFlag, F.7.3.2.2.1)")
        }
        guard spsMaxSubLayersMinus1 <= 6 else {
            throw NALUError.invalid("sps_max_sub_layers_minus1", "\(spsMaxSubLayersMinus1) not in 0...6",
                                    bitOffset: reader.position - 3,
                                    byteOffset: Int64(reader.rbsp.escapedOffset(of: (reader.position - 3) / 8)))
        }
        spsTemporalIdNestingFlag = try reader.flag("sps_temporal_id_nesting_flag")
        profileTierLevel = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
        spsSeqParameterSetId = try reader.ue("sps_seq_parameter_set_id", in: 0...15)
        chromaFormatIdc = try reader.ue("chroma_format_idc", in: 0...3)
        separateColourPlaneFlag = false
        if chromaFormatIdc == 3 {
            separateColourPlaneFlag = try reader.flag("separate_colour_plane_flag")
        }
        picWidthInLumaSamples = try reader.ue("pic_width_in_luma_samples", in: 1...Int(Int32.max))
        picHeightInLumaSamples = try reader.ue("pic_height_in_luma_samples", in: 1...Int(Int32.max))
        conformanceWindowFlag = try reader.flag("conformance_window_flag")
        confWinLeftOffset = 0
        confWinRightOffset = 0
        confWinTopOffset = 0
        confWinBottomOffset = 0
        if conformanceWindowFlag {
            confWinLeftOffset = Int(try reader.ue("conf_win_left_offset"))
            confWinRightOffset = Int(try reader.ue("conf_win_right_offset"))
            confWinTopOffset = Int(try reader.ue("conf_win_top_offset"))
            confWinBottomOffset = Int(try reader.ue("conf_win_bottom_offset"))
            // The window must leave at least one sample in each direction (7.4.3.2.1). Each offset
            // is below 2^32, so these products cannot overflow 64 bits.
            let subWidthC = Self.subWidthC(chromaFormatIdc: chromaFormatIdc, separateColourPlane: separateColourPlaneFlag)
            guard subWidthC * (confWinLeftOffset + confWinRightOffset) < picWidthInLumaSamples else {
                throw reader.error(.invalidValue, "conf_win_right_offset",
                                   detail: "conformance window removes the whole width \(picWidthInLumaSamples)")
            }
            let subHeightC = Self.subHeightC(chromaFormatIdc: chromaFormatIdc, separateColourPlane: separateColourPlaneFlag)
            guard subHeightC * (confWinTopOffset + confWinBottomOffset) < picHeightInLumaSamples else {
                throw reader.error(.invalidValue, "conf_win_bottom_offset",
                                   detail: "conformance window removes the whole height \(picHeightInLumaSamples)")
            }
        }
        bitDepthLumaMinus8 = try reader.ue("bit_depth_luma_minus8", in: 0...8)
        bitDepthChromaMinus8 = try reader.ue("bit_depth_chroma_minus8", in: 0...8)
        log2MaxPicOrderCntLsbMinus4 = try reader.ue("log2_max_pic_order_cnt_lsb_minus4", in: 0...12)
        spsSubLayerOrderingInfoPresentFlag = try reader.flag("sps_sub_layer_ordering_info_present_flag")
        subLayerOrderingInfo = try HEVCSubLayerOrderingInfo.parse(
            &reader, presentFlag: spsSubLayerOrderingInfoPresentFlag, maxSubLayersMinus1: spsMaxSubLayersMinus1, vps: false)

        // Block sizes (7.4.3.2.1): MinCbLog2SizeY >= 3, CtbLog2SizeY <= 6,
        // 2 <= MinTbLog2SizeY < MinCbLog2SizeY, MaxTbLog2SizeY <= Min(CtbLog2SizeY, 5).
        log2MinLumaCodingBlockSizeMinus3 = try reader.ue("log2_min_luma_coding_block_size_minus3", in: 0...3)
        let minCbLog2SizeY = log2MinLumaCodingBlockSizeMinus3 + 3
        log2DiffMaxMinLumaCodingBlockSize = try reader.ue("log2_diff_max_min_luma_coding_block_size",
                                                          in: 0...(6 - minCbLog2SizeY))
        let ctbLog2SizeY = minCbLog2SizeY + log2DiffMaxMinLumaCodingBlockSize
        let minCbSizeY = 1 << minCbLog2SizeY
        guard picWidthInLumaSamples % minCbSizeY == 0 else {
            throw reader.error(.invalidValue, "pic_width_in_luma_samples",
                               detail: "\(picWidthInLumaSamples) is not a multiple of MinCbSizeY \(minCbSizeY)")
        }
        guard picHeightInLumaSamples % minCbSizeY == 0 else {
            throw reader.error(.invalidValue, "pic_height_in_luma_samples",
                               detail: "\(picHeightInLumaSamples) is not a multiple of MinCbSizeY \(minCbSizeY)")
        }
        log2MinLumaTransformBlockSizeMinus2 = try reader.ue("log2_min_luma_transform_block_size_minus2",
                                                            in: 0...(minCbLog2SizeY - 3))
        let minTbLog2SizeY = log2MinLumaTransformBlockSizeMinus2 + 2
        log2DiffMaxMinLumaTransformBlockSize = try reader.ue("log2_diff_max_min_luma_transform_block_size",
                                                             in: 0...(min(ctbLog2SizeY, 5) - minTbLog2SizeY))
        maxTransformHierarchyDepthInter = try reader.ue("max_transform_hierarchy_depth_inter",
                                                        in: 0...(ctbLog2SizeY - minTbLog2SizeY))
        maxTransformHierarchyDepthIntra = try reader.ue("max_transform_hierarchy_depth_intra",
                                                        in: 0...(ctbLog2SizeY - minTbLog2SizeY))

        scalingListEnabledFlag = try reader.flag("scaling_list_enabled_flag")
        spsScalingListDataPresentFlag = false
        scalingListData = nil
        if scalingListEnabledFlag {
            spsScalingListDataPresentFlag = try reader.flag("sps_scaling_list_data_present_flag")
            scalingListData = spsScalingListDataPresentFlag ? try HEVCScalingListData(&reader) : .default
        }
        ampEnabledFlag = try reader.flag("amp_enabled_flag")
        sampleAdaptiveOffsetEnabledFlag = try reader.flag("sample_adaptive_offset_enabled_flag")
        pcmEnabledFlag = try reader.flag("pcm_enabled_flag")
        pcm = nil
        if pcmEnabledFlag {
            let lumaMinus1 = try reader.bits(4, "pcm_sample_bit_depth_luma_minus1")
            guard lumaMinus1 + 1 <= bitDepthLumaMinus8 + 8 else {
                throw reader.error(.invalidValue, "pcm_sample_bit_depth_luma_minus1",
                                   detail: "PCM depth \(lumaMinus1 + 1) above BitDepthY")
            }
            let chromaMinus1 = try reader.bits(4, "pcm_sample_bit_depth_chroma_minus1")
            guard chromaMinus1 + 1 <= bitDepthChromaMinus8 + 8 else {
                throw reader.error(.invalidValue, "pcm_sample_bit_depth_chroma_minus1",
                                   detail: "PCM depth \(chromaMinus1 + 1) above BitDepthC")
            }
            // Log2MinIpcmCbSizeY in Min(MinCbLog2SizeY, 5)...Min(CtbLog2SizeY, 5).
            let minPcm = try reader.ue("log2_min_pcm_luma_coding_block_size_minus3",
                                       in: (min(minCbLog2SizeY, 5) - 3)...(min(ctbLog2SizeY, 5) - 3))
            let diffPcm = try reader.ue("log2_diff_max_min_pcm_luma_coding_block_size",
                                        in: 0...(min(ctbLog2SizeY, 5) - (minPcm + 3)))
            let loopFilterDisabled = try reader.flag("pcm_loop_filter_disabled_flag")
            pcm = PCM(pcmSampleBitDepthLumaMinus1: lumaMinus1, pcmSampleBitDepthChromaMinus1: chromaMinus1,
                      log2MinPcmLumaCodingBlockSizeMinus3: minPcm, log2DiffMaxMinPcmLumaCodingBlockSize: diffPcm,
                      pcmLoopFilterDisabledFlag: loopFilterDisabled)
        }

        let numShortTermRefPicSets = try reader.ue("num_short_term_ref_pic_sets", in: 0...64)
        let setsStart = reader.position
        var sets: [HEVCShortTermRefPicSet] = []
        sets.reserveCapacity(numShortTermRefPicSets)
        for index in 0..<numShortTermRefPicSets {
            sets.append(try HEVCShortTermRefPicSet(&reader, stRpsIdx: index,
                                                   numShortTermRefPicSets: numShortTermRefPicSets, previous: sets))
        }
        shortTermRefPicSets = sets
        shortTermRefPicSetsBits = reader.bits(from: setsStart)

        longTermRefPicsPresentFlag = try reader.flag("long_term_ref_pics_present_flag")
        ltRefPicPocLsbSps = []
        usedByCurrPicLtSpsFlag = []
        if longTermRefPicsPresentFlag {
            let count = try reader.ue("num_long_term_ref_pics_sps", in: 0...32)
            ltRefPicPocLsbSps.reserveCapacity(count)
            usedByCurrPicLtSpsFlag.reserveCapacity(count)
            for _ in 0..<count {
                ltRefPicPocLsbSps.append(try reader.u(log2MaxPicOrderCntLsbMinus4 + 4, "lt_ref_pic_poc_lsb_sps"))
                usedByCurrPicLtSpsFlag.append(try reader.flag("used_by_curr_pic_lt_sps_flag"))
            }
        }
        spsTemporalMvpEnabledFlag = try reader.flag("sps_temporal_mvp_enabled_flag")
        strongIntraSmoothingEnabledFlag = try reader.flag("strong_intra_smoothing_enabled_flag")
        vuiParametersPresentFlag = try reader.flag("vui_parameters_present_flag")
        vuiParameters = vuiParametersPresentFlag
            ? try HEVCVUIParameters(&reader, maxSubLayersMinus1: spsMaxSubLayersMinus1) : nil

        spsExtensionPresentFlag = try reader.flag("sps_extension_present_flag")
        spsRangeExtensionFlag = false
        spsMultilayerExtensionFlag = false
        sps3dExtensionFlag = false
        spsSccExtensionFlag = false
        spsExtension4bits = 0
        spsRangeExtension = nil
        if spsExtensionPresentFlag {
            spsRangeExtensionFlag = try reader.flag("sps_range_extension_flag")
            spsMultilayerExtensionFlag = try reader.flag("sps_multilayer_extension_flag")
            sps3dExtensionFlag = try reader.flag("sps_3d_extension_flag")
            spsSccExtensionFlag = try reader.flag("sps_scc_extension_flag")
            spsExtension4bits = try reader.bits(4, "sps_extension_4bits")
        }
        if spsRangeExtensionFlag {
            spsRangeExtension = RangeExtension(
                transformSkipRotationEnabledFlag: try reader.flag("transform_skip_rotation_enabled_flag"),
                transformSkipContextEnabledFlag: try reader.flag("transform_skip_context_enabled_flag"),
                implicitRdpcmEnabledFlag: try reader.flag("implicit_rdpcm_enabled_flag"),
                explicitRdpcmEnabledFlag: try reader.flag("explicit_rdpcm_enabled_flag"),
                extendedPrecisionProcessingFlag: try reader.flag("extended_precision_processing_flag"),
                intraSmoothingDisabledFlag: try reader.flag("intra_smoothing_disabled_flag"),
                highPrecisionOffsetsEnabledFlag: try reader.flag("high_precision_offsets_enabled_flag"),
                persistentRiceAdaptationEnabledFlag: try reader.flag("persistent_rice_adaptation_enabled_flag"),
                cabacBypassAlignmentEnabledFlag: try reader.flag("cabac_bypass_alignment_enabled_flag"))
        }
        if spsMultilayerExtensionFlag || sps3dExtensionFlag || spsSccExtensionFlag || spsExtension4bits != 0 {
            // sps_multilayer_extension(), sps_3d_extension(), sps_scc_extension() and
            // sps_extension_data_flag: not parsed; skip to the stop bit, keeping the bits.
            let extensionStart = reader.position
            reader.skipToRBSPStopBit()
            spsExtensionDataBits = reader.bits(from: extensionStart)
        }
        try reader.rbspTrailingBits()
    }

    // MARK: Derived values

    /// SubWidthC (Table 6-1): 2 for 4:2:0 and 4:2:2, else 1.
    public var subWidthC: Int { Self.subWidthC(chromaFormatIdc: chromaFormatIdc, separateColourPlane: separateColourPlaneFlag) }
    /// SubHeightC (Table 6-1): 2 for 4:2:0, else 1.
    public var subHeightC: Int { Self.subHeightC(chromaFormatIdc: chromaFormatIdc, separateColourPlane: separateColourPlaneFlag) }
    /// ChromaArrayType: 0 when `separate_colour_plane_flag` is 1, else `chroma_format_idc`.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }

    /// The displayed width: `pic_width_in_luma_samples` − SubWidthC × (left + right offsets)
    /// (7.4.3.2.1). Always at least 1 (checked when parsing).
    public var width: Int {
        let cropped = picWidthInLumaSamples.subtractingReportingOverflow(
            subWidthC.multipliedReportingOverflow(by: confWinLeftOffset.addingReportingOverflow(confWinRightOffset).partialValue).partialValue)
        return cropped.overflow ? 0 : max(cropped.partialValue, 0)
    }

    /// The displayed height: `pic_height_in_luma_samples` − SubHeightC × (top + bottom offsets)
    /// (7.4.3.2.1). Always at least 1 (checked when parsing).
    public var height: Int {
        let cropped = picHeightInLumaSamples.subtractingReportingOverflow(
            subHeightC.multipliedReportingOverflow(by: confWinTopOffset.addingReportingOverflow(confWinBottomOffset).partialValue).partialValue)
        return cropped.overflow ? 0 : max(cropped.partialValue, 0)
    }

    /// BitDepthY = 8 + `bit_depth_luma_minus8`.
    public var bitDepthLuma: Int { 8 + bitDepthLumaMinus8 }
    /// BitDepthC = 8 + `bit_depth_chroma_minus8`.
    public var bitDepthChroma: Int { 8 + bitDepthChromaMinus8 }
    /// MaxPicOrderCntLsb = 2^(`log2_max_pic_order_cnt_lsb_minus4` + 4).
    public var maxPicOrderCntLsb: Int { 1 << (log2MaxPicOrderCntLsbMinus4 + 4) }
    /// `num_short_term_ref_pic_sets`.
    public var numShortTermRefPicSets: Int { shortTermRefPicSets.count }
    /// `num_long_term_ref_pics_sps`.
    public var numLongTermRefPicsSps: Int { ltRefPicPocLsbSps.count }

    /// MinCbLog2SizeY = `log2_min_luma_coding_block_size_minus3` + 3.
    public var minCbLog2SizeY: Int { log2MinLumaCodingBlockSizeMinus3 + 3 }
    /// CtbLog2SizeY = MinCbLog2SizeY + `log2_diff_max_min_luma_coding_block_size` (4...6 in the
    /// profiles of Annex A; 3...6 accepted).
    public var log2CtbSize: Int { minCbLog2SizeY + log2DiffMaxMinLumaCodingBlockSize }
    /// CtbSizeY = 1 << CtbLog2SizeY.
    public var ctbSize: Int { 1 << log2CtbSize }
    /// PicWidthInCtbsY = Ceil(`pic_width_in_luma_samples` ÷ CtbSizeY).
    public var picWidthInCtbsY: Int { Self.ceilDivide(picWidthInLumaSamples, by: ctbSize) }
    /// PicHeightInCtbsY = Ceil(`pic_height_in_luma_samples` ÷ CtbSizeY).
    public var picHeightInCtbsY: Int { Self.ceilDivide(picHeightInLumaSamples, by: ctbSize) }
    /// PicSizeInCtbsY = PicWidthInCtbsY × PicHeightInCtbsY (7-19). Both factors are below 2^28, so
    /// the product fits in 64 bits; the multiplication is still checked.
    public var picSizeInCtbsY: Int {
        let product = picWidthInCtbsY.multipliedReportingOverflow(by: picHeightInCtbsY)
        return product.overflow ? Int.max : product.partialValue
    }

    /// The frame rate signalled in the VUI: `vui_time_scale` / `vui_num_units_in_tick`, reduced
    /// (what `ffprobe` reports as `r_frame_rate` for x265 streams, e.g. 30000/1001). `nil` without
    /// VUI timing information or when either term is 0.
    public var frameRate: Rational? {
        guard let vui = vuiParameters, vui.vuiTimingInfoPresentFlag,
              vui.vuiNumUnitsInTick > 0, vui.vuiTimeScale > 0 else { return nil }
        return Rational(Int64(vui.vuiTimeScale), Int64(vui.vuiNumUnitsInTick)).reduced
    }

    /// The profile name as `ffprobe` prints it ("Main", "Main 10", "Main Still Picture", "Rext",
    /// …); see ``HEVCProfile/ffmpegName``.
    public var profileName: String { profileTierLevel.profileName }
    /// "Main" or "High".
    public var tierName: String { profileTierLevel.tierName }
    /// The level as "3", "3.1", … (`general_level_idc` / 30).
    public var levelName: String { profileTierLevel.levelName }

    private static func ceilDivide(_ value: Int, by divisor: Int) -> Int {
        guard divisor > 0, value > 0 else { return 0 }
        return value / divisor + (value % divisor == 0 ? 0 : 1)
    }

    static func subWidthC(chromaFormatIdc: Int, separateColourPlane: Bool) -> Int {
        (chromaFormatIdc == 1 || chromaFormatIdc == 2) && !separateColourPlane ? 2 : 1
    }

    static func subHeightC(chromaFormatIdc: Int, separateColourPlane: Bool) -> Int {
        chromaFormatIdc == 1 && !separateColourPlane ? 2 : 1
    }
}
