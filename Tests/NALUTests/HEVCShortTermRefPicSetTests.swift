import Testing
@testable import NALU

@Suite struct HEVCShortTermRefPicSetTests {
    /// Three sets: an explicit one, one predicted from it (deltaRps −1), one predicted from that
    /// (deltaRps +2) with a dropped entry. Expected lists worked out by hand from 7-61 and 7-62.
    static func writeSets(_ bits: inout BitWriter) {
        // Set 0: num_negative_pics 2 (−1 used, −3 unused), num_positive_pics 1 (+2 used).
        bits.ue(2); bits.ue(1)
        bits.ue(0); bits.flag(true)
        bits.ue(1); bits.flag(false)
        bits.ue(1); bits.flag(true)
        // Set 1: inter_ref_pic_set_prediction_flag 1, delta_rps_sign 1, abs_delta_rps_minus1 0.
        bits.flag(true); bits.flag(true); bits.ue(0)
        // j = 0...3: used 1 | used 0 use_delta 1 | used 1 | used 1.
        bits.flag(true)
        bits.flag(false); bits.flag(true)
        bits.flag(true)
        bits.flag(true)
        // Set 2: predicted from set 1, delta_rps_sign 0, abs_delta_rps_minus1 1 (deltaRps +2).
        bits.flag(true); bits.flag(false); bits.ue(1)
        // j = 0...4: used 0 use_delta 0 | used 1 | used 1 | used 0 use_delta 1 | used 1.
        bits.flag(false); bits.flag(false)
        bits.flag(true)
        bits.flag(true)
        bits.flag(false); bits.flag(true)
        bits.flag(true)
    }

    static func spsWithSets() throws -> HEVCSequenceParameterSet {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.rawShortTermRefPicSetCount = 3
        options.rawShortTermRefPicSets = { writeSets(&$0) }
        return try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...])
    }

    @Test func explicitAndPredictedSetsInSPS() throws {
        let sps = try Self.spsWithSets()
        #expect(sps.numShortTermRefPicSets == 3)
        let sets = sps.shortTermRefPicSets
        #expect(sets[0] == HEVCShortTermRefPicSet(deltaPocS0: [-1, -3], usedByCurrPicS0: [true, false],
                                                  deltaPocS1: [2], usedByCurrPicS1: [true]))
        #expect(sets[1] == HEVCShortTermRefPicSet(interRefPicSetPredictionFlag: true, deltaRpsSign: true,
                                                  absDeltaRpsMinus1: 0,
                                                  deltaPocS0: [-1, -2, -4], usedByCurrPicS0: [true, true, false],
                                                  deltaPocS1: [1], usedByCurrPicS1: [true]))
        #expect(sets[2] == HEVCShortTermRefPicSet(interRefPicSetPredictionFlag: true, deltaRpsSign: false,
                                                  absDeltaRpsMinus1: 1,
                                                  deltaPocS0: [-2], usedByCurrPicS0: [true],
                                                  deltaPocS1: [2, 3], usedByCurrPicS1: [true, false]))
        #expect(sets[1].numNegativePics == 3)
        #expect(sets[1].numPositivePics == 1)
        #expect(sets[2].numDeltaPocs == 3)
        // Parsing went on correctly after the sets.
        #expect(sps.spsTemporalMvpEnabledFlag)
        #expect(sps.width == 1920)
        #expect(sps.height == 1080)
    }

    @Test func sliceHeaderSetUsesDeltaIdx() throws {
        let sets = try Self.spsWithSets().shortTermRefPicSets
        var bits = BitWriter()
        bits.flag(true)                         // inter_ref_pic_set_prediction_flag
        bits.ue(2)                              // delta_idx_minus1: RefRpsIdx = 3 − 3 = 0
        bits.flag(false); bits.ue(0)            // deltaRps = +1
        for _ in 0..<4 { bits.flag(true) }
        var reader = BitReader(RBSP(escaped: bits.bytes))
        let set = try HEVCShortTermRefPicSet(&reader, stRpsIdx: 3, numShortTermRefPicSets: 3, previous: sets)
        #expect(set.deltaIdxMinus1 == 2)
        #expect(set.deltaPocS0 == [-2])
        #expect(set.usedByCurrPicS0 == [true])
        #expect(set.deltaPocS1 == [1, 3])
        #expect(set.usedByCurrPicS1 == [true, true])
    }

    @Test func rejectsCountsAboveTheLimits() throws {
        func parse(_ write: (inout BitWriter) -> Void, stRpsIdx: Int = 0, numSets: Int = 64,
                   previous: [HEVCShortTermRefPicSet] = []) throws(NALUError) -> HEVCShortTermRefPicSet {
            var bits = BitWriter()
            write(&bits)
            bits.u(32, 0xFFFF_FFFF)
            var reader = BitReader(RBSP(escaped: bits.bytes))
            return try HEVCShortTermRefPicSet(&reader, stRpsIdx: stRpsIdx, numShortTermRefPicSets: numSets, previous: previous)
        }
        #expect { _ = try parse { $0.ue(17) } } throws: { ($0 as? NALUError)?.field == "num_negative_pics" }
        #expect { _ = try parse { $0.ue(10); $0.ue(7) } } throws: { ($0 as? NALUError)?.field == "num_positive_pics" }
        #expect { _ = try parse { $0.ue(1); $0.ue(0); $0.ue(32768) } } throws: {
            ($0 as? NALUError)?.field == "delta_poc_s0_minus1"
        }
        // 16 pictures is the most a set may hold.
        let full = try parse { bits in
            bits.ue(16); bits.ue(0)
            for _ in 0..<16 { bits.ue(0); bits.flag(true) }
        }
        #expect(full.numNegativePics == 16)
        #expect(full.deltaPocS0.last == -16)
        // Predicting from it with deltaRps −1 would give 17 pictures.
        #expect {
            _ = try parse({ bits in
                bits.flag(true); bits.flag(true); bits.ue(0)
                for _ in 0...16 { bits.flag(true) }
            }, stRpsIdx: 1, previous: [full])
        } throws: { ($0 as? NALUError)?.field == "inter_ref_pic_set_prediction_flag" }
        // delta_idx_minus1 (slice header set) must point at an existing set.
        #expect {
            _ = try parse({ bits in bits.flag(true); bits.ue(1) }, stRpsIdx: 1, numSets: 1, previous: [full])
        } throws: { ($0 as? NALUError)?.field == "delta_idx_minus1" }
        #expect {
            _ = try parse({ bits in bits.flag(true); bits.flag(false); bits.ue(32768) }, stRpsIdx: 1, previous: [full])
        } throws: { ($0 as? NALUError)?.field == "abs_delta_rps_minus1" }
    }

    @Test func rejectsTooManySetsInSPS() {
        var options = HEVCSyntaxWriter.SPSOptions()
        options.rawShortTermRefPicSetCount = 65
        options.rawShortTermRefPicSets = { _ in }
        #expect { _ = try HEVCSequenceParameterSet(nalUnit: HEVCSyntaxWriter.sps(options)[...]) } throws: {
            ($0 as? NALUError)?.field == "num_short_term_ref_pic_sets"
        }
    }
}
