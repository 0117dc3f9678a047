/// The facts of an H.264 SPS that reading a slice header needs (ITU-T H.264 7.3.3), kept by
/// ``ParameterSetStore`` in a fixed table indexed by `seq_parameter_set_id`.
struct AVCSliceSPSFacts: Sendable {
    var present = false
    var seqParameterSetId = -1
    /// `PicWidthInMbs · FrameHeightInMbs`, or `nil` when the product overflows.
    var frameSizeInMbs: Int?
    var separateColourPlaneFlag = false
    var log2MaxFrameNum = 4
    var frameMbsOnlyFlag = true
    var picOrderCntType = 0
    var log2MaxPicOrderCntLsb = 4
    var deltaPicOrderAlwaysZeroFlag = false
    /// How many pictures the SPS lets the stream reorder (`max_num_reorder_frames`; else 0 for
    /// `pic_order_cnt_type` 2, else 16).
    var reorderLimit = 16

    init() {}

    init(_ sps: AVCSequenceParameterSet) {
        present = true
        seqParameterSetId = sps.seqParameterSetId
        let (size, overflow) = sps.picWidthInMbs.multipliedReportingOverflow(by: sps.frameHeightInMbs)
        frameSizeInMbs = overflow ? nil : size
        separateColourPlaneFlag = sps.separateColourPlaneFlag
        log2MaxFrameNum = sps.log2MaxFrameNum
        frameMbsOnlyFlag = sps.frameMbsOnlyFlag
        picOrderCntType = sps.picOrderCntType
        log2MaxPicOrderCntLsb = sps.log2MaxPicOrderCntLsbMinus4 + 4
        deltaPicOrderAlwaysZeroFlag = sps.deltaPicOrderAlwaysZeroFlag
        reorderLimit = sps.vuiParameters?.maxNumReorderFrames ?? (sps.picOrderCntType == 2 ? 0 : 16)
    }
}

/// The facts of an H.264 PPS that reading a slice header needs, indexed by
/// `pic_parameter_set_id`.
struct AVCSlicePPSFacts: Sendable {
    var present = false
    var picParameterSetId = -1
    var seqParameterSetId = 0
    var bottomFieldPicOrderInFramePresentFlag = false
    var redundantPicCntPresentFlag = false

    init() {}

    init(_ pps: AVCPictureParameterSet) {
        present = true
        picParameterSetId = pps.picParameterSetId
        seqParameterSetId = pps.seqParameterSetId
        bottomFieldPicOrderInFramePresentFlag = pps.bottomFieldPicOrderInFramePresentFlag
        redundantPicCntPresentFlag = pps.redundantPicCntPresentFlag
    }
}

/// The H.264 slice header elements that access-unit detection (ITU-T H.264 7.4.1.2.4) and picture
/// order counts (8.2.1) use, as plain integers: the same values as ``AVCSliceHeader``, without
/// its array or optionals, read in place by ``init(nalUnit:spsFacts:ppsFacts:)``.
struct AVCSliceFields: Sendable {
    var nalRefIdc: UInt8
    var idrPicFlag: Bool
    var sliceType: Int
    var picParameterSetId: Int
    var seqParameterSetId: Int
    var frameNum: Int
    var fieldPicFlag: Bool
    var bottomFieldFlag: Bool
    var idrPicId: Int
    var picOrderCntType: Int
    var picOrderCntLsb: Int
    var deltaPicOrderCntBottom: Int
    var deltaPicOrderCnt0: Int
    var deltaPicOrderCnt1: Int
    var redundantPicCnt: Int

    /// The coding type, `slice_type % 5`.
    var pictureType: AVCSliceType { AVCSliceType(rawValue: sliceType % 5) ?? .p }

