/// The start of an H.265 `slice_segment_header()` (ITU-T H.265 7.3.6.1, semantics 7.4.7.1): the
/// fields access-unit detection (7.4.2.4.4) and keyframe classification need, up to
/// `slice_pic_order_cnt_lsb`.
///
/// Only a bounded prefix of the slice NAL unit is un-escaped (``prefixLength`` bytes), so parsing
/// costs the same for any slice size. The header is read as for the base layer
/// (`nuh_layer_id` 0); multi-layer extensions (Annex F) may use the reserved bits differently.
public struct HEVCSliceSegmentHeader: Hashable, Sendable {
    /// `slice_type` (Table 7-7).
    public enum PictureType: Int, Hashable, Sendable, CustomStringConvertible {
        /// `slice_type` 0: B slice.
        case b = 0
        /// `slice_type` 1: P slice.
        case p = 1
        /// `slice_type` 2: I slice.
        case i = 2

        public var description: String {
            switch self {
            case .b: "B"
            case .p: "P"
            case .i: "I"
            }
        }
    }

    /// How many bytes of a slice NAL unit are un-escaped for parsing: enough for every field this
    /// type reads (the longest path needs well under 20 bytes).
    public static let prefixLength = 256

    /// The NAL unit header of the slice segment.
    public var nalUnitHeader: HEVCNALUnitHeader
    /// `first_slice_segment_in_pic_flag`: the first slice segment of a picture.
    public var firstSliceSegmentInPicFlag: Bool
    /// `no_output_of_prior_pics_flag` (IRAP pictures, `nal_unit_type` 16...23; else `false`).
    public var noOutputOfPriorPicsFlag: Bool
    /// `slice_pic_parameter_set_id` (0...63).
    public var slicePicParameterSetId: Int
    /// `dependent_slice_segment_flag`: the fields after ``sliceSegmentAddress`` are taken from the
    /// preceding independent slice segment and are `nil` here.
    public var dependentSliceSegmentFlag: Bool
    /// `slice_segment_address` (u(v), Ceil(Log2(PicSizeInCtbsY)) bits; 0 for the first segment).
    public var sliceSegmentAddress: Int
    /// `slice_reserved_flag[i]` for i in 0..<num_extra_slice_header_bits, first in the most
    /// significant of the low bits (0 for dependent segments).
    public var sliceReservedFlags: UInt8
    /// `slice_type` (`nil` for a dependent slice segment).
    public var sliceType: PictureType?
    /// `pic_output_flag` (inferred 1 when `output_flag_present_flag` is 0).
    public var picOutputFlag: Bool
    /// `colour_plane_id` (0...2) when `separate_colour_plane_flag` is 1.
    public var colourPlaneId: Int?
    /// `slice_pic_order_cnt_lsb` (u(v)); 0 for IDR pictures, `nil` for dependent segments.
    public var slicePicOrderCntLsb: Int?

    /// The picture type of this slice segment (`nil` for a dependent slice segment).
    public var pictureType: PictureType? { sliceType }

    /// Parses the start of a slice segment header.
    ///
    /// - Parameters:
    ///   - nalUnit: the whole escaped VCL NAL unit (types 0...31), 2-byte header included; only its
    ///     first ``prefixLength`` bytes are read.
    ///   - sps: looks up an SPS by `sps_seq_parameter_set_id`.
    ///   - pps: looks up a PPS by `pps_pic_parameter_set_id`.
    /// - Throws: `NALUError` with code `.missing` and field `slice_pic_parameter_set_id` when the PPS
    ///   is unknown, or field `pps_seq_parameter_set_id` when its SPS is.
    public init(nalUnit: ArraySlice<UInt8>, sps: (Int) -> HEVCSequenceParameterSet?,
                pps: (Int) -> HEVCPictureParameterSet?) throws(NALUError) {
        let header = try HEVCNALUnitHeader(nalUnit)
        guard header.nalUnitType.isVCL else {
            throw NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0,
                            detail: "\(header.nalUnitType.rawValue) is not a VCL NAL unit type (0...31)")
        }
        nalUnitHeader = header
        let prefixEnd = nalUnit.startIndex + min(nalUnit.count, Self.prefixLength)
        var reader = BitReader(nalUnit: nalUnit[nalUnit.startIndex..<prefixEnd], headerBytes: 2)

