/// An H.264 picture parameter set, `pic_parameter_set_rbsp()` (ITU-T H.264 7.3.2.2, semantics
/// 7.4.2.2).
///
/// The optional tail (`transform_8x8_mode_flag`, the picture scaling matrix and
/// `second_chroma_qp_index_offset`) is read when `more_rbsp_data()` is true. The number of 8×8
/// scaling lists depends on the SPS's `chroma_format_idc`; pass the SPS lookup (or the value)
/// when parsing streams that may be 4:4:4.
public struct AVCPictureParameterSet: Hashable, Sendable {
    /// `pic_parameter_set_id` (0...255).
    public var picParameterSetId: Int
    /// `seq_parameter_set_id` (0...31).
    public var seqParameterSetId: Int
    /// `entropy_coding_mode_flag`: true for CABAC, false for CAVLC.
    public var entropyCodingModeFlag: Bool
    /// `bottom_field_pic_order_in_frame_present_flag` (called `pic_order_present_flag` in early
    /// editions).
    public var bottomFieldPicOrderInFramePresentFlag: Bool
    /// `num_slice_groups_minus1` (0...7).
    public var numSliceGroupsMinus1: Int
    /// `slice_group_map_type` (0...6) when there is more than one slice group, else 0.
    public var sliceGroupMapType: Int
    /// `run_length_minus1[i]` for `slice_group_map_type` 0 (one per slice group).
    public var runLengthMinus1: [Int]
    /// `top_left[i]` for `slice_group_map_type` 2 (one per slice group except the last).
    public var topLeft: [Int]
    /// `bottom_right[i]` for `slice_group_map_type` 2.
    public var bottomRight: [Int]
    /// `slice_group_change_direction_flag` for `slice_group_map_type` 3...5, else false.
    public var sliceGroupChangeDirectionFlag: Bool
    /// `slice_group_change_rate_minus1` for `slice_group_map_type` 3...5, else 0.
    public var sliceGroupChangeRateMinus1: Int
    /// `pic_size_in_map_units_minus1` for `slice_group_map_type` 6, else 0.
    public var picSizeInMapUnitsMinus1: Int
    /// `slice_group_id[i]` for `slice_group_map_type` 6 (`pic_size_in_map_units_minus1 + 1`
    /// values, each 0...`num_slice_groups_minus1`).
    public var sliceGroupId: [UInt8]
    /// `num_ref_idx_l0_default_active_minus1` (0...31).
    public var numRefIdxL0DefaultActiveMinus1: Int
    /// `num_ref_idx_l1_default_active_minus1` (0...31).
    public var numRefIdxL1DefaultActiveMinus1: Int
    /// `weighted_pred_flag`.
    public var weightedPredFlag: Bool
    /// `weighted_bipred_idc` (0...2).
    public var weightedBipredIdc: Int
    /// `pic_init_qp_minus26` (−(26 + QpBdOffsetY)...25).
    public var picInitQpMinus26: Int
    /// `pic_init_qs_minus26` (−26...25).
    public var picInitQsMinus26: Int
    /// `chroma_qp_index_offset` (−12...12).
    public var chromaQpIndexOffset: Int
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag: Bool
    /// `constrained_intra_pred_flag`.
    public var constrainedIntraPredFlag: Bool
    /// `redundant_pic_cnt_present_flag`.
    public var redundantPicCntPresentFlag: Bool
    /// `transform_8x8_mode_flag`; false when the tail is absent.
    public var transform8x8ModeFlag: Bool
    /// `pic_scaling_matrix_present_flag`; false when the tail is absent.
    public var picScalingMatrixPresentFlag: Bool
    /// The picture scaling lists (6 + (2 or 6) · `transform_8x8_mode_flag`) when
    /// `pic_scaling_matrix_present_flag` is 1.
    public var picScalingMatrix: AVCScalingMatrix?
    /// `second_chroma_qp_index_offset` (−12...12); equal to ``chromaQpIndexOffset`` when absent.
    public var secondChromaQpIndexOffset: Int

    // MARK: Parsing

    /// Parses an escaped PPS NAL unit, header byte included (`nal_unit_type` must be 8).
    ///
    /// - Parameter chromaFormatIdc: the `chroma_format_idc` of the SPS the PPS refers to; only
    ///   used to count the 8×8 scaling lists (6 when 3, else 2).
    public init(nalUnit: ArraySlice<UInt8>, chromaFormatIdc: Int = 1) throws(NALUError) {
        var reader = try Self.reader(nalUnit)
        try self.init(reader: &reader, chromaFormatIdc: chromaFormatIdc, sps: { _ in nil })
    }

