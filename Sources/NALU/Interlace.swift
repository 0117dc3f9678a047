/// How an interlaced video's pictures hold its fields, and which field comes first (issue 41
/// item 15). A progressive video has no `Interlace` (`nil` where one is asked for).
///
/// Two layouts exist in the streams nalu reads, and decoders hand them over differently:
/// - ``Layout/interleavedFrames``: H.264 with `frame_mbs_only_flag` 0 (ITU-T H.264 7.4.2.1.1:
///   frames coded with macroblock-adaptive frame/field coding, MBAFF, or as field pairs, PAFF),
///   or a frame whose picture timing SEI says it is shown top-then-bottom or bottom-then-top
///   (`pic_struct` 3…6, Table D-1). A decoder outputs frames whose rows alternate between the
///   two fields. x264 codes this layout (`--interlaced`, MBAFF).
/// - ``Layout/separateFields``: H.265 with `field_seq_flag` 1 (ITU-T H.265 E.3.1): every
///   picture is one field, in output order, its parity in the picture timing SEI's `pic_struct`
///   (Table D.2). A decoder outputs half-height pictures at the field rate. x265 codes this
///   layout (`--interlace tff|bff`).
public struct Interlace: Hashable, Sendable, CustomStringConvertible {
    /// Which field of a frame is shown first; the raw values are ffprobe's `field_order` names.
    public enum FieldOrder: String, Hashable, Sendable, CaseIterable {
        /// The top field (the frame's even rows, counted from 0) first: `tt`.
        case topFieldFirst = "tt"
        /// The bottom field (the odd rows) first: `bb`.
        case bottomFieldFirst = "bb"
    }

    /// How the fields are laid out in the pictures of the stream.
    public enum Layout: String, Hashable, Sendable, CaseIterable {
        /// Each picture is a frame of two interleaved fields (H.264 MBAFF or field pairs).
        case interleavedFrames = "frames"
        /// Each picture is one field, in output order (H.265 `field_seq_flag` 1).
        case separateFields = "fields"
    }

    public var fieldOrder: FieldOrder
    public var layout: Layout

    public init(fieldOrder: FieldOrder, layout: Layout) {
        self.fieldOrder = fieldOrder
        self.layout = layout
    }

    /// `interlaced frames, top field first (tt)` / `interlaced fields, bottom field first (bb)`.
    public var description: String {
        "interlaced \(layout.rawValue), \(fieldOrder == .topFieldFirst ? "top" : "bottom") field first (\(fieldOrder.rawValue))"
    }
}

/// Decides from a stream's first picture whether it is interlaced (``Interlace``), and for H.264
/// the field order ffprobe reports (`field_order`).
///
/// Give it the NAL units (escaped, header included) in decoding order, parameter sets from
/// outside the stream first, until ``isDone``: the first slice decides. Malformed units are
/// skipped (a parameter set or SEI message that does not parse says nothing); the work per unit
/// is bounded by its size.
///
/// H.264: the field order of a frame comes from its picture timing SEI `pic_struct` when the
/// SPS has `pic_struct_present_flag` (3, 5 → `tt`; 4, 6 → `bb`; others progressive; Table D-1),
/// else from the order counts of its two fields (8.2.1: the bottom field's offset is
/// `delta_pic_order_cnt_bottom` for `pic_order_cnt_type` 0, `offset_for_top_to_bottom_field +
/// delta_pic_order_cnt[1]` for 1; top first `tt`, bottom first `bb`, equal progressive), as
/// FFmpeg's H.264 parser derives it. A first picture that is a field (`field_pic_flag` 1) is
/// interlaced with the order of its parity (`bottom_field_flag`, 7.4.3); its ffprobe field
/// order stays unknown.
///
/// H.265: `field_seq_flag` 1 makes the stream ``Interlace/Layout/separateFields``, the first
/// picture's `pic_struct` (D.3.3, Table D.2: 1, 11 top; 2, 12 bottom; 9 a top field after its
/// bottom; 10 a bottom field after its top) its order (top when absent); without it, a frame
/// shown as two fields (`pic_struct` 3…6) is ``Interlace/Layout/interleavedFrames``.
public struct InterlaceDetector: Sendable {
    public let codec: Codec
    private var store: ParameterSetStore
    private var avcPicStruct: Int?
    private var hevcPicStruct: Int?
    /// Whether the first slice has been seen: what follows changes nothing.
    public private(set) var isDone = false
    /// The stream's interlacing, once ``isDone``; `nil` for a progressive stream.
    public private(set) var interlace: Interlace?
    /// H.264: ffprobe's `field_order` of the first frame, `tt`, `bb` or `progressive`; `nil` for
    /// a first picture that is a field, and for H.265 (FFmpeg's parser reports none).
    public private(set) var avcFieldOrderName: String?

