/// `st_ref_pic_set( stRpsIdx )` (ITU-T H.265 7.3.7, semantics 7.4.8): a short-term reference
/// picture set, with the derived `DeltaPocS0/S1` and `UsedByCurrPicS0/S1` lists (7-61 to 7-64)
/// whether it was coded explicitly or predicted from an earlier set.
public struct HEVCShortTermRefPicSet: Hashable, Sendable {
    /// Most pictures one set may list (`sps_max_dec_pic_buffering_minus1` ≤ 15, so at most 16).
    public static let maxPictures = 16

    /// `inter_ref_pic_set_prediction_flag`.
    public var interRefPicSetPredictionFlag: Bool
    /// `delta_idx_minus1` (only coded in a slice header; 0 otherwise).
    public var deltaIdxMinus1: Int
    /// `delta_rps_sign`.
    public var deltaRpsSign: Bool
    /// `abs_delta_rps_minus1` (0...2^15 − 1).
    public var absDeltaRpsMinus1: Int
    /// `DeltaPocS0[stRpsIdx][i]`: negative POC differences, closest first.
    public var deltaPocS0: [Int32]
    /// `UsedByCurrPicS0[stRpsIdx][i]`.
    public var usedByCurrPicS0: [Bool]
    /// `DeltaPocS1[stRpsIdx][i]`: positive POC differences, closest first.
    public var deltaPocS1: [Int32]
    /// `UsedByCurrPicS1[stRpsIdx][i]`.
    public var usedByCurrPicS1: [Bool]

    /// `NumNegativePics[stRpsIdx]`.
    public var numNegativePics: Int { deltaPocS0.count }
    /// `NumPositivePics[stRpsIdx]`.
    public var numPositivePics: Int { deltaPocS1.count }
    /// `NumDeltaPocs[stRpsIdx]`.
    public var numDeltaPocs: Int { deltaPocS0.count + deltaPocS1.count }

    public init(interRefPicSetPredictionFlag: Bool = false, deltaIdxMinus1: Int = 0, deltaRpsSign: Bool = false,
                absDeltaRpsMinus1: Int = 0, deltaPocS0: [Int32], usedByCurrPicS0: [Bool],
                deltaPocS1: [Int32], usedByCurrPicS1: [Bool]) {
        self.interRefPicSetPredictionFlag = interRefPicSetPredictionFlag
        self.deltaIdxMinus1 = deltaIdxMinus1
        self.deltaRpsSign = deltaRpsSign
        self.absDeltaRpsMinus1 = absDeltaRpsMinus1
        self.deltaPocS0 = deltaPocS0
        self.usedByCurrPicS0 = usedByCurrPicS0
        self.deltaPocS1 = deltaPocS1
        self.usedByCurrPicS1 = usedByCurrPicS1
    }

