/// An H.264 sequence parameter set, `seq_parameter_set_rbsp()` (ITU-T H.264 7.3.2.1.1, semantics
/// 7.4.2.1.1).
///
/// Every syntax element is kept under its specification name in lowerCamel case. Elements the
/// stream does not carry hold the value the specification infers (for example
/// `chroma_format_idc` 1 outside the High profiles). Ranges are checked while reading, counts
/// before looping, and the derived picture size (``width``, ``height``) is computed with
/// overflow-checked arithmetic when parsing, so hostile input throws a ``NALUError`` rather than
/// trapping.
///
/// ```swift
/// let sps = try AVCSequenceParameterSet(nalUnit: nal)   // 67 64 00 1F ...
/// print(sps.profileName, sps.levelName, sps.width, sps.height, sps.frameRate ?? "-")
/// ```
public struct AVCSequenceParameterSet: Hashable, Sendable {
    /// `profile_idc`.
    public var profileIdc: UInt8
    /// The byte after `profile_idc`: `constraint_set0_flag` (most significant bit) through
    /// `constraint_set5_flag`, then `reserved_zero_2bits`.
    public var constraintSetFlags: UInt8
    /// `level_idc` (10 × the level number; 9 or 11 for level 1b, see ``isLevel1b``).
    public var levelIdc: UInt8
    /// `seq_parameter_set_id` (0...31).
    public var seqParameterSetId: Int

    /// `chroma_format_idc` (0...3; 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4); 1 when absent.
    public var chromaFormatIdc: Int
    /// `separate_colour_plane_flag` (4:4:4 coded as three monochrome planes); false when absent.
    public var separateColourPlaneFlag: Bool
    /// `bit_depth_luma_minus8` (0...6); 0 when absent.
    public var bitDepthLumaMinus8: Int
    /// `bit_depth_chroma_minus8` (0...6); 0 when absent.
    public var bitDepthChromaMinus8: Int
    /// `qpprime_y_zero_transform_bypass_flag`; false when absent.
    public var qpprimeYZeroTransformBypassFlag: Bool
    /// `seq_scaling_matrix_present_flag`; false when absent.
    public var seqScalingMatrixPresentFlag: Bool
    /// The sequence scaling lists (8, or 12 when `chroma_format_idc` is 3) when
    /// `seq_scaling_matrix_present_flag` is 1 (7.3.2.1.1.1).
    public var seqScalingMatrix: AVCScalingMatrix?
    /// The coded bits of the sequence scaling lists (every `seq_scaling_list_present_flag[i]`
    /// and `scaling_list()`), as read: their coding is not unique (a list may end early with
    /// `nextScale` 0), so ``rbspBytes()`` copies them back to stay bit-exact. `nil` when the SPS
    /// has none or was not parsed from a stream (the lists are then coded from
    /// ``seqScalingMatrix``).
    package var seqScalingMatrixBits: RBSPBits?

    /// `log2_max_frame_num_minus4` (0...12).
    public var log2MaxFrameNumMinus4: Int
    /// `pic_order_cnt_type` (0...2).
    public var picOrderCntType: Int
    /// `log2_max_pic_order_cnt_lsb_minus4` (0...12) for `pic_order_cnt_type` 0, else 0.
    public var log2MaxPicOrderCntLsbMinus4: Int
    /// `delta_pic_order_always_zero_flag` for `pic_order_cnt_type` 1, else false.
    public var deltaPicOrderAlwaysZeroFlag: Bool
    /// `offset_for_non_ref_pic` for `pic_order_cnt_type` 1, else 0.
    public var offsetForNonRefPic: Int32
    /// `offset_for_top_to_bottom_field` for `pic_order_cnt_type` 1, else 0.
    public var offsetForTopToBottomField: Int32
    /// `num_ref_frames_in_pic_order_cnt_cycle` (0...255) for `pic_order_cnt_type` 1, else 0.
    public var numRefFramesInPicOrderCntCycle: Int
    /// `offset_for_ref_frame[i]`, `num_ref_frames_in_pic_order_cnt_cycle` values.
    public var offsetForRefFrame: [Int32]

