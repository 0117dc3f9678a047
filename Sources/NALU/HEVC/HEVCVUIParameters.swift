/// `vui_parameters()` (ITU-T H.265 E.2.1, semantics E.3.1): video usability information in an SPS.
///
/// Fields that are not present hold the values the specification infers: `video_format` 5,
/// `colour_primaries`, `transfer_characteristics` and `matrix_coeffs` 2 (unspecified),
/// `motion_vectors_over_pic_boundaries_flag` 1, `max_bytes_per_pic_denom` 2,
/// `max_bits_per_min_cu_denom` 1, `log2_max_mv_length_*` 15, everything else 0.
public struct HEVCVUIParameters: Hashable, Sendable {
    /// `aspect_ratio_idc` value 255: the sample aspect ratio is `sar_width:sar_height`.
    public static let extendedSAR = 255

    /// `aspect_ratio_info_present_flag`.
    public var aspectRatioInfoPresentFlag = false
    /// `aspect_ratio_idc` (u(8), Table E.1); 0 when not present.
    public var aspectRatioIdc = 0
    /// `sar_width` (u(16)) when `aspect_ratio_idc` is 255 (Extended_SAR).
    public var sarWidth = 0
    /// `sar_height` (u(16)) when `aspect_ratio_idc` is 255 (Extended_SAR).
    public var sarHeight = 0
    /// `overscan_info_present_flag`.
    public var overscanInfoPresentFlag = false
    /// `overscan_appropriate_flag`.
    public var overscanAppropriateFlag = false
    /// `video_signal_type_present_flag`.
    public var videoSignalTypePresentFlag = false
    /// `video_format` (u(3), Table E.2; 5 = unspecified).
    public var videoFormat = 5
    /// `video_full_range_flag`.
    public var videoFullRangeFlag = false
    /// `colour_description_present_flag`.
    public var colourDescriptionPresentFlag = false
    /// `colour_primaries` (u(8), Table E.3).
    public var colourPrimaries = 2
    /// `transfer_characteristics` (u(8), Table E.4).
    public var transferCharacteristics = 2
    /// `matrix_coeffs` (u(8), Table E.5).
    public var matrixCoeffs = 2
    /// `chroma_loc_info_present_flag`.
    public var chromaLocInfoPresentFlag = false
    /// `chroma_sample_loc_type_top_field` (0...5).
    public var chromaSampleLocTypeTopField = 0
    /// `chroma_sample_loc_type_bottom_field` (0...5).
    public var chromaSampleLocTypeBottomField = 0
    /// `neutral_chroma_indication_flag`.
    public var neutralChromaIndicationFlag = false
    /// `field_seq_flag`: the CVS conveys fields, one per picture.
    public var fieldSeqFlag = false
    /// `frame_field_info_present_flag`: picture timing SEI carries `pic_struct`.
    public var frameFieldInfoPresentFlag = false
    /// `default_display_window_flag`.
    public var defaultDisplayWindowFlag = false
    /// `def_disp_win_left_offset`.
    public var defDispWinLeftOffset = 0
    /// `def_disp_win_right_offset`.
    public var defDispWinRightOffset = 0
    /// `def_disp_win_top_offset`.
    public var defDispWinTopOffset = 0
    /// `def_disp_win_bottom_offset`.
    public var defDispWinBottomOffset = 0
    /// `vui_timing_info_present_flag`.
    public var vuiTimingInfoPresentFlag = false
    /// `vui_num_units_in_tick` (u(32)).
    public var vuiNumUnitsInTick: UInt32 = 0
    /// `vui_time_scale` (u(32)), in Hz.
    public var vuiTimeScale: UInt32 = 0
    /// `vui_poc_proportional_to_timing_flag`.
    public var vuiPocProportionalToTimingFlag = false
    /// `vui_num_ticks_poc_diff_one_minus1` when `vui_poc_proportional_to_timing_flag`.
    public var vuiNumTicksPocDiffOneMinus1: UInt32 = 0
    /// `vui_hrd_parameters_present_flag`.
    public var vuiHrdParametersPresentFlag = false
    /// `hrd_parameters( 1, sps_max_sub_layers_minus1 )` when present.
    public var hrdParameters: HEVCHRDParameters? = nil
    /// `bitstream_restriction_flag`.
    public var bitstreamRestrictionFlag = false
    /// `tiles_fixed_structure_flag`.
    public var tilesFixedStructureFlag = false
    /// `motion_vectors_over_pic_boundaries_flag` (inferred 1).
    public var motionVectorsOverPicBoundariesFlag = true
    /// `restricted_ref_pic_lists_flag`.
    public var restrictedRefPicListsFlag = false
    /// `min_spatial_segmentation_idc` (0...4095), copied into `hvcC`.
    public var minSpatialSegmentationIdc = 0
    /// `max_bytes_per_pic_denom` (0...16, inferred 2).
    public var maxBytesPerPicDenom = 2
    /// `max_bits_per_min_cu_denom` (0...16, inferred 1).
    public var maxBitsPerMinCuDenom = 1
    /// `log2_max_mv_length_horizontal` (0...15, inferred 15).
    public var log2MaxMvLengthHorizontal = 15
    /// `log2_max_mv_length_vertical` (0...15, inferred 15).
    public var log2MaxMvLengthVertical = 15

    public init() {}

