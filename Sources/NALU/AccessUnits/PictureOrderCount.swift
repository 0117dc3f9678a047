/// The picture order count of one picture and whether it starts a new coded video sequence (after
/// which picture order counts start again).
@usableFromInline package struct PictureOrderCount: Hashable, Sendable {
    /// `PicOrderCnt` (H.264 8.2.1: the smaller of the two field counts for a frame) or
    /// `PicOrderCntVal` (H.265 8.3.1).
    @usableFromInline package var value: Int
    /// Whether the picture starts a coded video sequence: an H.264 IDR picture, or an H.265 IRAP
    /// picture with `NoRaslOutputFlag` 1.
    @usableFromInline package var startsCodedVideoSequence: Bool

    @usableFromInline package init(value: Int, startsCodedVideoSequence: Bool) {
        self.value = value
        self.startsCodedVideoSequence = startsCodedVideoSequence
    }
}

/// Derives the picture order count of each picture from its first slice header, keeping the
/// state the derivation carries from picture to picture.
///
/// - H.264 (ITU-T H.264 8.2.1): `pic_order_cnt_type` 0 (8.2.1.1: `pic_order_cnt_lsb` with the
///   most significant part following wrap-arounds from the previous reference picture), 1
///   (8.2.1.2: expected counts from `frame_num` and the SPS's cycle of reference-frame offsets)
///   and 2 (8.2.1.3: twice the frame number, less one for non-reference pictures).
///   `memory_management_control_operation` 5 is not seen (the slice header is parsed only up to
///   `redundant_pic_cnt`), so streams that use it mid-sequence get counts that keep growing
///   instead of restarting; their relative order stays right.
/// - H.265 (ITU-T H.265 8.3.1): `PicOrderCntVal` from `slice_pic_order_cnt_lsb` and the previous
///   picture with `TemporalId` 0 that is not a RASL, RADL or sub-layer non-reference picture;
///   `PicOrderCntMsb` restarts at IRAP pictures with `NoRaslOutputFlag` 1 (IDR, BLA, the first
///   picture, the first after an end of sequence NAL unit).
///
/// Feed the first slice of every picture, in decoding order; call ``endOfSequence()`` when an
/// end of sequence NAL unit passes.
package struct PictureOrderCounter: Sendable {
    // H.264 state.
    private var previousReferenceMsb = 0
    private var previousReferenceLsb = 0
    private var previousFrameNumOffset = 0
    private var previousFrameNum = 0
    // H.265 state.
    private var previousTid0POC = 0
    // Both.
    private var first = true
    private var afterEndOfSequence = false

    package init() {}

    /// Notes an end of sequence NAL unit: the next picture starts a new coded video sequence.
    package mutating func endOfSequence() { afterEndOfSequence = true }

    /// The picture order count of the H.264 picture whose first slice is `slice`, parsed with `sps`.
    package mutating func pictureOrderCount(_ slice: AVCSliceHeader, sps: AVCSequenceParameterSet) throws(NALUError) -> PictureOrderCount {
        try pictureOrderCount(AVCSliceFields(slice, seqParameterSetId: sps.seqParameterSetId), facts: AVCSliceSPSFacts(sps), sps: { sps })
    }

    /// The picture order count of the H.264 picture whose first slice has `slice`'s fields;
    /// `facts` come from its SPS, and `sps` gives the SPS itself, which `pic_order_cnt_type` 1
    /// alone needs (asked for then only: the parsed SPS is a 550-byte value, and an optional of
    /// it passed for every picture, even nil, cost two copies, ~1% of annexb→mp4 on small pictures).
    mutating func pictureOrderCount(_ slice: AVCSliceFields, facts: AVCSliceSPSFacts,
                                    sps: () -> AVCSequenceParameterSet?) throws(NALUError) -> PictureOrderCount {
        let idr = slice.idrPicFlag
        defer {
            first = false
            afterEndOfSequence = false
        }
        let maxFrameNum = 1 << facts.log2MaxFrameNum
        var frameNumOffset = 0
        if facts.picOrderCntType != 0 && !idr {
            frameNumOffset = previousFrameNum > slice.frameNum
                ? try Self.add(previousFrameNumOffset, maxFrameNum) : previousFrameNumOffset
        }
        var top = 0
        var bottom = 0
        switch facts.picOrderCntType {
        case 0:
            let lsb = slice.picOrderCntLsb
            let maxLsb = 1 << facts.log2MaxPicOrderCntLsb
            if idr {
                previousReferenceMsb = 0
                previousReferenceLsb = 0
            }
            var msb = previousReferenceMsb
            if lsb < previousReferenceLsb && previousReferenceLsb - lsb >= maxLsb / 2 {
                msb = try Self.add(previousReferenceMsb, maxLsb)
            } else if lsb > previousReferenceLsb && lsb - previousReferenceLsb > maxLsb / 2 {
                msb = try Self.add(previousReferenceMsb, -maxLsb)
            }
            top = try Self.add(msb, lsb)
            bottom = slice.fieldPicFlag ? top : try Self.add(top, slice.deltaPicOrderCntBottom)
            if slice.nalRefIdc != 0 {
                previousReferenceMsb = msb
                previousReferenceLsb = lsb
            }
        case 1:
            guard let sps = sps() else { throw NALUError(.missing, field: "seq_parameter_set_id", detail: "no SPS for pic_order_cnt_type 1") }
            let cycle = sps.numRefFramesInPicOrderCntCycle
            var absFrameNum = cycle != 0 ? try Self.add(frameNumOffset, slice.frameNum) : 0
            if slice.nalRefIdc == 0 && absFrameNum > 0 { absFrameNum -= 1 }
            var expected = 0
            if absFrameNum > 0 && cycle > 0 {
                var expectedDelta = 0
                for offset in sps.offsetForRefFrame.prefix(cycle) { expectedDelta = try Self.add(expectedDelta, Int(offset)) }
                let cycleCount = (absFrameNum - 1) / cycle
                let inCycle = (absFrameNum - 1) % cycle
                let (product, overflow) = cycleCount.multipliedReportingOverflow(by: expectedDelta)
                guard !overflow else { throw Self.overflow }
                expected = product
                for offset in sps.offsetForRefFrame.prefix(inCycle + 1) { expected = try Self.add(expected, Int(offset)) }
            }
            if slice.nalRefIdc == 0 { expected = try Self.add(expected, Int(sps.offsetForNonRefPic)) }
            let delta0 = slice.deltaPicOrderCnt0
            let delta1 = slice.deltaPicOrderCnt1
            if !slice.fieldPicFlag {
                top = try Self.add(expected, delta0)
                bottom = try Self.add(try Self.add(top, Int(sps.offsetForTopToBottomField)), delta1)
            } else if !slice.bottomFieldFlag {
                top = try Self.add(expected, delta0)
                bottom = top
            } else {
                bottom = try Self.add(try Self.add(expected, Int(sps.offsetForTopToBottomField)), delta0)
                top = bottom
            }
        default:
            var temp = 0
            if !idr {
                let doubled = try Self.add(frameNumOffset, slice.frameNum)
                let (twice, overflow) = doubled.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw Self.overflow }
                temp = slice.nalRefIdc == 0 ? twice - 1 : twice
            }
            top = temp
            bottom = temp
        }
        previousFrameNumOffset = frameNumOffset
        previousFrameNum = slice.frameNum
        return PictureOrderCount(value: Swift.min(top, bottom), startsCodedVideoSequence: idr)
    }

    /// The picture order count of the H.265 picture whose first slice segment is `slice`, parsed
    /// with `sps`. Dependent slice segments carry no count: pass the picture's first segment.
    package mutating func pictureOrderCount(_ slice: HEVCSliceSegmentHeader, sps: HEVCSequenceParameterSet) throws(NALUError) -> PictureOrderCount {
        let type = slice.nalUnitHeader.nalUnitType
        let noRaslOutput = type.isIRAP && (type.isIDR || type.isBLA || first || afterEndOfSequence)
        defer {
            first = false
            afterEndOfSequence = false
        }
        let lsb = slice.slicePicOrderCntLsb ?? 0
        let maxLsb = sps.maxPicOrderCntLsb
        var msb = 0
        if !noRaslOutput {
            let previousLsb = previousTid0POC & (maxLsb - 1)
            let previousMsb = previousTid0POC - previousLsb
            msb = previousMsb
            if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 {
                msb = try Self.add(previousMsb, maxLsb)
            } else if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 {
                msb = try Self.add(previousMsb, -maxLsb)
            }
        }
        let value = try Self.add(msb, lsb)
        // RASL 8–9, RADL 6–7 and sub-layer non-reference pictures do not update prevTid0Pic.
        let leading = (6...9).contains(type.rawValue)
        if slice.nalUnitHeader.temporalId == 0 && !leading && !type.isSubLayerNonReference {
            previousTid0POC = value
        }
        return PictureOrderCount(value: value, startsCodedVideoSequence: noRaslOutput)
    }

    private static let overflow = NALUError(.invalidValue, field: "PicOrderCnt", detail: "picture order count overflows")

    private static func add(_ a: Int, _ b: Int) throws(NALUError) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw Self.overflow }
        return sum
    }
}
