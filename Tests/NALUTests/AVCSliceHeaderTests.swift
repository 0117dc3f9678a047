import Testing
@testable import NALU

@Suite struct AVCSliceHeaderTests {
    typealias V = AVCTestVectors

    struct ParameterSets {
        var sps: [Int: AVCSequenceParameterSet] = [:]
        var pps: [Int: AVCPictureParameterSet] = [:]

        init(sps spsBytes: [UInt8], pps ppsBytes: [UInt8]) throws {
            let sps = try AVCSequenceParameterSet(nalUnit: spsBytes)
            self.sps[sps.seqParameterSetId] = sps
            let pps = try AVCPictureParameterSet(nalUnit: ppsBytes[...], sps: { self.sps[$0] })
            self.pps[pps.picParameterSetId] = pps
        }

        func header(_ nal: [UInt8]) throws(NALUError) -> AVCSliceHeader {
            try AVCSliceHeader(nalUnit: nal, sps: { sps[$0] }, pps: { pps[$0] })
        }
    }

    @Test func multiSliceX264Pictures() throws {
        let sets = try ParameterSets(sps: V.slicesSPS, pps: V.slicesPPS)
        let idr = try [V.slicesIDR0, V.slicesIDR1, V.slicesIDR2].map(sets.header)
        let p = try [V.slicesP0, V.slicesP1, V.slicesP2].map(sets.header)
        #expect(idr.map(\.firstMbInSlice) == [0, 22, 55])
        #expect(p.map(\.firstMbInSlice) == [0, 22, 55])
        for header in idr {
            #expect(header.nalRefIdc == 3)
            #expect(header.nalUnitType == .idrSlice)
            #expect(header.idrPicFlag)
            #expect(header.sliceType == 7)
            #expect(header.pictureType == .i)
            #expect(header.picParameterSetId == 0)
            #expect(header.frameNum == 0)
            #expect(header.idrPicId == 0)
            #expect(header.picOrderCntType == 2)  // bframes=0
            #expect(header.picOrderCntLsb == nil)
            #expect(header.fieldPicFlag == false)
            #expect(header.colourPlaneId == nil)
        }
        for header in p {
            #expect(header.nalRefIdc == 2)
            #expect(header.idrPicFlag == false)
            #expect(header.sliceType == 5)
            #expect(header.pictureType == .p)
            #expect(header.frameNum == 1)
            #expect(header.idrPicId == nil)
        }
        // Slices of one picture belong together; the next picture starts a new one.
        #expect(idr[1].isFirstSliceOfNewPicture(comparedTo: idr[0]) == false)
        #expect(idr[2].isFirstSliceOfNewPicture(comparedTo: idr[1]) == false)
        #expect(p[0].isFirstSliceOfNewPicture(comparedTo: idr[2]))
        #expect(p[1].isFirstSliceOfNewPicture(comparedTo: p[0]) == false)
        #expect(p[2].isFirstSliceOfNewPicture(comparedTo: p[1], sps: sets.sps[0]) == false)
    }

    @Test func interlacedX264Slices() throws {
        // trace_headers values; MBAFF frames, so field_pic_flag is coded (0).
        let sets = try ParameterSets(sps: V.interlacedSPS, pps: V.interlacedPPS)
        let idr = try sets.header(V.interlacedIDR)
        #expect(idr.sliceType == 7 && idr.frameNum == 0 && idr.idrPicId == 0)
        #expect(idr.fieldPicFlag == false && idr.bottomFieldFlag == false)
        #expect(idr.picOrderCntLsb == 1)
        #expect(idr.deltaPicOrderCntBottom == -1)
        let p = try sets.header(V.interlacedP)
        #expect(p.sliceType == 5 && p.frameNum == 1 && p.picOrderCntLsb == 7 && p.deltaPicOrderCntBottom == -1)
        let bRef = try sets.header(V.interlacedBRef)
        #expect(bRef.sliceType == 6 && bRef.pictureType == .b && bRef.nalRefIdc == 2)
        #expect(bRef.frameNum == 2 && bRef.picOrderCntLsb == 3)
        let bNonRef = try sets.header(V.interlacedBNonRef)
        #expect(bNonRef.nalRefIdc == 0 && bNonRef.frameNum == 3 && bNonRef.picOrderCntLsb == 5)
        #expect(p.isFirstSliceOfNewPicture(comparedTo: idr))
        #expect(bNonRef.isFirstSliceOfNewPicture(comparedTo: bRef))
    }

