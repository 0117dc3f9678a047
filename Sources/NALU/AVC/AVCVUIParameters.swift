/// Video usability information, `vui_parameters()` (ITU-T H.264 E.1.1, semantics E.2.1).
///
/// Elements whose presence flag is 0 hold the value the specification infers (for example
/// `video_format` 5, `colour_primaries` 2 "unspecified"); the presence flags are kept so callers
/// can tell a coded value from an inferred one. Parsing is strict: a VUI cut short throws
/// ``NALUError/Code/truncated`` rather than being accepted partially.
public struct AVCVUIParameters: Hashable, Sendable {
    /// `aspect_ratio_info_present_flag`.
    public var aspectRatioInfoPresentFlag: Bool
    /// `aspect_ratio_idc` (Table E-1); 0 (unspecified) when absent, 255 = `Extended_SAR`.
    public var aspectRatioIdc: Int
    /// `sar_width` when `aspect_ratio_idc` is 255, else 0.
    public var sarWidth: Int
    /// `sar_height` when `aspect_ratio_idc` is 255, else 0.
    public var sarHeight: Int

    /// `overscan_info_present_flag`.
    public var overscanInfoPresentFlag: Bool
    /// `overscan_appropriate_flag` (false when absent).
    public var overscanAppropriateFlag: Bool

    /// `video_signal_type_present_flag`.
    public var videoSignalTypePresentFlag: Bool
    /// `video_format` (Table E-2; 5 "unspecified" when absent).
    public var videoFormat: Int
    /// `video_full_range_flag` (false when absent).
    public var videoFullRangeFlag: Bool
    /// `colour_description_present_flag`.
    public var colourDescriptionPresentFlag: Bool
    /// `colour_primaries` (Table E-3; 2 "unspecified" when absent).
    public var colourPrimaries: Int
    /// `transfer_characteristics` (Table E-4; 2 when absent).
    public var transferCharacteristics: Int
    /// `matrix_coefficients` (Table E-5; 2 when absent).
    public var matrixCoefficients: Int

    /// `chroma_loc_info_present_flag`.
    public var chromaLocInfoPresentFlag: Bool
    /// `chroma_sample_loc_type_top_field` (0...5; 0 when absent).
    public var chromaSampleLocTypeTopField: Int
    /// `chroma_sample_loc_type_bottom_field` (0...5; 0 when absent).
    public var chromaSampleLocTypeBottomField: Int

    /// `timing_info_present_flag`.
    public var timingInfoPresentFlag: Bool
    /// `num_units_in_tick` (0 when absent).
    public var numUnitsInTick: UInt32
    /// `time_scale` (0 when absent).
    public var timeScale: UInt32
    /// `fixed_frame_rate_flag` (false when absent).
    public var fixedFrameRateFlag: Bool

    /// `hrd_parameters()` of the NAL HRD, when `nal_hrd_parameters_present_flag` is 1.
    public var nalHRDParameters: AVCHRDParameters?
    /// `hrd_parameters()` of the VCL HRD, when `vcl_hrd_parameters_present_flag` is 1.
    public var vclHRDParameters: AVCHRDParameters?
    /// `low_delay_hrd_flag` (present only with HRD parameters; else false).
    public var lowDelayHRDFlag: Bool
    /// `pic_struct_present_flag`: picture timing SEI messages carry `pic_struct`.
    public var picStructPresentFlag: Bool

    /// `bitstream_restriction_flag`.
    public var bitstreamRestrictionFlag: Bool
    /// `motion_vectors_over_pic_boundaries_flag` (true when absent).
    public var motionVectorsOverPicBoundariesFlag: Bool
    /// `max_bytes_per_pic_denom` (0...16; 2 when absent).
    public var maxBytesPerPicDenom: Int
    /// `max_bits_per_mb_denom` (0...16; 1 when absent).
    public var maxBitsPerMbDenom: Int
    /// `log2_max_mv_length_horizontal` (0...16; 15 when absent).
    public var log2MaxMvLengthHorizontal: Int
    /// `log2_max_mv_length_vertical` (0...16; 15 when absent).
    public var log2MaxMvLengthVertical: Int
    /// `max_num_reorder_frames` (0...16), `nil` when `bitstream_restriction_flag` is 0 (the
    /// inferred value depends on the profile and level, E.2.1).
    public var maxNumReorderFrames: Int?
    /// `max_dec_frame_buffering` (0...16), `nil` when `bitstream_restriction_flag` is 0.
    public var maxDecFrameBuffering: Int?

