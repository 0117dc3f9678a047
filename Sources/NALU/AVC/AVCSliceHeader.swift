/// The coding type of an H.264 slice: `slice_type % 5` (ITU-T H.264 Table 7-6).
public enum AVCSliceType: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// P slice (inter prediction from list 0).
    case p = 0
    /// B slice (bi-prediction).
    case b = 1
    /// I slice (intra only).
    case i = 2
    /// SP slice (switching P).
    case sp = 3
    /// SI slice (switching I).
    case si = 4

    /// `"P"`, `"B"`, `"I"`, `"SP"` or `"SI"`.
    public var description: String {
        switch self {
        case .p: "P"
        case .b: "B"
        case .i: "I"
        case .sp: "SP"
        case .si: "SI"
        }
    }
}

/// The first part of an H.264 slice header, `slice_header()` (ITU-T H.264 7.3.3, semantics
/// 7.4.3): every element up to `redundant_pic_cnt`, which is what detecting the first slice of a
/// new primary coded picture needs (7.4.1.2.4), plus `nal_ref_idc` and `IdrPicFlag` from the NAL
/// unit header.
///
/// Only a bounded prefix of the slice NAL unit is unescaped (``maxParsedPrefix`` bytes), so the
/// cost does not grow with the slice data.
public struct AVCSliceHeader: Hashable, Sendable {
    /// Bytes of the escaped NAL unit that are unescaped and read. The elements parsed here take
    /// at most about 80 bytes even with the longest Exp-Golomb codes.
    public static let maxParsedPrefix = 256

    /// `nal_ref_idc` of the NAL unit (0 for a non-reference picture).
    public var nalRefIdc: UInt8
    /// `nal_unit_type` of the NAL unit (1, 2, 5 or 19).
    public var nalUnitType: AVCNALUnitType
    /// `IdrPicFlag`: `nal_unit_type` is 5 (7-1).
    public var idrPicFlag: Bool { nalUnitType == .idrSlice }

    /// `first_mb_in_slice`.
    public var firstMbInSlice: Int
    /// `slice_type` (0...9; 5...9 mean every slice of the picture has this type).
    public var sliceType: Int
    /// `pic_parameter_set_id` (0...255).
    public var picParameterSetId: Int
    /// `colour_plane_id` (0...2) when the SPS has `separate_colour_plane_flag`, else `nil`.
    public var colourPlaneId: Int?
    /// `frame_num` (`log2_max_frame_num` bits).
    public var frameNum: Int
    /// `field_pic_flag` (false when absent).
    public var fieldPicFlag: Bool
    /// `bottom_field_flag` (false when absent).
    public var bottomFieldFlag: Bool
    /// `idr_pic_id` (0...65535) for IDR pictures, else `nil`.
    public var idrPicId: Int?
    /// `pic_order_cnt_type` of the SPS the slice was parsed with (0...2).
    public var picOrderCntType: Int
    /// `pic_order_cnt_lsb` when `pic_order_cnt_type` is 0, else `nil`.
    public var picOrderCntLsb: Int?
    /// `delta_pic_order_cnt_bottom` (0 when absent, as inferred by 7.4.3).
    public var deltaPicOrderCntBottom: Int
    /// `delta_pic_order_cnt[0]` and `[1]` (each 0 when absent, 7.4.3).
    public var deltaPicOrderCnt: [Int]
    /// `redundant_pic_cnt` (0...127; 0 when absent).
    public var redundantPicCnt: Int

    /// The coding type, `slice_type % 5`.
    public var pictureType: AVCSliceType { AVCSliceType(rawValue: sliceType % 5) ?? .p }