        firstSliceSegmentInPicFlag = try reader.flag("first_slice_segment_in_pic_flag")
        noOutputOfPriorPicsFlag = false
        if header.nalUnitType.isIRAP {
            noOutputOfPriorPicsFlag = try reader.flag("no_output_of_prior_pics_flag")
        }
        slicePicParameterSetId = try reader.ue("slice_pic_parameter_set_id", in: 0...63)
        guard let pictureParameters = pps(slicePicParameterSetId) else {
            throw reader.error(.missing, "slice_pic_parameter_set_id",
                               detail: "no PPS with pps_pic_parameter_set_id \(slicePicParameterSetId)")
        }
        guard let sequenceParameters = sps(pictureParameters.ppsSeqParameterSetId) else {
            throw reader.error(.missing, "pps_seq_parameter_set_id",
                               detail: "no SPS with sps_seq_parameter_set_id \(pictureParameters.ppsSeqParameterSetId)")
        }

        dependentSliceSegmentFlag = false
        sliceSegmentAddress = 0
        if !firstSliceSegmentInPicFlag {
            if pictureParameters.dependentSliceSegmentsEnabledFlag {
                dependentSliceSegmentFlag = try reader.flag("dependent_slice_segment_flag")
            }
            let picSizeInCtbsY = sequenceParameters.picSizeInCtbsY
            // Ceil(Log2(PicSizeInCtbsY)) bits.
            let addressBits = picSizeInCtbsY <= 1 ? 0 : Int.bitWidth - (picSizeInCtbsY - 1).leadingZeroBitCount
            guard addressBits <= 32 else {
                throw reader.error(.unsupported, "slice_segment_address",
                                   detail: "PicSizeInCtbsY \(picSizeInCtbsY) needs \(addressBits) bits")
            }
            sliceSegmentAddress = try reader.bits(addressBits, "slice_segment_address")
            guard sliceSegmentAddress < picSizeInCtbsY else {
                throw reader.error(.invalidValue, "slice_segment_address",
                                   detail: "\(sliceSegmentAddress) not below PicSizeInCtbsY \(picSizeInCtbsY)")
            }
        }

        sliceReservedFlags = 0
        sliceType = nil
        picOutputFlag = true
        colourPlaneId = nil
        slicePicOrderCntLsb = nil
        guard !dependentSliceSegmentFlag else { return }

        for _ in 0..<pictureParameters.numExtraSliceHeaderBits {
            sliceReservedFlags = sliceReservedFlags << 1 | (try reader.flag("slice_reserved_flag") ? 1 : 0)
        }
        let type = try reader.ue("slice_type", in: 0...2)
        sliceType = PictureType(rawValue: type)
        if pictureParameters.outputFlagPresentFlag {
            picOutputFlag = try reader.flag("pic_output_flag")
        }
        if sequenceParameters.separateColourPlaneFlag {
            let plane = try reader.bits(2, "colour_plane_id")
            guard plane <= 2 else {
                throw reader.error(.invalidValue, "colour_plane_id", detail: "\(plane) not in 0...2")
            }
            colourPlaneId = plane
        }
        if header.nalUnitType.isIDR {
            slicePicOrderCntLsb = 0
        } else {
            slicePicOrderCntLsb = try reader.bits(sequenceParameters.log2MaxPicOrderCntLsbMinus4 + 4,
                                                  "slice_pic_order_cnt_lsb")
        }
    }

    /// Whether this segment belongs to an IRAP picture (`nal_unit_type` 16...23).
    public var isIRAP: Bool { nalUnitHeader.nalUnitType.isIRAP }
}
