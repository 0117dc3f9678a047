import Testing
@testable import NALU

/// Hostile and broken input: every failure is a thrown `NALUError`, never a trap.
@Suite struct AVCMalformedInputTests {
    typealias V = AVCTestVectors

    static let allSPS: [[UInt8]] = [
        V.constrainedBaselineSPS, V.mainSPS, V.highSPS, V.high10SPS, V.high10IntraSPS, V.high422SPS,
        V.high444SPS, V.high444IntraSPS, V.monochromeSPS, V.interlacedSPS, V.small25fpsSPS, V.slicesSPS,
        V.intraRefreshSPS,
    ]
    static let allPPS: [[UInt8]] = [
        V.constrainedBaselinePPS, V.mainPPS, V.highPPS, V.high444PPS, V.interlacedPPS, V.slicesPPS,
        V.intraRefreshPPS, V.jvtCQMPPS, V.customCQMPPS,
    ]

    @Test func spsTruncatedAtEveryOffsetThrows() {
        for sps in Self.allSPS {
            for length in 0..<sps.count {
                do {
                    _ = try AVCSequenceParameterSet(nalUnit: sps[..<length])
                    Issue.record("SPS \(sps.prefix(4)) cut to \(length) bytes parsed")
                } catch {
                    #expect(error.code == .truncated || error.code == .invalidValue)
                    if let offset = error.byteOffset { #expect(offset <= Int64(max(length, 1))) }
                }
            }
        }
    }

    @Test func ppsAndSlicesTruncatedAtEveryOffsetNeverTrap() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: V.highSPS)
        for pps in Self.allPPS {
            for length in 0..<pps.count {
                _ = try? AVCPictureParameterSet(nalUnit: pps[..<length], sps: { _ in sps })
                _ = try? AVCPictureParameterSet(nalUnit: pps[..<length])
            }
        }
        // A cut inside the scaling lists must throw.
        for length in 1..<(V.customCQMPPS.count - 1) {
            #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: V.customCQMPPS[..<length]) }
        }
        let slicesSPS = try AVCSequenceParameterSet(nalUnit: V.slicesSPS)
        let slicesPPS = try AVCPictureParameterSet(nalUnit: V.slicesPPS[...])
        for slice in [V.slicesIDR0, V.slicesIDR1, V.slicesP2] {
            for length in 0..<slice.count {
                _ = try? AVCSliceHeader(nalUnit: slice[..<length], sps: { _ in slicesSPS }, pps: { _ in slicesPPS })
            }
        }
        // Cut right after the header byte: nothing to read.
        #expect(throws: NALUError.self) {
            _ = try AVCSliceHeader(nalUnit: V.slicesIDR0[..<1], sps: { _ in slicesSPS }, pps: { _ in slicesPPS })
        }
    }

    @Test func forbiddenZeroBitAndWrongType() {
        var bytes = V.highSPS
        bytes[0] |= 0x80
        do {
            _ = try AVCSequenceParameterSet(nalUnit: bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .forbiddenZeroBit)
            #expect(error.field == "forbidden_zero_bit")
        }
        do {
            _ = try AVCSequenceParameterSet(nalUnit: V.highPPS)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.field == "nal_unit_type")
        }
        #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: V.highSPS[...]) }
        #expect(throws: NALUError.self) { _ = try AVCSequenceParameterSet(nalUnit: []) }
        #expect(throws: NALUError.self) { _ = try SEIMessage.messages(inNALUnit: [0x86, 0x01, 0x00, 0x80], codec: .h264) }
    }

    @Test func expGolombOverflowNamesTheField() {
        // profile 66, flags, level, then 32 zero bits where seq_parameter_set_id starts.
        let nal: [UInt8] = [0x67, 66, 0, 30, 0, 0, 0, 0, 0x80, 0x80]
        do {
            _ = try AVCSequenceParameterSet(nalUnit: nal)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .expGolombOverflow)
            #expect(error.field == "seq_parameter_set_id")
            #expect(error.bitOffset == 32)
            #expect(error.byteOffset == 4)
        }
    }

    @Test func outOfRangeIdentifiers() throws {
        do {
            _ = try AVCSequenceParameterSet(nalUnit: V.SPSBuilder(spsId: 32).nal())
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.field == "seq_parameter_set_id")
            #expect(error.bitOffset == 32)
        }
        let ppsId256 = V.nal(0x68) { w in w.ue(256); w.ue(0); w.u(16, 0xFFFF) }
        do {
            _ = try AVCPictureParameterSet(nalUnit: ppsId256[...])
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "pic_parameter_set_id")
        }
        let spsId32 = V.nal(0x68) { w in w.ue(0); w.ue(32); w.u(16, 0xFFFF) }
        do {
            _ = try AVCPictureParameterSet(nalUnit: spsId32[...])
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "seq_parameter_set_id")
        }
        let slices = V.nal(0x68) { w in w.ue(0); w.ue(0); w.flag(false); w.flag(false); w.ue(8) }
        #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: slices[...]) }
        let refIdx = V.nal(0x68) { w in w.ue(0); w.ue(0); w.flag(false); w.flag(false); w.ue(0); w.ue(32) }
        #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: refIdx[...]) }
        let bipred = V.nal(0x68) { w in
            w.ue(0); w.ue(0); w.flag(false); w.flag(false); w.ue(0); w.ue(0); w.ue(0); w.flag(false); w.u(2, 3)
            w.se(0); w.se(0); w.se(0); w.u(3, 0); w.rbspTrailingBits()
        }
        do {
            _ = try AVCPictureParameterSet(nalUnit: bipred[...])
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "weighted_bipred_idc")
        }
        let qp = V.nal(0x68) { w in
            w.ue(0); w.ue(0); w.flag(false); w.flag(false); w.ue(0); w.ue(0); w.ue(0); w.flag(false); w.u(2, 0)
            w.se(26); w.se(0); w.se(0); w.u(3, 0); w.rbspTrailingBits()
        }
        #expect(throws: NALUError.self) { _ = try AVCPictureParameterSet(nalUnit: qp[...]) }
    }

    @Test func spsFieldRanges() {
        func field(of builder: V.SPSBuilder) -> String? {
            do { _ = try AVCSequenceParameterSet(nalUnit: builder.nal()); return nil } catch { return error.field }
        }
        #expect(field(of: V.SPSBuilder(chromaFormatIdc: 4)) == "chroma_format_idc")
        #expect(field(of: V.SPSBuilder(bitDepthLumaMinus8: 7)) == "bit_depth_luma_minus8")
        #expect(field(of: V.SPSBuilder(bitDepthChromaMinus8: 7)) == "bit_depth_chroma_minus8")
        #expect(field(of: V.SPSBuilder(log2MaxFrameNumMinus4: 13)) == "log2_max_frame_num_minus4")
        #expect(field(of: V.SPSBuilder(pocType: 3)) == "pic_order_cnt_type")
        #expect(field(of: V.SPSBuilder(log2MaxPocLsbMinus4: 13)) == "log2_max_pic_order_cnt_lsb_minus4")
        #expect(field(of: V.SPSBuilder(maxNumRefFrames: 17)) == "max_num_ref_frames")
        var cycle = V.SPSBuilder(pocType: 1)
        cycle.cycleCountOverride = 256
        #expect(field(of: cycle) == "num_ref_frames_in_pic_order_cnt_cycle")
        cycle.cycleCountOverride = 4_000_000_000  // refused before any allocation
        #expect(field(of: cycle) == "num_ref_frames_in_pic_order_cnt_cycle")
        var scaling = V.SPSBuilder()
        scaling.scalingLists = { w in w.flag(true); w.se(128) }
        #expect(field(of: scaling) == "delta_scale")
        scaling.scalingLists = { w in w.flag(true); w.se(-129) }
        #expect(field(of: scaling) == "delta_scale")
        var hrd = V.SPSBuilder()
        hrd.vui = { w in
            w.flag(false); w.flag(false); w.flag(false); w.flag(false); w.flag(false)
            w.flag(true); w.ue(32)
        }
        #expect(field(of: hrd) == "cpb_cnt_minus1")
        var reorder = V.SPSBuilder()
        reorder.vui = { w in
            for _ in 0..<8 { w.flag(false) }  // ... pic_struct_present_flag
            w.flag(true); w.flag(true); w.ue(0); w.ue(0); w.ue(16); w.ue(16); w.ue(17)
        }
        #expect(field(of: reorder) == "max_num_reorder_frames")
        var chromaLoc = V.SPSBuilder()
        chromaLoc.vui = { w in w.flag(false); w.flag(false); w.flag(false); w.flag(true); w.ue(6) }
        #expect(field(of: chromaLoc) == "chroma_sample_loc_type_top_field")
    }

    @Test func croppingThatLeavesNoPictureThrows() {
        // 176 wide 4:2:0: CropUnitX 2, so left + right = 88 removes everything.
        var builder = V.SPSBuilder()
        builder.crop = (44, 44, 0, 0)
        do {
            _ = try AVCSequenceParameterSet(nalUnit: builder.nal())
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.field == "frame_crop_left_offset")
        }
        builder.crop = (43, 44, 0, 0)
        #expect((try? AVCSequenceParameterSet(nalUnit: builder.nal()))?.width == 2)
        builder.crop = (0, 0, 0, 56)  // 112 rows, CropUnitY 2
        do {
            _ = try AVCSequenceParameterSet(nalUnit: builder.nal())
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "frame_crop_top_offset")
        }
        builder.crop = (0, 0, 55, 0)
        #expect((try? AVCSequenceParameterSet(nalUnit: builder.nal()))?.height == 2)
        builder.crop = (0, 0, 0, 57)
        #expect(throws: NALUError.self) { _ = try AVCSequenceParameterSet(nalUnit: builder.nal()) }
        builder.crop = (0, 4_294_967_294, 0, 0)  // largest ue(v)
        #expect(throws: NALUError.self) { _ = try AVCSequenceParameterSet(nalUnit: builder.nal()) }
    }

    @Test func hugeDimensionsDoNotOverflow() throws {
        let builder = V.SPSBuilder(widthInMbsMinus1: 4_294_967_294, heightInMapUnitsMinus1: 4_294_967_294, frameMbsOnly: false)
        let sps = try AVCSequenceParameterSet(nalUnit: builder.nal())
        #expect(sps.width == 4_294_967_295 * 16)
        #expect(sps.height == 2 * 4_294_967_295 * 16)
        #expect(sps.picSizeInMapUnits == nil)  // (2^32 − 1)^2 overflows Int
    }

    /// Random byte changes and every single-bit flip of real parameter sets and slices: the
    /// parsers may accept or reject, never trap.
    @Test func mutationsNeverTrap() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let sps = try AVCSequenceParameterSet(nalUnit: V.slicesSPS)
        let pps = try AVCPictureParameterSet(nalUnit: V.slicesPPS[...])
        let samples = Self.allSPS + Self.allPPS + [V.slicesIDR0, V.slicesP1, V.interlacedIDR, V.x264RecoveryPointSEI]
        var parsed = 0
        func parseAll(_ bytes: [UInt8]) {
            if (try? AVCSequenceParameterSet(nalUnit: bytes)) != nil { parsed += 1 }
            _ = try? AVCPictureParameterSet(nalUnit: bytes[...], sps: { _ in sps })
            _ = try? AVCSliceHeader(nalUnit: bytes, sps: { _ in sps }, pps: { _ in pps })
            if let messages = try? SEIMessage.messages(inNALUnit: bytes, codec: .h264) {
                for message in messages { _ = try? AVCRecoveryPoint(message) }
            }
        }
        for sample in samples {
            for bit in 0..<(sample.count * 8) {
                var bytes = sample
                bytes[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                parseAll(bytes)
            }
            for _ in 0..<300 {
                var bytes = sample
                for _ in 0..<(1 + next() % 4) {
                    let index = next() % bytes.count
                    bytes[index] = UInt8(truncatingIfNeeded: next())
                }
                if next() % 4 == 0 { bytes.removeLast(next() % bytes.count) }
                parseAll(bytes)
            }
        }
        #expect(parsed > 0)
    }
}
