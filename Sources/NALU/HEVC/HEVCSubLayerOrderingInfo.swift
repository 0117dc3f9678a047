/// One sub-layer's decoded picture buffer and reordering limits: `vps_max_dec_pic_buffering_minus1`,
/// `vps_max_num_reorder_pics`, `vps_max_latency_increase_plus1` (ITU-T H.265 7.3.2.1, 7.4.3.1) or
/// the `sps_`-prefixed equivalents (7.3.2.2.1, 7.4.3.2.1).
public struct HEVCSubLayerOrderingInfo: Hashable, Sendable {
    /// `*_max_dec_pic_buffering_minus1[i]`: DPB size − 1 in pictures (0...15).
    public var maxDecPicBufferingMinus1: Int
    /// `*_max_num_reorder_pics[i]`: pictures that may precede a picture in decoding order and
    /// follow it in output order (0...15).
    public var maxNumReorderPics: Int
    /// `*_max_latency_increase_plus1[i]`: 0 for no limit, else `MaxLatencyPictures` =
    /// `max_num_reorder_pics` + this − 1.
    public var maxLatencyIncreasePlus1: Int

    public init(maxDecPicBufferingMinus1: Int, maxNumReorderPics: Int, maxLatencyIncreasePlus1: Int) {
        self.maxDecPicBufferingMinus1 = maxDecPicBufferingMinus1
        self.maxNumReorderPics = maxNumReorderPics
        self.maxLatencyIncreasePlus1 = maxLatencyIncreasePlus1
    }

    /// Reads the loop `for( i = ( *_sub_layer_ordering_info_present_flag ? 0 :
    /// *_max_sub_layers_minus1 ); i <= *_max_sub_layers_minus1; i++ )` and returns
    /// `maxSubLayersMinus1 + 1` entries; entries not present are inferred equal to the highest
    /// sub-layer's (7.4.3.1, 7.4.3.2.1).
    ///
    /// `max_dec_pic_buffering_minus1` is checked against 0...15 (MaxDpbSize − 1 ≤ 15, A.4.2) and
    /// `max_num_reorder_pics` against 0...15. As FFmpeg does, a reorder count above the buffer
    /// size is tolerated rather than rejected.
    static func parse(_ reader: inout BitReader, presentFlag: Bool, maxSubLayersMinus1: Int,
                      vps: Bool) throws(NALUError) -> [HEVCSubLayerOrderingInfo] {
        guard (0...6).contains(maxSubLayersMinus1) else {
            throw reader.error(.invalidValue, vps ? "vps_max_sub_layers_minus1" : "sps_max_sub_layers_minus1")
        }
        var parsed: [HEVCSubLayerOrderingInfo] = []
        parsed.reserveCapacity(maxSubLayersMinus1 + 1)
        for _ in (presentFlag ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            let buffering = try reader.ue(vps ? "vps_max_dec_pic_buffering_minus1" : "sps_max_dec_pic_buffering_minus1",
                                          in: 0...15)
            let reorder = try reader.ue(vps ? "vps_max_num_reorder_pics" : "sps_max_num_reorder_pics", in: 0...15)
            let latency = Int(try reader.ue(vps ? "vps_max_latency_increase_plus1" : "sps_max_latency_increase_plus1"))
            parsed.append(HEVCSubLayerOrderingInfo(maxDecPicBufferingMinus1: buffering, maxNumReorderPics: reorder,
                                                   maxLatencyIncreasePlus1: latency))
        }
        if !presentFlag, let highest = parsed.last {
            return [HEVCSubLayerOrderingInfo](repeating: highest, count: maxSubLayersMinus1 + 1)
        }
        return parsed
    }
}