    /// `max_num_ref_frames` (0...16, the largest `MaxDpbFrames` of Table A-1).
    public var maxNumRefFrames: Int
    /// `gaps_in_frame_num_value_allowed_flag`.
    public var gapsInFrameNumValueAllowedFlag: Bool
    /// `pic_width_in_mbs_minus1`.
    public var picWidthInMbsMinus1: Int
    /// `pic_height_in_map_units_minus1`.
    public var picHeightInMapUnitsMinus1: Int
    /// `frame_mbs_only_flag`: false when the sequence may contain field pictures or MBAFF frames.
    public var frameMbsOnlyFlag: Bool
    /// `mb_adaptive_frame_field_flag`; false when absent.
    public var mbAdaptiveFrameFieldFlag: Bool
    /// `direct_8x8_inference_flag`.
    public var direct8x8InferenceFlag: Bool
    /// `frame_cropping_flag`.
    public var frameCroppingFlag: Bool
    /// `frame_crop_left_offset` in crop units (0 when absent).
    public var frameCropLeftOffset: Int
    /// `frame_crop_right_offset` in crop units (0 when absent).
    public var frameCropRightOffset: Int
    /// `frame_crop_top_offset` in crop units (0 when absent).
    public var frameCropTopOffset: Int
    /// `frame_crop_bottom_offset` in crop units (0 when absent).
    public var frameCropBottomOffset: Int
    /// `vui_parameters()` when `vui_parameters_present_flag` is 1 (E.1.1).
    public var vuiParameters: AVCVUIParameters?

    /// Cropped luma width in samples: `PicWidthInMbs · 16 − CropUnitX · (left + right)`
    /// (7.4.2.1.1). Always at least 1; computed with overflow checks while parsing.
    public let width: Int
    /// Cropped luma frame height in samples:
    /// `(2 − frame_mbs_only_flag) · PicHeightInMapUnits · 16 − CropUnitY · (top + bottom)`
    /// (7.4.2.1.1). Always at least 1.
    public let height: Int

    // MARK: Parsing

    /// Parses an escaped SPS NAL unit, header byte included (`nal_unit_type` must be 7).
    /// Error byte offsets are relative to the start of `nalUnit`.
    public init(nalUnit: ArraySlice<UInt8>) throws(NALUError) {
        let header = try AVCNALUnitHeader(nalUnit)
        guard header.nalUnitType == .sps else {
            throw NALUError.invalid("nal_unit_type", "\(header.nalUnitType.rawValue), expected 7 (SPS)", byteOffset: 0)
        }
        var reader = BitReader(nalUnit: nalUnit, headerBytes: 1)
        try self.init(reader: &reader)
    }

