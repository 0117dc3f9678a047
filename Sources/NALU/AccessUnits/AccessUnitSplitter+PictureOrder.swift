extension AccessUnitSplitter {
    /// The picture order count of the picture whose first slice was just pushed (call when
    /// `step` ``Step/isFirstVCL``), and how many pictures its SPS lets the stream reorder: H.264
    /// `max_num_reorder_frames` (VUI bitstream restriction; 0 for `pic_order_cnt_type` 2, which
    /// cannot reorder; else 16), H.265 `sps_max_num_reorder_pics` of the highest sub-layer
    /// (7.4.3.2.1). Both from what the splitter already read (no second parse); `nil` without a
    /// slice header (the picture then keeps its decoding position). Errors carry `offset`.
    ///
    /// What the MP4 and transport stream muxers give to ``PresentationOrderer``.
    package mutating func pictureOrderCount(after step: Step, counter: inout PictureOrderCounter,
                                           offset: Int64) throws(NALUError) -> (PictureOrderCount, reorderLimit: Int)? {
        do throws(NALUError) {
            if codec == .h264 {
                return try avcPictureOrderCount(&counter).map { ($0.0, $0.reorderLimit) }
            }
            guard let slice = step.hevcSliceSegmentHeader else { return nil }
            guard let pps = parameterSets.hevcPPS[slice.slicePicParameterSetId]?.parsed,
                  let sps = parameterSets.hevcSPS[pps.ppsSeqParameterSetId]?.parsed else {
                throw NALUError(.missing, field: "slice_pic_parameter_set_id")
            }
            return (try counter.pictureOrderCount(slice, sps: sps), sps.subLayerOrderingInfo.last?.maxNumReorderPics ?? 16)
        } catch {
            throw error.offset(by: offset)
        }
    }
}
