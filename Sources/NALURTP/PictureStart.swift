public import NALU

/// Whether a slice NAL unit begins a picture: H.264 `first_mb_in_slice` = 0 (7.3.3), H.265
/// `first_slice_segment_in_pic_flag` = 1 (7.3.6.1). A receiver that joins a stream — or lost
/// packets before the first it received — uses it to tell an access unit received from its first
/// slice from one that lost its beginning.
public enum PictureStart {
    /// `true` or `false` for a slice NAL unit, `nil` for any other (or one too short to tell).
    public static func startsPicture(_ nalUnit: [UInt8], codec: Codec) -> Bool? {
        guard let header = try? NALUnitHeader(nalUnit, codec: codec), header.isVCL else { return nil }
        var reader = BitReader(nalUnit: nalUnit.prefix(16), headerBytes: header.length)
        switch codec {
        case .h264: return (try? reader.ue("first_mb_in_slice")).map { $0 == 0 }
        case .hevc: return try? reader.flag("first_slice_segment_in_pic_flag")
        }
    }
}