    /// The fields of a header parsed by ``AVCSliceHeader``.
    init(_ header: AVCSliceHeader, seqParameterSetId: Int) {
        nalRefIdc = header.nalRefIdc
        idrPicFlag = header.idrPicFlag
        sliceType = header.sliceType
        picParameterSetId = header.picParameterSetId
        self.seqParameterSetId = seqParameterSetId
        frameNum = header.frameNum
        fieldPicFlag = header.fieldPicFlag
        bottomFieldFlag = header.bottomFieldFlag
        idrPicId = header.idrPicId ?? 0
        picOrderCntType = header.picOrderCntType
        picOrderCntLsb = header.picOrderCntLsb ?? 0
        deltaPicOrderCntBottom = header.deltaPicOrderCntBottom
        deltaPicOrderCnt0 = header.deltaPicOrderCnt.first ?? 0
        deltaPicOrderCnt1 = header.deltaPicOrderCnt.count > 1 ? header.deltaPicOrderCnt[1] : 0
        redundantPicCnt = header.redundantPicCnt
    }

    /// Reads the slice header of `nalUnit` (escaped, header byte included, type 1, 2, 5 or 19)
    /// in place, up to `redundant_pic_cnt` (ITU-T H.264 7.3.3), within the first
    /// ``AVCSliceHeader/maxParsedPrefix`` bytes. Returns `nil` for anything ``AVCSliceHeader``
    /// might reject (a missing parameter set, a value out of range, bits running out, an
    /// Exp-Golomb code longer than 28 leading zeros): the caller then parses with it for the
    /// exact error. When this succeeds its values equal ``AVCSliceHeader``'s.
    init?(nalUnit: UnsafeRawBufferPointer, spsFacts: [AVCSliceSPSFacts], ppsFacts: [AVCSlicePPSFacts]) {
        guard let start = Start(nalUnit), start.picParameterSetId < ppsFacts.count else { return nil }
        let pps = ppsFacts[start.picParameterSetId]
        guard pps.present, pps.seqParameterSetId < spsFacts.count else { return nil }
        self.init(start, pps: pps, sps: spsFacts[pps.seqParameterSetId])
    }

    /// A slice header read in place up to `pic_parameter_set_id` (ITU-T H.264 7.3.3), which
    /// picks the parameter sets the rest of it needs; reading goes on from here.
    struct Start {
        fileprivate var reader: EscapedBitReader
        fileprivate let nalRefIdc: UInt8
        fileprivate let idrPicFlag: Bool
        fileprivate let firstMbInSlice: Int
        fileprivate let sliceType: Int
        let picParameterSetId: Int

        /// `nil` when ``AVCSliceFields/init(nalUnit:spsFacts:ppsFacts:)`` would return `nil`
        /// before `pic_parameter_set_id`. (Inlined: the values stay in registers, not copied
        /// through memory, on the splitter's once-per-slice path.)
        @inline(__always)
        init?(_ nalUnit: UnsafeRawBufferPointer) {
            guard let first = nalUnit.first, first & 0x80 == 0 else { return nil }
            let type = AVCNALUnitType(rawValue: first)
            guard type == .nonIDRSlice || type == .sliceDataPartitionA || type == .idrSlice || type == .auxiliarySlice else { return nil }
            nalRefIdc = (first >> 5) & 3
            idrPicFlag = type == .idrSlice
            reader = EscapedBitReader(nalUnit, from: 1, limit: AVCSliceHeader.maxParsedPrefix)
            guard let firstMb = reader.ue(),
                  let sliceType = reader.ue(), sliceType <= 9,
                  let ppsId = reader.ue(), ppsId <= 255 else { return nil }
            firstMbInSlice = firstMb
            self.sliceType = sliceType
            picParameterSetId = ppsId
        }
    }