    /// Parses `vui_parameters()` (E.2.1) of an SPS whose `sps_max_sub_layers_minus1` is
    /// `maxSubLayersMinus1`.
    package init(_ reader: inout BitReader, maxSubLayersMinus1: Int) throws(NALUError) {
        aspectRatioInfoPresentFlag = try reader.flag("aspect_ratio_info_present_flag")
        if aspectRatioInfoPresentFlag {
            aspectRatioIdc = try reader.bits(8, "aspect_ratio_idc")
            if aspectRatioIdc == Self.extendedSAR {
                sarWidth = try reader.bits(16, "sar_width")
                sarHeight = try reader.bits(16, "sar_height")
            }
        }
        overscanInfoPresentFlag = try reader.flag("overscan_info_present_flag")
        if overscanInfoPresentFlag {
            overscanAppropriateFlag = try reader.flag("overscan_appropriate_flag")
        }
        videoSignalTypePresentFlag = try reader.flag("video_signal_type_present_flag")
        if videoSignalTypePresentFlag {
            videoFormat = try reader.bits(3, "video_format")
            videoFullRangeFlag = try reader.flag("video_full_range_flag")
            colourDescriptionPresentFlag = try reader.flag("colour_description_present_flag")
            if colourDescriptionPresentFlag {
                colourPrimaries = try reader.bits(8, "colour_primaries")
                transferCharacteristics = try reader.bits(8, "transfer_characteristics")
                matrixCoeffs = try reader.bits(8, "matrix_coeffs")
            }
        }
        chromaLocInfoPresentFlag = try reader.flag("chroma_loc_info_present_flag")
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try reader.ue("chroma_sample_loc_type_top_field", in: 0...5)
            chromaSampleLocTypeBottomField = try reader.ue("chroma_sample_loc_type_bottom_field", in: 0...5)
        }
        neutralChromaIndicationFlag = try reader.flag("neutral_chroma_indication_flag")
        fieldSeqFlag = try reader.flag("field_seq_flag")
        frameFieldInfoPresentFlag = try reader.flag("frame_field_info_present_flag")
        defaultDisplayWindowFlag = try reader.flag("default_display_window_flag")
        if defaultDisplayWindowFlag {
            defDispWinLeftOffset = Int(try reader.ue("def_disp_win_left_offset"))
            defDispWinRightOffset = Int(try reader.ue("def_disp_win_right_offset"))
            defDispWinTopOffset = Int(try reader.ue("def_disp_win_top_offset"))
            defDispWinBottomOffset = Int(try reader.ue("def_disp_win_bottom_offset"))
        }
        vuiTimingInfoPresentFlag = try reader.flag("vui_timing_info_present_flag")
        if vuiTimingInfoPresentFlag {
            vuiNumUnitsInTick = try reader.u(32, "vui_num_units_in_tick")
            vuiTimeScale = try reader.u(32, "vui_time_scale")
            vuiPocProportionalToTimingFlag = try reader.flag("vui_poc_proportional_to_timing_flag")
            if vuiPocProportionalToTimingFlag {
                vuiNumTicksPocDiffOneMinus1 = try reader.ue("vui_num_ticks_poc_diff_one_minus1")
            }
            vuiHrdParametersPresentFlag = try reader.flag("vui_hrd_parameters_present_flag")
            if vuiHrdParametersPresentFlag {
                hrdParameters = try HEVCHRDParameters(&reader, commonInfPresentFlag: true,
                                                      maxNumSubLayersMinus1: maxSubLayersMinus1)
            }
        }
        bitstreamRestrictionFlag = try reader.flag("bitstream_restriction_flag")
        if bitstreamRestrictionFlag {
            tilesFixedStructureFlag = try reader.flag("tiles_fixed_structure_flag")
            motionVectorsOverPicBoundariesFlag = try reader.flag("motion_vectors_over_pic_boundaries_flag")
            restrictedRefPicListsFlag = try reader.flag("restricted_ref_pic_lists_flag")
            minSpatialSegmentationIdc = try reader.ue("min_spatial_segmentation_idc", in: 0...4095)
            maxBytesPerPicDenom = try reader.ue("max_bytes_per_pic_denom", in: 0...16)
            maxBitsPerMinCuDenom = try reader.ue("max_bits_per_min_cu_denom", in: 0...16)
            log2MaxMvLengthHorizontal = try reader.ue("log2_max_mv_length_horizontal", in: 0...15)
            log2MaxMvLengthVertical = try reader.ue("log2_max_mv_length_vertical", in: 0...15)
        }
    }

    /// The sample aspect ratio: Table E.1 for `aspect_ratio_idc` 1...16, `sar_width:sar_height`
    /// for 255, `nil` when absent, unspecified (0), reserved, or with a zero term.
    public var sampleAspectRatio: Rational? {
        guard aspectRatioInfoPresentFlag else { return nil }
        let table: [(Int64, Int64)] = [
            (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
            (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
        ]
        let ratio: (Int64, Int64)
        if aspectRatioIdc == Self.extendedSAR {
            ratio = (Int64(sarWidth), Int64(sarHeight))
        } else if aspectRatioIdc >= 1 && aspectRatioIdc < table.count {
            ratio = table[aspectRatioIdc]
        } else {
            return nil
        }
        guard ratio.0 > 0, ratio.1 > 0 else { return nil }
        return Rational(ratio.0, ratio.1)
    }
}