    /// The sample aspect ratio as width:height: Table E-1 for `aspect_ratio_idc` 1...16,
    /// `sar_width:sar_height` for 255, `nil` when unspecified, reserved or 0:x.
    public var sampleAspectRatio: Rational? {
        let table: [(Int64, Int64)] = [
            (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
            (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
        ]
        if aspectRatioIdc == 255 {
            guard sarWidth != 0, sarHeight != 0 else { return nil }
            return Rational(Int64(sarWidth), Int64(sarHeight))
        }
        let index = Int(aspectRatioIdc)
        guard index >= 1 && index < table.count else { return nil }
        return Rational(table[index].0, table[index].1)
    }

    /// A VUI with nothing present: every flag 0 and every element at its inferred value (E.2.1).
    /// Set the presence flags with the values to signal.
    public init() {
        aspectRatioInfoPresentFlag = false
        aspectRatioIdc = 0
        sarWidth = 0
        sarHeight = 0
        overscanInfoPresentFlag = false
        overscanAppropriateFlag = false
        videoSignalTypePresentFlag = false
        videoFormat = 5
        videoFullRangeFlag = false
        colourDescriptionPresentFlag = false
        colourPrimaries = 2
        transferCharacteristics = 2
        matrixCoefficients = 2
        chromaLocInfoPresentFlag = false
        chromaSampleLocTypeTopField = 0
        chromaSampleLocTypeBottomField = 0
        timingInfoPresentFlag = false
        numUnitsInTick = 0
        timeScale = 0
        fixedFrameRateFlag = false
        nalHRDParameters = nil
        vclHRDParameters = nil
        lowDelayHRDFlag = false
        picStructPresentFlag = false
        bitstreamRestrictionFlag = false
        motionVectorsOverPicBoundariesFlag = true
        maxBytesPerPicDenom = 2
        maxBitsPerMbDenom = 1
        log2MaxMvLengthHorizontal = 15
        log2MaxMvLengthVertical = 15
        maxNumReorderFrames = nil
        maxDecFrameBuffering = nil
    }

    /// Reads `vui_parameters()` (E.1.1). Elements that are not present keep the values
    /// `init()` infers for them (E.2.1).
    init(from reader: inout BitReader) throws(NALUError) {
        self.init()
        aspectRatioInfoPresentFlag = try reader.flag("aspect_ratio_info_present_flag")
        if aspectRatioInfoPresentFlag {
            aspectRatioIdc = try reader.bits(8, "aspect_ratio_idc")
            if aspectRatioIdc == 255 {
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
                matrixCoefficients = try reader.bits(8, "matrix_coefficients")
            }
        }

        chromaLocInfoPresentFlag = try reader.flag("chroma_loc_info_present_flag")
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try reader.ue("chroma_sample_loc_type_top_field", in: 0...5)
            chromaSampleLocTypeBottomField = try reader.ue("chroma_sample_loc_type_bottom_field", in: 0...5)
        }

        timingInfoPresentFlag = try reader.flag("timing_info_present_flag")
        if timingInfoPresentFlag {
            numUnitsInTick = try reader.u(32, "num_units_in_tick")
            timeScale = try reader.u(32, "time_scale")
            fixedFrameRateFlag = try reader.flag("fixed_frame_rate_flag")
        }

        nalHRDParameters = try reader.flag("nal_hrd_parameters_present_flag")
            ? try AVCHRDParameters(from: &reader) : nil
        vclHRDParameters = try reader.flag("vcl_hrd_parameters_present_flag")
            ? try AVCHRDParameters(from: &reader) : nil
        if nalHRDParameters != nil || vclHRDParameters != nil {
            lowDelayHRDFlag = try reader.flag("low_delay_hrd_flag")
        }
        picStructPresentFlag = try reader.flag("pic_struct_present_flag")

        bitstreamRestrictionFlag = try reader.flag("bitstream_restriction_flag")
        if bitstreamRestrictionFlag {
            motionVectorsOverPicBoundariesFlag = try reader.flag("motion_vectors_over_pic_boundaries_flag")
            maxBytesPerPicDenom = try reader.ue("max_bytes_per_pic_denom", in: 0...16)
            maxBitsPerMbDenom = try reader.ue("max_bits_per_mb_denom", in: 0...16)
            // 0...15 in current editions; 0...16 in earlier ones, which encoders still write.
            log2MaxMvLengthHorizontal = try reader.ue("log2_max_mv_length_horizontal", in: 0...16)
            log2MaxMvLengthVertical = try reader.ue("log2_max_mv_length_vertical", in: 0...16)
            maxNumReorderFrames = try reader.ue("max_num_reorder_frames", in: 0...16)
            maxDecFrameBuffering = try reader.ue("max_dec_frame_buffering", in: 0...16)
        }
    }
}
