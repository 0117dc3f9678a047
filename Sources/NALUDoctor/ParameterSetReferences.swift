import NALU
import NALUMedia

/// The ids at the start of a slice or parameter set, read without the parameter sets they
/// refer to, so `nalu doctor` can tell a missing reference before anything needs it.
enum ParameterSetReferences {
    /// The `pic_parameter_set_id` of an H.264 slice (7.3.3: after `first_mb_in_slice` and
    /// `slice_type`) or the `slice_pic_parameter_set_id` of an H.265 slice segment (7.3.6.1),
    /// and whether it is the first slice of its picture (`first_mb_in_slice` 0,
    /// `first_slice_segment_in_pic_flag`); `nil` for data partitions B and C, which carry no PPS
    /// id, and for a header too short to say.
    static func slice(_ unit: NALUnitView, header: NALUnitHeader) -> (ppsId: Int, firstSliceOfPicture: Bool)? {
        let prefix = Array(unit.bytes.prefix(24))
        switch header {
        case .avc(let avc):
            guard avc.nalUnitType != .sliceDataPartitionB, avc.nalUnitType != .sliceDataPartitionC else { return nil }
            var reader = BitReader(nalUnit: prefix[...], headerBytes: avc.length)
            guard let firstMb = try? reader.ue("first_mb_in_slice"), (try? reader.ue("slice_type")) != nil,
                  let pps = try? reader.ue("pic_parameter_set_id", in: 0...255) else { return nil }
            return (pps, firstMb == 0)
        case .hevc(let hevc):
            var reader = BitReader(nalUnit: prefix[...], headerBytes: 2)
            guard let first = try? reader.flag("first_slice_segment_in_pic_flag") else { return nil }
            if hevc.nalUnitType.isIRAP, (try? reader.flag("no_output_of_prior_pics_flag")) == nil { return nil }
            guard let pps = try? reader.ue("slice_pic_parameter_set_id", in: 0...63) else { return nil }
            return (pps, first)
        }
    }

    /// A PPS's own id and the id of the SPS it refers to (H.264 7.3.2.2, H.265 7.3.2.3.1).
    static func pictureParameterSet(_ unit: NALUnitView, codec: Codec) -> (ppsId: Int, spsId: Int)? {
        let prefix = Array(unit.bytes.prefix(16))
        var reader = BitReader(nalUnit: prefix[...], headerBytes: codec == .h264 ? 1 : 2)
        guard let pps = try? reader.ue("pic_parameter_set_id", in: 0...255),
              let sps = try? reader.ue("seq_parameter_set_id", in: 0...31) else { return nil }
        return (pps, sps)
    }

    /// The `sps_video_parameter_set_id` of an H.265 SPS (7.3.2.2.1: its first four bits).
    static func videoParameterSetId(ofSPS unit: NALUnitView) -> Int? {
        guard unit.count > 2 else { return nil }
        return Int(unit.bytes[2] >> 4)
    }
}
