import NALU

/// ffprobe's `field_order` of an H.264 stream, from its first access unit, derived as FFmpeg's
/// H.264 parser does for a frame: from `pic_struct` of a picture timing SEI when the SPS has
/// `pic_struct_present_flag` (3, 5 → `tt`; 4, 6 → `bb`; others `progressive`; ITU-T H.264
/// Table D-1), else from the order counts of its two fields (ITU-T H.264 8.2.1: the bottom
/// field's offset is `delta_pic_order_cnt_bottom` for `pic_order_cnt_type` 0 and
/// `offset_for_top_to_bottom_field + delta_pic_order_cnt[1]` for 1): top first `tt`, bottom
/// first `bb`, equal `progressive`. A field picture gives no field order (`nil`), nor does an
/// H.265 stream (FFmpeg's parser reports none).
struct FieldOrder {
    let codec: Codec
    private var store: ParameterSetStore
    private var picStruct: Int?
    private(set) var name: String?
    private(set) var isDone: Bool

    init(codec: Codec) {
        self.codec = codec
        store = ParameterSetStore(codec: codec)
        isDone = codec != .h264
    }

    /// Takes the NAL units (escaped, header included) up to the first slice, which decides.
    mutating func add(_ nalUnit: ArraySlice<UInt8>) {
        guard !isDone, let type = try? AVCNALUnitHeader(nalUnit).nalUnitType else { return }
        if type == .sps || type == .pps {
            _ = try? store.add(Array(nalUnit))
            return
        }
        if type == .sei {
            guard let id = store.lastSPSId, let sps = store.avcSPS[id]?.parsed,
                  let messages = try? SEIMessage.messages(inNALUnit: nalUnit, codec: .h264) else { return }
            for message in messages where message.payloadType == AVCPictureTiming.payloadType {
                picStruct = (try? AVCPictureTiming.picStruct(message, sps: sps)) ?? nil
            }
            return
        }
        guard type == .nonIDRSlice || type == .idrSlice else { return }
        isDone = true
        let avcSPS = store.avcSPS, avcPPS = store.avcPPS
        guard let header = try? AVCSliceHeader(nalUnit: nalUnit, sps: { avcSPS[$0]?.parsed }, pps: { avcPPS[$0]?.parsed }),
              let picture = avcPPS[header.picParameterSetId]?.parsed,
              let sps = avcSPS[picture.seqParameterSetId]?.parsed, !header.fieldPicFlag else { return }
        if sps.vuiParameters?.picStructPresentFlag == true, let picStruct {
            name = switch picStruct {
            case 3, 5: "tt"
            case 4, 6: "bb"
            default: "progressive"
            }
            return
        }
        let offset: Int
        switch sps.picOrderCntType {
        case 0: offset = header.deltaPicOrderCntBottom
        case 1: offset = Int(sps.offsetForTopToBottomField) + (header.deltaPicOrderCnt.count > 1 ? header.deltaPicOrderCnt[1] : 0)
        default: offset = 0
        }
        name = offset > 0 ? "tt" : offset < 0 ? "bb" : "progressive"
    }
}
