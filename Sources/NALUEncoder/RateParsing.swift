public import NALU

extension Rational {
    /// A frame rate as people write it: `30`, `29.97`, `30000/1001` or `30000:1001`, from 0.01 to
    /// 1000 fps with a numerator and denominator of 31 bits (what the encoders, the MP4 and TS
    /// muxers and the VUI all take); `nil` for anything else. `23.976`, `29.97`, `59.94` and
    /// `119.88` are the NTSC rates (24000/1001…).
    public init?(frameRate text: String) {
        guard let rate = Self.parseRate(text), rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max),
              (0.01...1000).contains(rate.doubleValue) else { return nil }
        self = rate
    }

    private static func parseRate(_ argument: String) -> Rational? {
        for separator in ["/", ":"] where argument.contains(separator) {
            let parts = argument.split(separator: Character(separator), omittingEmptySubsequences: false)
            guard parts.count == 2, let num = Int64(parts[0]), let den = Int64(parts[1]), num > 0, den > 0 else { return nil }
            return Rational(num, den).reduced
        }
        switch argument {
        // The NTSC rates people write as decimals.
        case "23.976", "23.98": return Rational(24000, 1001)
        case "29.97": return Rational(30000, 1001)
        case "59.94": return Rational(60000, 1001)
        case "119.88": return Rational(120000, 1001)
        default: break
        }
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]), whole >= 0 else { return nil }
        var numerator = whole
        var denominator: Int64 = 1
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 6, let digits = Int64(fraction) else { return nil }
            for _ in 0..<fraction.count { denominator *= 10 }
            let (scaled, overflow) = whole.multipliedReportingOverflow(by: denominator)
            let (sum, overflow2) = scaled.addingReportingOverflow(digits)
            guard !overflow, !overflow2, digits >= 0 else { return nil }
            numerator = sum
        }
        guard numerator > 0 else { return nil }
        return Rational(numerator, denominator).reduced
    }
}

/// Bit rates as people write them for an encoder.
public enum BitRateText {
    /// `2500k`, `5M`, `1.5M`, `800000bps` in bits per second; a plain number is kbit/s, as in
    /// x264 and x265 (`5000` is 5 Mbit/s). `nil` for anything else, zero, or 10¹² and above.
    public static func bitsPerSecond(_ argument: String) -> Int? {
        var text = argument.lowercased()
        var scale = 1_000.0
        var inBits = false
        if text.hasSuffix("bps") { text.removeLast(3); inBits = true } else if text.hasSuffix("b") { text.removeLast(); inBits = true }
        switch text.last {
        case "k": scale = 1_000; text.removeLast()
        case "m": scale = 1_000_000; text.removeLast()
        case "g": scale = 1_000_000_000; text.removeLast()
        default: if inBits { scale = 1 }
        }
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        let bits = value * scale
        guard bits < 1e12 else { return nil }
        return CheckedNumber.int(bits.rounded(.down))
    }
}