    /// Parses an escaped SPS NAL unit, header byte included.
    public init(nalUnit: [UInt8]) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...])
    }

    /// Parses the RBSP of an SPS: the unescaped payload after the NAL unit header.
    public init(rbsp: RBSP) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(reader: &reader)
    }

    private init(reader: inout BitReader) throws(NALUError) {
        profileIdc = UInt8(truncatingIfNeeded: try reader.u(8, "profile_idc"))
        constraintSetFlags = UInt8(truncatingIfNeeded: try reader.u(8, "constraint_set_flags"))
        levelIdc = UInt8(truncatingIfNeeded: try reader.u(8, "level_idc"))
        seqParameterSetId = try reader.ue("seq_parameter_set_id", in: 0...31)

        if AVCProfile.hasChromaFormatInfo(profileIdc) {
            chromaFormatIdc = try reader.ue("chroma_format_idc", in: 0...3)
            separateColourPlaneFlag = chromaFormatIdc == 3 ? try reader.flag("separate_colour_plane_flag") : false
            bitDepthLumaMinus8 = try reader.ue("bit_depth_luma_minus8", in: 0...6)
            bitDepthChromaMinus8 = try reader.ue("bit_depth_chroma_minus8", in: 0...6)
            qpprimeYZeroTransformBypassFlag = try reader.flag("qpprime_y_zero_transform_bypass_flag")
            seqScalingMatrixPresentFlag = try reader.flag("seq_scaling_matrix_present_flag")
            let scalingStart = reader.position
            seqScalingMatrix = seqScalingMatrixPresentFlag
                ? try AVCScalingMatrix.read(from: &reader, count: chromaFormatIdc != 3 ? 8 : 12,
                                            presentFlagField: "seq_scaling_list_present_flag")
                : nil
            seqScalingMatrixBits = seqScalingMatrixPresentFlag ? reader.bits(from: scalingStart) : nil
        } else {
            chromaFormatIdc = 1
            separateColourPlaneFlag = false
            bitDepthLumaMinus8 = 0
            bitDepthChromaMinus8 = 0
            qpprimeYZeroTransformBypassFlag = false
            seqScalingMatrixPresentFlag = false
            seqScalingMatrix = nil
            seqScalingMatrixBits = nil
        }

        log2MaxFrameNumMinus4 = try reader.ue("log2_max_frame_num_minus4", in: 0...12)
        picOrderCntType = try reader.ue("pic_order_cnt_type", in: 0...2)
        var log2MaxPocLsbMinus4 = 0
        var alwaysZero = false
        var nonRef: Int32 = 0
        var topToBottom: Int32 = 0
        var cycleLength = 0
        var offsets = [Int32]()
        if picOrderCntType == 0 {
            log2MaxPocLsbMinus4 = try reader.ue("log2_max_pic_order_cnt_lsb_minus4", in: 0...12)
        } else if picOrderCntType == 1 {
            alwaysZero = try reader.flag("delta_pic_order_always_zero_flag")
            nonRef = try reader.se("offset_for_non_ref_pic")
            topToBottom = try reader.se("offset_for_top_to_bottom_field")
            cycleLength = try reader.ue("num_ref_frames_in_pic_order_cnt_cycle", in: 0...255)
            offsets.reserveCapacity(cycleLength)
            for _ in 0..<cycleLength {
                offsets.append(try reader.se("offset_for_ref_frame"))
            }
        }
        log2MaxPicOrderCntLsbMinus4 = log2MaxPocLsbMinus4
        deltaPicOrderAlwaysZeroFlag = alwaysZero
        offsetForNonRefPic = nonRef
        offsetForTopToBottomField = topToBottom
        numRefFramesInPicOrderCntCycle = cycleLength
        offsetForRefFrame = offsets

        maxNumRefFrames = try reader.ue("max_num_ref_frames", in: 0...16)
        gapsInFrameNumValueAllowedFlag = try reader.flag("gaps_in_frame_num_value_allowed_flag")
        let widthMark = reader
        picWidthInMbsMinus1 = Int(try reader.ue("pic_width_in_mbs_minus1"))
        let heightMark = reader
        picHeightInMapUnitsMinus1 = Int(try reader.ue("pic_height_in_map_units_minus1"))
        frameMbsOnlyFlag = try reader.flag("frame_mbs_only_flag")
        mbAdaptiveFrameFieldFlag = frameMbsOnlyFlag ? false : try reader.flag("mb_adaptive_frame_field_flag")
        direct8x8InferenceFlag = try reader.flag("direct_8x8_inference_flag")
        frameCroppingFlag = try reader.flag("frame_cropping_flag")
        let cropMark = reader
        if frameCroppingFlag {
            frameCropLeftOffset = Int(try reader.ue("frame_crop_left_offset"))
            frameCropRightOffset = Int(try reader.ue("frame_crop_right_offset"))
            frameCropTopOffset = Int(try reader.ue("frame_crop_top_offset"))
            frameCropBottomOffset = Int(try reader.ue("frame_crop_bottom_offset"))
        } else {
            frameCropLeftOffset = 0
            frameCropRightOffset = 0
            frameCropTopOffset = 0
            frameCropBottomOffset = 0
        }
        vuiParameters = try reader.flag("vui_parameters_present_flag") ? try AVCVUIParameters(from: &reader) : nil
        try reader.rbspTrailingBits()

        // Derived picture size (7.4.2.1.1), checked so hostile sizes cannot overflow.
        let chromaArrayType = separateColourPlaneFlag ? 0 : chromaFormatIdc
        let cropUnits = Self.cropUnits(chromaArrayType: chromaArrayType, frameMbsOnlyFlag: frameMbsOnlyFlag)
        guard let codedWidth = Self.checkedProduct([picWidthInMbsMinus1 + 1, 16]) else {
            throw widthMark.error(.invalidValue, "pic_width_in_mbs_minus1", detail: "picture width overflows")
        }
        guard let codedHeight = Self.checkedProduct([frameMbsOnlyFlag ? 1 : 2, picHeightInMapUnitsMinus1 + 1, 16]) else {
            throw heightMark.error(.invalidValue, "pic_height_in_map_units_minus1", detail: "picture height overflows")
        }
        guard let cropX = Self.checkedProduct([cropUnits.x, frameCropLeftOffset + frameCropRightOffset]),
              cropX < codedWidth else {
            throw cropMark.error(.invalidValue, "frame_crop_left_offset",
                                 detail: "cropping \(frameCropLeftOffset)+\(frameCropRightOffset) units of \(cropUnits.x) leaves no width of \(codedWidth)")
        }
        guard let cropY = Self.checkedProduct([cropUnits.y, frameCropTopOffset + frameCropBottomOffset]),
              cropY < codedHeight else {
            throw cropMark.error(.invalidValue, "frame_crop_top_offset",
                                 detail: "cropping \(frameCropTopOffset)+\(frameCropBottomOffset) units of \(cropUnits.y) leaves no height of \(codedHeight)")
        }
        width = codedWidth - cropX
        height = codedHeight - cropY
    }

    /// `CropUnitX` and `CropUnitY` (equations 7-19 to 7-22).
    private static func cropUnits(chromaArrayType: Int, frameMbsOnlyFlag: Bool) -> (x: Int, y: Int) {
        let fieldFactor = frameMbsOnlyFlag ? 1 : 2
        switch chromaArrayType {
        case 1: return (2, 2 * fieldFactor)
        case 2: return (2, fieldFactor)
        case 3: return (1, fieldFactor)
        default: return (1, fieldFactor)
        }
    }

    /// The product of non-negative factors, or `nil` on overflow.
    private static func checkedProduct(_ factors: [Int]) -> Int? {
        var result = 1
        for factor in factors {
            let (product, overflow) = result.multipliedReportingOverflow(by: factor)
            if overflow || factor < 0 { return nil }
            result = product
        }
        return result
    }
}