    /// Parses the start of a slice NAL unit (escaped, header byte included).
    ///
    /// - Parameters:
    ///   - nalUnit: a NAL unit of type 1 (non-IDR), 2 (partition A), 5 (IDR) or 19 (auxiliary).
    ///   - sps: looks up a sequence parameter set by `seq_parameter_set_id`.
    ///   - pps: looks up a picture parameter set by `pic_parameter_set_id`.
    /// - Throws: ``NALUError/Code/missing`` for `pic_parameter_set_id` when either parameter set
    ///   is unknown; ``NALUError/Code/unsupported`` for SVC/MVC slices (types 20, 21).
    public init(nalUnit: ArraySlice<UInt8>,
                sps: (Int) -> AVCSequenceParameterSet?,
                pps: (Int) -> AVCPictureParameterSet?) throws(NALUError) {
        let header = try AVCNALUnitHeader(nalUnit)
        switch header.nalUnitType.rawValue {
        case 1, 2, 5, 19: break
        case 20, 21:
            throw NALUError(.unsupported, field: "nal_unit_type", byteOffset: 0,
                            detail: "slice extension \(header.nalUnitType.rawValue)")
        default:
            throw NALUError.invalid("nal_unit_type", "\(header.nalUnitType.rawValue) is not a slice", byteOffset: 0)
        }
        nalRefIdc = header.nalRefIdc
        nalUnitType = header.nalUnitType
        // nal_ref_idc 0 on an IDR slice breaks a "shall" of 7.4.1 but not the syntax; it is kept
        // as read so access-unit detection still works on such streams.
        let prefix = nalUnit.prefix(Self.maxParsedPrefix)
        var reader = BitReader(nalUnit: prefix, headerBytes: 1)

        let firstMbMark = reader
        firstMbInSlice = Int(try reader.ue("first_mb_in_slice"))
        sliceType = try reader.ue("slice_type", in: 0...9)
        let ppsMark = reader
        picParameterSetId = try reader.ue("pic_parameter_set_id", in: 0...255)
        guard let pictureParameters = pps(picParameterSetId) else {
            throw ppsMark.error(.missing, "pic_parameter_set_id", detail: "no PPS \(picParameterSetId)")
        }
        guard let sequenceParameters = sps(pictureParameters.seqParameterSetId) else {
            throw ppsMark.error(.missing, "pic_parameter_set_id",
                                detail: "no SPS \(pictureParameters.seqParameterSetId) for PPS \(picParameterSetId)")
        }
        // first_mb_in_slice < PicSizeInMbs, at most PicWidthInMbs · FrameHeightInMbs (7.4.3).
        let (frameSizeInMbs, overflow) = sequenceParameters.picWidthInMbs
            .multipliedReportingOverflow(by: sequenceParameters.frameHeightInMbs)
        if !overflow && firstMbInSlice >= frameSizeInMbs {
            throw firstMbMark.error(.invalidValue, "first_mb_in_slice",
                                    detail: "\(firstMbInSlice) not below \(frameSizeInMbs) macroblocks")
        }
        if sequenceParameters.separateColourPlaneFlag {
            let mark = reader
            let plane = try reader.bits(2, "colour_plane_id")
            guard plane <= 2 else { throw mark.error(.invalidValue, "colour_plane_id", detail: "3 is reserved") }
            colourPlaneId = plane
        } else {
            colourPlaneId = nil
        }
        frameNum = try reader.bits(sequenceParameters.log2MaxFrameNum, "frame_num")
        if !sequenceParameters.frameMbsOnlyFlag {
            fieldPicFlag = try reader.flag("field_pic_flag")
            bottomFieldFlag = fieldPicFlag ? try reader.flag("bottom_field_flag") : false
        } else {
            fieldPicFlag = false
            bottomFieldFlag = false
        }
        idrPicId = header.nalUnitType == .idrSlice ? try reader.ue("idr_pic_id", in: 0...65535) : nil

        picOrderCntType = sequenceParameters.picOrderCntType
        let bottomPresent = pictureParameters.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag
        var lsb: Int? = nil
        var deltaBottom = 0
        var delta = [0, 0]
        if picOrderCntType == 0 {
            lsb = try reader.bits(sequenceParameters.log2MaxPicOrderCntLsbMinus4 + 4, "pic_order_cnt_lsb")
            if bottomPresent {
                deltaBottom = Int(try reader.se("delta_pic_order_cnt_bottom"))
            }
        }
        if picOrderCntType == 1 && !sequenceParameters.deltaPicOrderAlwaysZeroFlag {
            delta[0] = Int(try reader.se("delta_pic_order_cnt"))
            if bottomPresent {
                delta[1] = Int(try reader.se("delta_pic_order_cnt"))
            }
        }
        picOrderCntLsb = lsb
        deltaPicOrderCntBottom = deltaBottom
        deltaPicOrderCnt = delta
        redundantPicCnt = pictureParameters.redundantPicCntPresentFlag
            ? try reader.ue("redundant_pic_cnt", in: 0...127) : 0
    }

    /// Parses the start of a slice NAL unit (escaped, header byte included).
    public init(nalUnit: [UInt8],
                sps: (Int) -> AVCSequenceParameterSet?,
                pps: (Int) -> AVCPictureParameterSet?) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...], sps: sps, pps: pps)
    }

    /// Whether this slice starts a new primary coded picture after `previous`, the preceding
    /// slice of a primary picture (ITU-T H.264 7.4.1.2.4). True when any of these differ:
    /// `frame_num`, `pic_parameter_set_id`, `field_pic_flag`, `bottom_field_flag`; when
    /// `nal_ref_idc` differs with one of them 0; when `pic_order_cnt_type` is 0 for both and
    /// `pic_order_cnt_lsb` or `delta_pic_order_cnt_bottom` differs; when it is 1 for both and
    /// `delta_pic_order_cnt[0]` or `[1]` differs; when `IdrPicFlag` differs; or when both are IDR
    /// and `idr_pic_id` differs.
    ///
    /// - Parameter sps: the SPS the current slice refers to. When given, its
    ///   `pic_order_cnt_type` is used for this slice; otherwise the type recorded when each header
    ///   was parsed (``picOrderCntType``).
    public func isFirstSliceOfNewPicture(comparedTo previous: AVCSliceHeader,
                                         sps: AVCSequenceParameterSet? = nil) -> Bool {
        if frameNum != previous.frameNum { return true }
        if picParameterSetId != previous.picParameterSetId { return true }
        if fieldPicFlag != previous.fieldPicFlag { return true }
        if fieldPicFlag && previous.fieldPicFlag && bottomFieldFlag != previous.bottomFieldFlag { return true }
        if nalRefIdc != previous.nalRefIdc && (nalRefIdc == 0 || previous.nalRefIdc == 0) { return true }
        let pocType = sps?.picOrderCntType ?? picOrderCntType
        if pocType == 0 && previous.picOrderCntType == 0
            && (picOrderCntLsb != previous.picOrderCntLsb
                || deltaPicOrderCntBottom != previous.deltaPicOrderCntBottom) {
            return true
        }
        if pocType == 1 && previous.picOrderCntType == 1 && deltaPicOrderCnt != previous.deltaPicOrderCnt {
            return true
        }
        if idrPicFlag != previous.idrPicFlag { return true }
        if idrPicFlag && previous.idrPicFlag && idrPicId != previous.idrPicId { return true }
        return false
    }
}
