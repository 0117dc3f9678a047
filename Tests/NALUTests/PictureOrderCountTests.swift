import Testing
@testable import NALU

/// ITU-T H.264 8.2.1 picture order counts on hand-built parameter sets and slices, values worked
/// out from the spec's equations.
@Suite struct PictureOrderCountTests {
    /// A Baseline SPS (16x16, log2_max_frame_num 4) with the given picture order count syntax.
    func sps(type: Int, log2MaxLsb: Int = 4, nonRef: Int32 = 0, topToBottom: Int32 = 0, cycle: [Int32] = []) -> [UInt8] {
        var bits = BitWriter()
        bits.u(8, 66); bits.u(8, 0); bits.u(8, 30)
        bits.ue(0)                       // seq_parameter_set_id
        bits.ue(0)                       // log2_max_frame_num_minus4
        bits.ue(UInt32(type))
        if type == 0 { bits.ue(UInt32(log2MaxLsb - 4)) }
        if type == 1 {
            bits.flag(false)             // delta_pic_order_always_zero_flag
            bits.se(nonRef)
            bits.se(topToBottom)
            bits.ue(UInt32(cycle.count))
            for offset in cycle { bits.se(offset) }
        }
        bits.ue(1)                       // max_num_ref_frames
        bits.flag(false)                 // gaps_in_frame_num_value_allowed_flag
        bits.ue(0); bits.ue(0)           // 1x1 macroblocks
        bits.flag(true)                  // frame_mbs_only_flag
        bits.flag(true)                  // direct_8x8_inference_flag
        bits.flag(false)                 // frame_cropping_flag
        bits.flag(false)                 // vui_parameters_present_flag
        bits.rbspTrailingBits()
        return [0x67] + RBSP.escape(bits.bytes)
    }

    let pps: [UInt8] = {
        var bits = BitWriter()
        bits.ue(0); bits.ue(0)           // pps id, sps id
        bits.flag(false); bits.flag(false)
        bits.ue(0); bits.ue(0); bits.ue(0)
        bits.flag(false); bits.u(2, 0)
        bits.se(0); bits.se(0); bits.se(0)
        bits.flag(false); bits.flag(false); bits.flag(false)
        bits.rbspTrailingBits()
        return [0x68] + RBSP.escape(bits.bytes)
    }()

    /// A slice header of a picture: IDR or not, reference or not, frame_num, and the type's field.
    func slice(idr: Bool = false, reference: Bool = true, frameNum: Int, lsb: Int = 0, delta: Int32 = 0, pocType: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.ue(0)                       // first_mb_in_slice
        bits.ue(idr ? 7 : 5)             // slice_type I / P (all slices)
        bits.ue(0)                       // pic_parameter_set_id
        bits.u(4, UInt64(frameNum))
        if idr { bits.ue(0) }            // idr_pic_id
        if pocType == 0 { bits.u(4, UInt64(lsb)) }
        if pocType == 1 { bits.se(delta) }
        bits.u(32, 0xFFFF_FFFF)          // the rest of the slice, whatever it is
        let header: UInt8 = (reference ? 0x60 : 0) | (idr ? 5 : 1)
        return [header] + RBSP.escape(bits.bytes)
    }

    func counts(sps spsBytes: [UInt8], _ slices: [[UInt8]]) throws -> [Int] {
        let sps = try AVCSequenceParameterSet(nalUnit: spsBytes)
        let pps = try AVCPictureParameterSet(nalUnit: self.pps, sps: { _ in sps })
        var counter = PictureOrderCounter()
        return try slices.map { bytes in
            let header = try AVCSliceHeader(nalUnit: bytes, sps: { _ in sps }, pps: { _ in pps })
            return try counter.pictureOrderCount(header, sps: sps).value
        }
    }

    /// 8.2.1.1: the most significant part follows wrap-arounds of pic_order_cnt_lsb (MaxLsb 16)
    /// from the previous reference picture; non-reference pictures do not move it.
    @Test func type0WrapsAroundFromThePreviousReferencePicture() throws {
        let slices = [
            slice(idr: true, frameNum: 0, lsb: 0, pocType: 0),
            slice(frameNum: 1, lsb: 6, pocType: 0),
            slice(frameNum: 2, lsb: 12, pocType: 0),
            slice(reference: false, frameNum: 3, lsb: 2, pocType: 0),  // 12 → 2: wraps, 18
            slice(frameNum: 3, lsb: 1, pocType: 0),                    // from 12 (ref): 17
            slice(frameNum: 4, lsb: 14, pocType: 0),                   // 1 → 14: backwards, 14
            slice(idr: true, frameNum: 0, lsb: 0, pocType: 0),         // restarts
        ]
        #expect(try counts(sps: sps(type: 0), slices) == [0, 6, 12, 18, 17, 14, 0])
    }

    /// 8.2.1.2: expected counts from the cycle of reference-frame offsets (2, 4), −5 for
    /// non-reference pictures, plus delta_pic_order_cnt[0]; FrameNumOffset grows when frame_num wraps (MaxFrameNum 16).
    @Test func type1CycleOfOffsets() throws {
        let sps = sps(type: 1, nonRef: -5, topToBottom: 0, cycle: [2, 4])
        let slices = [
            slice(idr: true, frameNum: 0, pocType: 1),                // absFrameNum 0: 0
            slice(frameNum: 1, pocType: 1),                           // abs 1: cycle 0, in 0 → 2
            slice(frameNum: 2, delta: 1, pocType: 1),                 // abs 2: 2 + 4 = 6, + 1 → 7
            slice(reference: false, frameNum: 3, pocType: 1),         // abs 3 − 1 = 2: 6, − 5 → 1
            slice(frameNum: 3, pocType: 1),                           // abs 3: cycle 1 (6) + 2 → 8
            slice(frameNum: 15, pocType: 1),                          // abs 15: 7 cycles (42) + 2 → 44
            slice(frameNum: 0, pocType: 1),                           // wraps: abs 16: 7·6 + 6 → 48
        ]
        #expect(try counts(sps: sps, slices) == [0, 2, 7, 1, 8, 44, 48])
    }

    /// 8.2.1.3: twice the frame number (with wraps), one less for non-reference pictures.
    @Test func type2FromFrameNumbers() throws {
        let slices = [
            slice(idr: true, frameNum: 0, pocType: 2),
            slice(frameNum: 1, pocType: 2),
            slice(reference: false, frameNum: 2, pocType: 2),
            slice(frameNum: 2, pocType: 2),
            slice(frameNum: 15, pocType: 2),
            slice(frameNum: 0, pocType: 2),                           // FrameNumOffset 16
            slice(idr: true, frameNum: 0, pocType: 2),
        ]
        #expect(try counts(sps: sps(type: 2), slices) == [0, 2, 3, 4, 30, 32, 0])
    }

    @Test func idrStartsACodedVideoSequence() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: sps(type: 2))
        let pps = try AVCPictureParameterSet(nalUnit: self.pps, sps: { _ in sps })
        var counter = PictureOrderCounter()
        let idr = try AVCSliceHeader(nalUnit: slice(idr: true, frameNum: 0, pocType: 2), sps: { _ in sps }, pps: { _ in pps })
        let next = try AVCSliceHeader(nalUnit: slice(frameNum: 1, pocType: 2), sps: { _ in sps }, pps: { _ in pps })
        #expect(try counter.pictureOrderCount(idr, sps: sps) == PictureOrderCount(value: 0, startsCodedVideoSequence: true))
        #expect(try counter.pictureOrderCount(next, sps: sps) == PictureOrderCount(value: 2, startsCodedVideoSequence: false))
    }
}