    @Test func intraRefreshPocType2() throws {
        let sets = try ParameterSets(sps: V.intraRefreshSPS, pps: V.intraRefreshPPS)
        #expect(sets.sps[0]?.picOrderCntType == 2)
        let header = try sets.header([0x41, 0x9A, 0x26, 0x21, 0x0F, 0x97, 0x40, 0xA6])
        #expect(header.frameNum == 1)
        #expect(header.picOrderCntLsb == nil)
        #expect(header.deltaPicOrderCnt == [0, 0])
    }

    /// Field pictures and POC type 1, built by hand: x264 never writes field_pic_flag = 1.
    @Test func newPictureRulesOfClause7_4_1_2_4() throws {
        var spsBuilder = V.SPSBuilder(frameMbsOnly: false)
        let sps0 = try AVCSequenceParameterSet(nalUnit: spsBuilder.nal())
        spsBuilder.spsId = 1
        spsBuilder.pocType = 1
        spsBuilder.pocType1 = (false, 0, 0, [2])
        let sps1 = try AVCSequenceParameterSet(nalUnit: spsBuilder.nal())
        func pps(id: UInt32, spsId: UInt32) throws -> AVCPictureParameterSet {
            try AVCPictureParameterSet(nalUnit: V.nal(0x68) { w in
                w.ue(id); w.ue(spsId); w.flag(false); w.flag(true); w.ue(0)
                w.ue(0); w.ue(0); w.flag(false); w.u(2, 0); w.se(0); w.se(0); w.se(0)
                w.flag(false); w.flag(false); w.flag(true)  // redundant_pic_cnt_present_flag
                w.rbspTrailingBits()
            }[...])
        }
        let ppsTable = [0: try pps(id: 0, spsId: 0), 1: try pps(id: 1, spsId: 0), 2: try pps(id: 2, spsId: 1)]
        let spsTable = [0: sps0, 1: sps1]

        struct Slice {
            var refIdc: UInt8 = 2, idr = false, ppsId: UInt32 = 0, frameNum: UInt64 = 1
            var field: Bool? = nil, bottom = false, idrPicId: UInt32 = 0
            var lsb: UInt64 = 4, deltaBottom: Int32 = 0, delta: (Int32, Int32) = (0, 0), redundant: UInt32 = 0
        }
        func header(_ s: Slice) throws -> AVCSliceHeader {
            let nal = V.nal(s.refIdc << 5 | (s.idr ? 5 : 1)) { w in
                w.ue(0); w.ue(s.idr ? 7 : 5); w.ue(s.ppsId)
                w.u(4, s.frameNum)
                w.flag(s.field ?? false)
                if s.field == true { w.flag(s.bottom) }
                if s.idr { w.ue(s.idrPicId) }
                if s.ppsId != 2 {
                    w.u(6, s.lsb)
                    if s.field != true { w.se(s.deltaBottom) }
                } else {
                    w.se(s.delta.0)
                    if s.field != true { w.se(s.delta.1) }
                }
                w.ue(s.redundant)
                w.u(8, 0xA5)  // stand-in for the rest of the slice
            }
            return try AVCSliceHeader(nalUnit: nal, sps: { spsTable[$0] }, pps: { ppsTable[$0] })
        }
        let base = try header(Slice())
        #expect(base.frameNum == 1 && base.picOrderCntLsb == 4 && base.redundantPicCnt == 0)
        func isNew(_ change: (inout Slice) -> Void, from start: Slice = Slice()) throws -> Bool {
            var next = start
            change(&next)
            return try header(next).isFirstSliceOfNewPicture(comparedTo: header(start))
        }
        #expect(try isNew { _ in } == false)
        #expect(try isNew { $0.frameNum = 2 })
        #expect(try isNew { $0.ppsId = 1 })
        #expect(try isNew { $0.field = true })
        #expect(try isNew({ $0.bottom = true }, from: Slice(field: true)))
        #expect(try isNew({ $0.bottom = false }, from: Slice(field: true, bottom: false)) == false)
        // Top then bottom field of one frame: a new picture each (bottom_field_flag differs).
        let top = try header(Slice(field: true, bottom: false))
        let bottom = try header(Slice(field: true, bottom: true, lsb: 5))
        #expect(top.fieldPicFlag && !top.bottomFieldFlag && bottom.bottomFieldFlag)
        #expect(bottom.isFirstSliceOfNewPicture(comparedTo: top))
        #expect(try isNew { $0.refIdc = 0 })
        #expect(try isNew { $0.refIdc = 3 } == false)  // differs, but neither is 0
        #expect(try isNew { $0.lsb = 6 })
        #expect(try isNew { $0.deltaBottom = -1 })
        #expect(try isNew { $0.redundant = 1 } == false)  // not a rule
        // POC type 1 (pps 2 → sps 1).
        let type1 = Slice(ppsId: 2)
        #expect(try header(type1).picOrderCntType == 1)
        #expect(try header(type1).picOrderCntLsb == nil)
        #expect(try isNew({ $0.delta.0 = 2 }, from: type1))
        #expect(try isNew({ $0.delta.1 = -2 }, from: type1))
        #expect(try isNew({ $0.lsb = 9 }, from: type1) == false)  // not coded for type 1
        // IDR.
        let idr = Slice(refIdc: 3, idr: true, frameNum: 0, idrPicId: 1)
        #expect(try header(idr).idrPicId == 1)
        #expect(try isNew({ $0.idr = false }, from: idr))
        #expect(try isNew({ $0.idrPicId = 2 }, from: idr))
        #expect(try isNew({ _ in }, from: idr) == false)
    }