    /// Reads the rest of the slice header begun by `start`, as
    /// ``init(nalUnit:spsFacts:ppsFacts:)`` does, with the facts of its PPS and that PPS's SPS
    /// given (plain values: nothing reference-counted per slice). Returns `nil` as well when
    /// `pps` describes another PPS than the one the slice names.
    @inline(__always)
    init?(_ start: Start, pps: AVCSlicePPSFacts, sps: AVCSliceSPSFacts) {
        var reader = start.reader
        let firstMb = start.firstMbInSlice
        let ppsId = start.picParameterSetId
        nalRefIdc = start.nalRefIdc
        idrPicFlag = start.idrPicFlag
        guard ppsId == pps.picParameterSetId, pps.present, sps.present, sps.seqParameterSetId == pps.seqParameterSetId else { return nil }
        if let size = sps.frameSizeInMbs, firstMb >= size { return nil }
        self.sliceType = start.sliceType
        picParameterSetId = ppsId
        seqParameterSetId = pps.seqParameterSetId
        if sps.separateColourPlaneFlag {
            guard let plane = reader.bits(2), plane <= 2 else { return nil }
        }
        guard let frameNum = reader.bits(sps.log2MaxFrameNum) else { return nil }
        self.frameNum = frameNum
        fieldPicFlag = false
        bottomFieldFlag = false
        if !sps.frameMbsOnlyFlag {
            guard let field = reader.flag() else { return nil }
            fieldPicFlag = field
            if field {
                guard let bottom = reader.flag() else { return nil }
                bottomFieldFlag = bottom
            }
        }
        idrPicId = 0
        if idrPicFlag {
            guard let id = reader.ue(), id <= 65535 else { return nil }
            idrPicId = id
        }
        picOrderCntType = sps.picOrderCntType
        let bottomPresent = pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag
        picOrderCntLsb = 0
        deltaPicOrderCntBottom = 0
        deltaPicOrderCnt0 = 0
        deltaPicOrderCnt1 = 0
        if picOrderCntType == 0 {
            guard let lsb = reader.bits(sps.log2MaxPicOrderCntLsb) else { return nil }
            picOrderCntLsb = lsb
            if bottomPresent {
                guard let delta = reader.se() else { return nil }
                deltaPicOrderCntBottom = delta
            }
        }
        if picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            guard let delta = reader.se() else { return nil }
            deltaPicOrderCnt0 = delta
            if bottomPresent {
                guard let delta = reader.se() else { return nil }
                deltaPicOrderCnt1 = delta
            }
        }
        redundantPicCnt = 0
        if pps.redundantPicCntPresentFlag {
            guard let count = reader.ue(), count <= 127 else { return nil }
            redundantPicCnt = count
        }
    }

    /// Whether this slice starts a new primary coded picture after `previous` (ITU-T H.264
    /// 7.4.1.2.4); the rules of ``AVCSliceHeader/isFirstSliceOfNewPicture(comparedTo:sps:)``.
    func isFirstSliceOfNewPicture(comparedTo previous: AVCSliceFields) -> Bool {
        if frameNum != previous.frameNum { return true }
        if picParameterSetId != previous.picParameterSetId { return true }
        if fieldPicFlag != previous.fieldPicFlag { return true }
        if fieldPicFlag && previous.fieldPicFlag && bottomFieldFlag != previous.bottomFieldFlag { return true }
        if nalRefIdc != previous.nalRefIdc && (nalRefIdc == 0 || previous.nalRefIdc == 0) { return true }
        if picOrderCntType == 0 && previous.picOrderCntType == 0
            && (picOrderCntLsb != previous.picOrderCntLsb || deltaPicOrderCntBottom != previous.deltaPicOrderCntBottom) {
            return true
        }
        if picOrderCntType == 1 && previous.picOrderCntType == 1
            && (deltaPicOrderCnt0 != previous.deltaPicOrderCnt0 || deltaPicOrderCnt1 != previous.deltaPicOrderCnt1) {
            return true
        }
        if idrPicFlag != previous.idrPicFlag { return true }
        if idrPicFlag && previous.idrPicFlag && idrPicId != previous.idrPicId { return true }
        return false
    }
}