    /// Parses `st_ref_pic_set( stRpsIdx )` (7.3.7).
    ///
    /// - Parameters:
    ///   - stRpsIdx: the index of this set; equal to `num_short_term_ref_pic_sets` for the set in a
    ///     slice header.
    ///   - numShortTermRefPicSets: `num_short_term_ref_pic_sets` of the SPS (0...64).
    ///   - previous: the sets already parsed (indices 0..<stRpsIdx), which prediction refers to.
    package init(_ reader: inout BitReader, stRpsIdx: Int, numShortTermRefPicSets: Int,
                previous: [HEVCShortTermRefPicSet]) throws(NALUError) {
        guard stRpsIdx >= 0, stRpsIdx <= previous.count else {
            throw reader.error(.invalidValue, "stRpsIdx", detail: "\(stRpsIdx) with \(previous.count) sets before it")
        }
        interRefPicSetPredictionFlag = false
        deltaIdxMinus1 = 0
        deltaRpsSign = false
        absDeltaRpsMinus1 = 0
        if stRpsIdx != 0 {
            interRefPicSetPredictionFlag = try reader.flag("inter_ref_pic_set_prediction_flag")
        }
        if interRefPicSetPredictionFlag {
            if stRpsIdx == numShortTermRefPicSets {
                deltaIdxMinus1 = try reader.ue("delta_idx_minus1", in: 0...(stRpsIdx - 1))
            }
            deltaRpsSign = try reader.flag("delta_rps_sign")
            absDeltaRpsMinus1 = try reader.ue("abs_delta_rps_minus1", in: 0...32767)
            let reference = previous[stRpsIdx - (deltaIdxMinus1 + 1)]
            let count = reference.numDeltaPocs
            // used_by_curr_pic_flag[j] / use_delta_flag[j] for j = 0...NumDeltaPocs[RefRpsIdx] (≤ 16).
            var usedByCurrPicFlag = [Bool](repeating: false, count: count + 1)
            var useDeltaFlag = [Bool](repeating: true, count: count + 1)
            for j in 0...count {
                usedByCurrPicFlag[j] = try reader.flag("used_by_curr_pic_flag")
                if !usedByCurrPicFlag[j] {
                    useDeltaFlag[j] = try reader.flag("use_delta_flag")
                }
            }
            // 7-61 and 7-62.
            let deltaRps = Int32(deltaRpsSign ? -(absDeltaRpsMinus1 + 1) : absDeltaRpsMinus1 + 1)
            let refNegative = reference.numNegativePics
            var s0: [Int32] = []
            var used0: [Bool] = []
            var s1: [Int32] = []
            var used1: [Bool] = []
            for j in stride(from: reference.numPositivePics - 1, through: 0, by: -1) {
                let dPoc = reference.deltaPocS1[j] &+ deltaRps
                if dPoc < 0 && useDeltaFlag[refNegative + j] {
                    s0.append(dPoc)
                    used0.append(usedByCurrPicFlag[refNegative + j])
                }
            }
            if deltaRps < 0 && useDeltaFlag[count] {
                s0.append(deltaRps)
                used0.append(usedByCurrPicFlag[count])
            }
            for j in 0..<refNegative {
                let dPoc = reference.deltaPocS0[j] &+ deltaRps
                if dPoc < 0 && useDeltaFlag[j] {
                    s0.append(dPoc)
                    used0.append(usedByCurrPicFlag[j])
                }
            }
            for j in stride(from: refNegative - 1, through: 0, by: -1) {
                let dPoc = reference.deltaPocS0[j] &+ deltaRps
                if dPoc > 0 && useDeltaFlag[j] {
                    s1.append(dPoc)
                    used1.append(usedByCurrPicFlag[j])
                }
            }
            if deltaRps > 0 && useDeltaFlag[count] {
                s1.append(deltaRps)
                used1.append(usedByCurrPicFlag[count])
            }
            for j in 0..<reference.numPositivePics {
                let dPoc = reference.deltaPocS1[j] &+ deltaRps
                if dPoc > 0 && useDeltaFlag[refNegative + j] {
                    s1.append(dPoc)
                    used1.append(usedByCurrPicFlag[refNegative + j])
                }
            }
            guard s0.count + s1.count <= Self.maxPictures else {
                throw reader.error(.invalidValue, "inter_ref_pic_set_prediction_flag",
                                   detail: "predicted set has \(s0.count + s1.count) pictures, more than 16")
            }
            deltaPocS0 = s0
            usedByCurrPicS0 = used0
            deltaPocS1 = s1
            usedByCurrPicS1 = used1
        } else {
            let numNegativePics = try reader.ue("num_negative_pics", in: 0...Self.maxPictures)
            let numPositivePics = try reader.ue("num_positive_pics", in: 0...(Self.maxPictures - numNegativePics))
            var s0: [Int32] = []
            var used0: [Bool] = []
            s0.reserveCapacity(numNegativePics)
            var poc: Int32 = 0
            for _ in 0..<numNegativePics {
                let delta = try reader.ue("delta_poc_s0_minus1", in: 0...32767)
                poc -= Int32(delta + 1)
                s0.append(poc)
                used0.append(try reader.flag("used_by_curr_pic_s0_flag"))
            }
            var s1: [Int32] = []
            var used1: [Bool] = []
            s1.reserveCapacity(numPositivePics)
            poc = 0
            for _ in 0..<numPositivePics {
                let delta = try reader.ue("delta_poc_s1_minus1", in: 0...32767)
                poc += Int32(delta + 1)
                s1.append(poc)
                used1.append(try reader.flag("used_by_curr_pic_s1_flag"))
            }
            deltaPocS0 = s0
            usedByCurrPicS0 = used0
            deltaPocS1 = s1
            usedByCurrPicS1 = used1
        }
    }
}