    @Test func missingParameterSets() throws {
        let sets = try ParameterSets(sps: V.slicesSPS, pps: V.slicesPPS)
        do {
            _ = try AVCSliceHeader(nalUnit: V.slicesIDR0, sps: { sets.sps[$0] }, pps: { _ in nil })
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missing)
            #expect(error.field == "pic_parameter_set_id")
        }
        do {
            _ = try AVCSliceHeader(nalUnit: V.slicesIDR0, sps: { _ in nil }, pps: { sets.pps[$0] })
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missing)
            #expect(error.field == "pic_parameter_set_id")
        }
    }

    @Test func rejectsNonSliceNALUnitsAndBadValues() throws {
        let sets = try ParameterSets(sps: V.slicesSPS, pps: V.slicesPPS)
        #expect(throws: NALUError.self) { _ = try sets.header(V.slicesSPS) }
        do {
            _ = try sets.header([0x74, 0x80, 0, 0, 0x80])  // type 20
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupported)
        }
        // first_mb_in_slice past the 77-macroblock picture.
        let farMb = V.nal(0x41) { w in w.ue(77); w.ue(0); w.ue(0); w.u(4, 0); w.u(6, 0) }
        do {
            _ = try sets.header(farMb)
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "first_mb_in_slice")
            #expect(error.bitOffset == 8)
        }
        // slice_type 10 is out of range.
        let badType = V.nal(0x41) { w in w.ue(0); w.ue(10); w.ue(0); w.u(8, 0) }
        #expect(throws: NALUError.self) { _ = try sets.header(badType) }
        // IDR with nal_ref_idc 0 violates 7.4.1 but still parses (kept as read).
        #expect(try sets.header([0x05] + Array(V.slicesIDR0.dropFirst())).nalRefIdc == 0)
    }

    @Test func onlyABoundedPrefixIsRead() throws {
        let sets = try ParameterSets(sps: V.slicesSPS, pps: V.slicesPPS)
        // A 1 MB slice: the header parses from its first bytes.
        var big = V.slicesP0
        big += [UInt8](repeating: 0x5A, count: 1_000_000)
        #expect(try sets.header(big) == sets.header(V.slicesP0))
    }
}