    /// Parses an escaped PPS NAL unit, looking up the SPS it refers to by `seq_parameter_set_id`.
    ///
    /// The SPS supplies `chroma_format_idc` (for the number of 8×8 scaling lists), the luma bit
    /// depth (for the range of `pic_init_qp_minus26`) and `PicSizeInMapUnits` (which
    /// `pic_size_in_map_units_minus1 + 1` must equal). When `sps` returns `nil`, parsing goes on
    /// as for 4:2:0 8-bit unless the PPS carries 8×8 scaling lists, whose count cannot be known:
    /// then it throws ``NALUError/Code/missing`` for `seq_parameter_set_id`.
    public init(nalUnit: ArraySlice<UInt8>, sps: (Int) -> AVCSequenceParameterSet?) throws(NALUError) {
        var reader = try Self.reader(nalUnit)
        try self.init(reader: &reader, chromaFormatIdc: nil, sps: sps)
    }

    /// Parses an escaped PPS NAL unit, header byte included (as the `ArraySlice` form).
    public init(nalUnit: [UInt8], chromaFormatIdc: Int = 1) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...], chromaFormatIdc: chromaFormatIdc)
    }

    /// Parses an escaped PPS NAL unit, looking up its SPS (as the `ArraySlice` form).
    public init(nalUnit: [UInt8], sps: (Int) -> AVCSequenceParameterSet?) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...], sps: sps)
    }

    /// Parses the RBSP of a PPS (the unescaped payload after the NAL unit header).
    public init(rbsp: RBSP, chromaFormatIdc: Int = 1) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(reader: &reader, chromaFormatIdc: chromaFormatIdc, sps: { _ in nil })
    }

    /// Parses the RBSP of a PPS, looking up its SPS (see ``init(nalUnit:sps:)``).
    public init(rbsp: RBSP, sps: (Int) -> AVCSequenceParameterSet?) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(reader: &reader, chromaFormatIdc: nil, sps: sps)
    }

    private static func reader(_ nalUnit: ArraySlice<UInt8>) throws(NALUError) -> BitReader {
        let header = try AVCNALUnitHeader(nalUnit)
        guard header.nalUnitType == .pps else {
            throw NALUError.invalid("nal_unit_type", "\(header.nalUnitType.rawValue), expected 8 (PPS)", byteOffset: 0)
        }
        return BitReader(nalUnit: nalUnit, headerBytes: 1)
    }

    /// What the PPS syntax needs from its SPS.
    private struct Context {
        var chromaFormatIdc: Int?
        var bitDepthLumaMinus8: Int?
        var picSizeInMapUnits: Int?

        init(chromaFormatIdc: Int?) {
            self.chromaFormatIdc = chromaFormatIdc
        }

        init(_ sps: AVCSequenceParameterSet) {
            chromaFormatIdc = sps.chromaFormatIdc
            bitDepthLumaMinus8 = sps.bitDepthLumaMinus8
            picSizeInMapUnits = sps.picSizeInMapUnits
        }
    }

    private init(reader: inout BitReader, chromaFormatIdc: Int?,
                 sps: (Int) -> AVCSequenceParameterSet?) throws(NALUError) {
        picParameterSetId = try reader.ue("pic_parameter_set_id", in: 0...255)
        seqParameterSetId = try reader.ue("seq_parameter_set_id", in: 0...31)
        let context = sps(seqParameterSetId).map(Context.init) ?? Context(chromaFormatIdc: chromaFormatIdc)
        entropyCodingModeFlag = try reader.flag("entropy_coding_mode_flag")
        bottomFieldPicOrderInFramePresentFlag = try reader.flag("bottom_field_pic_order_in_frame_present_flag")
        numSliceGroupsMinus1 = try reader.ue("num_slice_groups_minus1", in: 0...7)

        var mapType = 0
        var runLength = [Int]()
        var topLeft = [Int]()
        var bottomRight = [Int]()
        var changeDirection = false
        var changeRate = 0
        var mapUnitsMinus1 = 0
        var groupIds = [UInt8]()
        if numSliceGroupsMinus1 > 0 {
            // Every map-unit index is below PicSizeInMapUnits; without the SPS, below 2^32.
            let maxMapUnit = (context.picSizeInMapUnits ?? Int(UInt32.max)) - 1
            mapType = try reader.ue("slice_group_map_type", in: 0...6)
            switch mapType {
            case 0:
                runLength.reserveCapacity(numSliceGroupsMinus1 + 1)
                for _ in 0...numSliceGroupsMinus1 {
                    runLength.append(try reader.ue("run_length_minus1", in: 0...maxMapUnit))
                }
            case 2:
                topLeft.reserveCapacity(numSliceGroupsMinus1)
                bottomRight.reserveCapacity(numSliceGroupsMinus1)
                for _ in 0..<numSliceGroupsMinus1 {
                    topLeft.append(try reader.ue("top_left", in: 0...maxMapUnit))
                    bottomRight.append(try reader.ue("bottom_right", in: 0...maxMapUnit))
                }
            case 3, 4, 5:
                changeDirection = try reader.flag("slice_group_change_direction_flag")
                changeRate = try reader.ue("slice_group_change_rate_minus1", in: 0...maxMapUnit)
            case 6:
                let bitsPerId = Int.bitWidth - numSliceGroupsMinus1.leadingZeroBitCount  // Ceil(Log2(n + 1))
                let mark = reader
                mapUnitsMinus1 = try reader.ue("pic_size_in_map_units_minus1", in: 0...maxMapUnit)
                if let size = context.picSizeInMapUnits, mapUnitsMinus1 + 1 != size {
                    throw mark.error(.invalidValue, "pic_size_in_map_units_minus1",
                                     detail: "\(mapUnitsMinus1 + 1) map units, SPS has \(size)")
                }
                // Check the ids fit in what is left before allocating for them.
                guard (mapUnitsMinus1 + 1) * bitsPerId <= reader.bitsLeft else {
                    throw reader.error(.truncated, "slice_group_id",
                                       detail: "\(mapUnitsMinus1 + 1) ids of \(bitsPerId) bits")
                }
                groupIds.reserveCapacity(mapUnitsMinus1 + 1)
                for _ in 0...mapUnitsMinus1 {
                    let mark = reader
                    let id = try reader.bits(bitsPerId, "slice_group_id")
                    guard id <= numSliceGroupsMinus1 else {
                        throw mark.error(.invalidValue, "slice_group_id",
                                         detail: "\(id) not in 0...\(numSliceGroupsMinus1)")
                    }
                    groupIds.append(UInt8(truncatingIfNeeded: id))
                }
            default:
                break  // 1: dispersed, no parameters.
            }
        }
        sliceGroupMapType = mapType
        runLengthMinus1 = runLength
        self.topLeft = topLeft
        self.bottomRight = bottomRight
        sliceGroupChangeDirectionFlag = changeDirection
        sliceGroupChangeRateMinus1 = changeRate
        picSizeInMapUnitsMinus1 = mapUnitsMinus1
        sliceGroupId = groupIds

        numRefIdxL0DefaultActiveMinus1 = try reader.ue("num_ref_idx_l0_default_active_minus1", in: 0...31)
        numRefIdxL1DefaultActiveMinus1 = try reader.ue("num_ref_idx_l1_default_active_minus1", in: 0...31)
        weightedPredFlag = try reader.flag("weighted_pred_flag")
        let bipredMark = reader
        weightedBipredIdc = try reader.bits(2, "weighted_bipred_idc")
        guard weightedBipredIdc <= 2 else {
            throw bipredMark.error(.invalidValue, "weighted_bipred_idc", detail: "3 is reserved")
        }
        let qpBdOffsetY = 6 * (context.bitDepthLumaMinus8 ?? 6)
        picInitQpMinus26 = try reader.se("pic_init_qp_minus26", in: -(26 + qpBdOffsetY)...25)
        picInitQsMinus26 = try reader.se("pic_init_qs_minus26", in: -26...25)
        chromaQpIndexOffset = try reader.se("chroma_qp_index_offset", in: -12...12)
        deblockingFilterControlPresentFlag = try reader.flag("deblocking_filter_control_present_flag")
        constrainedIntraPredFlag = try reader.flag("constrained_intra_pred_flag")
        redundantPicCntPresentFlag = try reader.flag("redundant_pic_cnt_present_flag")

        if reader.moreRBSPData {
            transform8x8ModeFlag = try reader.flag("transform_8x8_mode_flag")
            picScalingMatrixPresentFlag = try reader.flag("pic_scaling_matrix_present_flag")
            if picScalingMatrixPresentFlag {
                var count = 6
                if transform8x8ModeFlag {
                    guard let chromaFormatIdc = context.chromaFormatIdc else {
                        throw NALUError(.missing, field: "seq_parameter_set_id",
                                        detail: "SPS \(seqParameterSetId) is needed to count the 8x8 scaling lists")
                    }
                    count += chromaFormatIdc == 3 ? 6 : 2
                }
                picScalingMatrix = try AVCScalingMatrix.read(from: &reader, count: count,
                                                             presentFlagField: "pic_scaling_list_present_flag")
            } else {
                picScalingMatrix = nil
            }
            secondChromaQpIndexOffset = try reader.se("second_chroma_qp_index_offset", in: -12...12)
        } else {
            transform8x8ModeFlag = false
            picScalingMatrixPresentFlag = false
            picScalingMatrix = nil
            secondChromaQpIndexOffset = chromaQpIndexOffset
        }
        try reader.rbspTrailingBits()
    }
}