// MARK: - Derived values

extension AVCSequenceParameterSet {
    /// `constraint_set0_flag`.
    public var constraintSet0Flag: Bool { constraintSetFlags & 0x80 != 0 }
    /// `constraint_set1_flag` (with Baseline: Constrained Baseline).
    public var constraintSet1Flag: Bool { constraintSetFlags & 0x40 != 0 }
    /// `constraint_set2_flag`.
    public var constraintSet2Flag: Bool { constraintSetFlags & 0x20 != 0 }
    /// `constraint_set3_flag` (level 1b, or an Intra profile).
    public var constraintSet3Flag: Bool { constraintSetFlags & 0x10 != 0 }
    /// `constraint_set4_flag`.
    public var constraintSet4Flag: Bool { constraintSetFlags & 0x08 != 0 }
    /// `constraint_set5_flag`.
    public var constraintSet5Flag: Bool { constraintSetFlags & 0x04 != 0 }

    /// `ChromaArrayType`: 0 with separate colour planes, else `chroma_format_idc` (7.4.2.1.1).
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    /// `BitDepthY` = 8 + `bit_depth_luma_minus8` (7-3).
    public var bitDepthLuma: Int { 8 + bitDepthLumaMinus8 }
    /// `BitDepthC` = 8 + `bit_depth_chroma_minus8` (7-5).
    public var bitDepthChroma: Int { 8 + bitDepthChromaMinus8 }
    /// `MaxFrameNum` = 2^(`log2_max_frame_num_minus4` + 4) (7-10); at most 65536.
    public var maxFrameNum: Int { 1 << (log2MaxFrameNumMinus4 + 4) }
    /// Number of bits of `frame_num` in a slice header.
    public var log2MaxFrameNum: Int { log2MaxFrameNumMinus4 + 4 }
    /// `MaxPicOrderCntLsb` = 2^(`log2_max_pic_order_cnt_lsb_minus4` + 4) (7-11).
    public var maxPicOrderCntLsb: Int { 1 << (log2MaxPicOrderCntLsbMinus4 + 4) }
    /// `PicWidthInMbs`.
    public var picWidthInMbs: Int { picWidthInMbsMinus1 + 1 }
    /// `PicHeightInMapUnits`.
    public var picHeightInMapUnits: Int { picHeightInMapUnitsMinus1 + 1 }
    /// `FrameHeightInMbs` = (2 − `frame_mbs_only_flag`) · `PicHeightInMapUnits` (7-18).
    public var frameHeightInMbs: Int { (frameMbsOnlyFlag ? 1 : 2) * picHeightInMapUnits }
    /// `PicSizeInMapUnits` = `PicWidthInMbs` · `PicHeightInMapUnits` (7-17); `nil` on overflow.
    public var picSizeInMapUnits: Int? {
        let (value, overflow) = picWidthInMbs.multipliedReportingOverflow(by: picHeightInMapUnits)
        return overflow ? nil : value
    }
    /// Luma width before cropping: `PicWidthInMbs` · 16.
    public var codedWidth: Int { picWidthInMbs * 16 }
    /// Luma frame height before cropping: `FrameHeightInMbs` · 16.
    public var codedHeight: Int { frameHeightInMbs * 16 }

    /// The frame rate from the VUI timing information: `time_scale / (2 · num_units_in_tick)`
    /// in lowest terms (E.2.1, for frame-coded streams; FFmpeg's `r_frame_rate`). `nil` without
    /// VUI timing information or when either value is 0.
    public var frameRate: Rational? {
        guard let vui = vuiParameters, vui.timingInfoPresentFlag,
              vui.numUnitsInTick != 0, vui.timeScale != 0 else { return nil }
        return Rational(Int64(vui.timeScale), 2 * Int64(vui.numUnitsInTick)).reduced
    }

    /// The profile name as `ffprobe` prints it (see ``AVCProfile/name(profileIdc:constraintSetFlags:)``).
    public var profileName: String {
        AVCProfile.name(profileIdc: profileIdc, constraintSetFlags: constraintSetFlags)
    }

    /// Whether the level is 1b (Table A-1).
    public var isLevel1b: Bool {
        AVCProfile.isLevel1b(profileIdc: profileIdc, constraintSetFlags: constraintSetFlags, levelIdc: levelIdc)
    }

    /// The level as written in Table A-1: `"1b"`, `"3"`, `"3.1"`.
    public var levelName: String {
        AVCProfile.levelName(profileIdc: profileIdc, constraintSetFlags: constraintSetFlags, levelIdc: levelIdc)
    }
}
