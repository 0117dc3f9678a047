import NALU
import NALUMedia

/// The stream's size against what its level's hypothetical reference decoder can deliver.
extension DoctorScan {
    /// Checks the bits of the whole stream against what an HRD at the level's largest rate and
    /// buffer can deliver in its duration (pictures at the frame rate): MaxBR · T + MaxCPB, both
    /// times cpbBrNalFactor (H.264 A.3.1 j and Table A-2) or CpbNalFactor (H.265 A.4.2; Main and
    /// Main 10 only), the CPB full before the first picture is removed. More bits than that
    /// cannot arrive in time under any HRD parameters the level allows, so the stream exceeds
    /// it (a necessary condition: short peaks within it are not judged).
    func checkBitRate() {
        guard !log.contains(.levelExceeded), let pictures = lastAccessUnit.map({ $0.index + 1 }), pictures > 0 else { return }
        let bits = Double(streamBytes) * 8
        if let sps = lastAVCSPS, let limits = AVCLevelLimits.limits(of: sps), let rate = sps.frameRate ?? containerFrameRate {
            let factor = AVCLevelLimits.cpbBrNalFactor(profileIdc: Int(sps.profileIdc))
            func deliverable(_ level: AVCLevelLimits) -> Double {
                Self.deliverableBits(maxBR: level.maxBR, maxCPB: level.maxCPB, factor: factor, pictures: pictures, rate: rate)
            }
            guard bits > deliverable(limits) else { return }
            let fit = AVCLevelLimits.table.first { $0.name != "1b" && bits <= deliverable($0) && LevelCheck.violations(sps, $0, frameRate: rate).isEmpty }
            addBitRateFinding(level: limits.name, maxBR: limits.maxBR * factor, maxCPB: limits.maxCPB * factor, bits: bits, pictures: pictures,
                              rate: rate, fit: fit?.name, clause: "H.264 A.3.1, Tables A-1 and A-2")
        } else if let sps = lastHEVCSPS, let limits = HEVCLevelLimits.limits(levelIdc: Int(sps.profileTierLevel.generalLevelIdc)),
                  let factor = HEVCLevelLimits.cpbNalFactor(profileIdc: Int(sps.profileTierLevel.generalProfileIdc)),
                  let rate = sps.frameRate ?? containerFrameRate {
            let high = sps.profileTierLevel.generalTierFlag
            func deliverable(_ level: HEVCLevelLimits) -> Double? {
                guard let maxBR = level.maxBR(highTier: high), let maxCPB = high ? level.maxCPBHigh : level.maxCPBMain else { return nil }
                return Self.deliverableBits(maxBR: maxBR, maxCPB: maxCPB, factor: factor, pictures: pictures, rate: rate)
            }
            guard let limit = deliverable(limits), bits > limit, let maxBR = limits.maxBR(highTier: high),
                  let maxCPB = high ? limits.maxCPBHigh : limits.maxCPBMain else { return }
            let fit = HEVCLevelLimits.table.first { level in
                guard let cap = deliverable(level) else { return false }
                return bits <= cap && LevelCheck.violations(sps, level, frameRate: rate).isEmpty
            }
            addBitRateFinding(level: limits.name, maxBR: maxBR * factor, maxCPB: maxCPB * factor, bits: bits, pictures: pictures,
                              rate: rate, fit: fit?.name, clause: "H.265 A.4.2, Tables A.8 and A.9")
        }
    }

    /// MaxBR · factor · pictures / rate + MaxCPB · factor, in bits.
    static func deliverableBits(maxBR: Int, maxCPB: Int, factor: Int, pictures: Int, rate: Rational) -> Double {
        guard rate.numerator > 0, rate.denominator > 0 else { return .infinity }
        let seconds = Double(pictures) * Double(rate.denominator) / Double(rate.numerator)
        return Double(maxBR) * Double(factor) * seconds + Double(maxCPB) * Double(factor)
    }

    func addBitRateFinding(level: String, maxBR: Int, maxCPB: Int, bits: Double, pictures: Int, rate: Rational, fit: String?, clause: String) {
        let total = bits < 1e15 ? String(Int64(bits)) : String(bits)
        add(.levelExceeded, "level \(level) is too low: the stream's \(total) bits in \(pictures) pictures at \(LevelCheck.rateText(rate)) fps are more than the level's HRD delivers in that time (MaxBR \(maxBR) bit/s after a full MaxCPB of \(maxCPB) bits)" + (fit.map { "; level \($0) fits" } ?? ""),
            accessUnit: nil, offset: nil, clause: clause, fix: fit.map { doctor.editCommand("--level \($0)") })
    }
}
