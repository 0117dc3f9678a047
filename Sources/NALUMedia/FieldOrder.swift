import NALU

/// ffprobe's `field_order` of an H.264 stream, from its first slice, as FFmpeg's H.264 parser
/// derives it: `progressive` when the SPS has `frame_mbs_only_flag` 1 or the frame's two fields
/// have the same order count; `tt` (top field first) or `bb` from the sign of the bottom
/// field's order-count offset (ITU-T H.264 8.2.1: `delta_pic_order_cnt_bottom` for
/// `pic_order_cnt_type` 0, `offset_for_top_to_bottom_field + delta_pic_order_cnt[1]` for 1) or,
/// for a field picture, from `bottom_field_flag`. H.265 streams get no field order (FFmpeg's
/// parser reports none either).
struct FieldOrder {
    let codec: Codec
    private var store: ParameterSetStore
    private(set) var name: String?
    private(set) var isDone: Bool

    init(codec: Codec) {
        self.codec = codec
        store = ParameterSetStore(codec: codec)
        isDone = codec != .h264
    }

    /// Takes parameter sets until the first slice, which decides.
    mutating func add(_ nalUnit: ArraySlice<UInt8>) {
        guard !isDone, let first = nalUnit.first, let type = try? AVCNALUnitHeader(nalUnit).nalUnitType else { return }
        if store.isParameterSet(first) {
            _ = try? store.add(Array(nalUnit))
            return
        }
        guard type == .nonIDRSlice || type == .idrSlice else { return }
        isDone = true
        let avcSPS = store.avcSPS, avcPPS = store.avcPPS
        let pps = { (id: Int) in avcPPS[id]?.parsed }
        guard let header = try? AVCSliceHeader(nalUnit: nalUnit, sps: { id in avcSPS[id]?.parsed }, pps: pps),
              let picture = avcPPS[header.picParameterSetId]?.parsed,
              let sps = avcSPS[picture.seqParameterSetId]?.parsed else { return }
        if sps.frameMbsOnlyFlag { name = "progressive"; return }
        if header.fieldPicFlag { name = header.bottomFieldFlag ? "bb" : "tt"; return }
        let offset: Int
        switch sps.picOrderCntType {
        case 0: offset = header.deltaPicOrderCntBottom
        case 1: offset = Int(sps.offsetForTopToBottomField) + (header.deltaPicOrderCnt.count > 1 ? header.deltaPicOrderCnt[1] : 0)
        default: offset = 0
        }
        name = offset > 0 ? "tt" : offset < 0 ? "bb" : "progressive"
    }
}