    public init(codec: Codec) {
        self.codec = codec
        store = ParameterSetStore(codec: codec)
    }

    /// Takes the next NAL unit in decoding order.
    public mutating func add(_ nalUnit: ArraySlice<UInt8>) {
        guard !isDone else { return }
        switch codec {
        case .h264: addAVC(nalUnit)
        case .hevc: addHEVC(nalUnit)
        }
    }

    private mutating func addAVC(_ nalUnit: ArraySlice<UInt8>) {
        guard let type = try? AVCNALUnitHeader(nalUnit).nalUnitType else { return }
        if type == .sps || type == .pps {
            _ = try? store.add(Array(nalUnit))
            return
        }
        if type == .sei {
            guard let id = store.lastSPSId, let sps = store.avcSPS[id]?.parsed,
                  let messages = try? SEIMessage.messages(inNALUnit: nalUnit, codec: .h264) else { return }
            for message in messages where message.payloadType == AVCPictureTiming.payloadType {
                avcPicStruct = (try? AVCPictureTiming.picStruct(message, sps: sps)) ?? nil
            }
            return
        }
        guard type == .nonIDRSlice || type == .idrSlice else { return }
        isDone = true
        let avcSPS = store.avcSPS, avcPPS = store.avcPPS
        guard let header = try? AVCSliceHeader(nalUnit: nalUnit, sps: { avcSPS[$0]?.parsed }, pps: { avcPPS[$0]?.parsed }),
              let picture = avcPPS[header.picParameterSetId]?.parsed,
              let sps = avcSPS[picture.seqParameterSetId]?.parsed else { return }
        if header.fieldPicFlag {
            interlace = Interlace(fieldOrder: header.bottomFieldFlag ? .bottomFieldFirst : .topFieldFirst, layout: .interleavedFrames)
            return
        }
        let name: String
        if sps.vuiParameters?.picStructPresentFlag == true, let avcPicStruct {
            name = switch avcPicStruct {
            case 3, 5: "tt"
            case 4, 6: "bb"
            default: "progressive"
            }
        } else {
            let offset: Int
            switch sps.picOrderCntType {
            case 0: offset = header.deltaPicOrderCntBottom
            case 1: offset = Int(sps.offsetForTopToBottomField) + (header.deltaPicOrderCnt.count > 1 ? header.deltaPicOrderCnt[1] : 0)
            default: offset = 0
            }
            name = offset > 0 ? "tt" : offset < 0 ? "bb" : "progressive"
        }
        avcFieldOrderName = name
        interlace = Interlace.FieldOrder(rawValue: name).map { Interlace(fieldOrder: $0, layout: .interleavedFrames) }
    }

    private mutating func addHEVC(_ nalUnit: ArraySlice<UInt8>) {
        guard let type = try? HEVCNALUnitHeader(nalUnit).nalUnitType else { return }
        if type == .vps || type == .sps || type == .pps {
            _ = try? store.add(Array(nalUnit))
            return
        }
        if type == .prefixSEI {
            guard let id = store.lastSPSId, let vui = store.hevcSPS[id]?.parsed.vuiParameters, vui.frameFieldInfoPresentFlag,
                  let messages = try? SEIMessage.messages(inNALUnit: nalUnit, codec: .hevc) else { return }
            // pic_timing() (D.2.3) starts with pic_struct u(4) when frame_field_info_present_flag.
            for message in messages where message.payloadType == 1 {
                var reader = message.payloadReader()
                if let value = try? reader.bits(4, "pic_struct") { hevcPicStruct = value }
            }
            return
        }
        guard type.isVCL else { return }
        isDone = true
        guard let id = store.lastSPSId, let sps = store.hevcSPS[id]?.parsed else { return }
        if sps.vuiParameters?.fieldSeqFlag == true {
            let bottomFirst = hevcPicStruct == 2 || hevcPicStruct == 12 || hevcPicStruct == 9
            interlace = Interlace(fieldOrder: bottomFirst ? .bottomFieldFirst : .topFieldFirst, layout: .separateFields)
            return
        }
        switch hevcPicStruct {
        case 3, 5: interlace = Interlace(fieldOrder: .topFieldFirst, layout: .interleavedFrames)
        case 4, 6: interlace = Interlace(fieldOrder: .bottomFieldFirst, layout: .interleavedFrames)
        default: interlace = nil
        }
    }
}
