public import NALU

/// A point in presentation time, in seconds, held exactly (a decimal fraction, never a `Double`),
/// as `nalu trim --start/--end/--duration` take it.
///
/// Two spellings, the ones ffmpeg's `-ss`/`-to`/`-t` take (ffmpeg-utils "Time duration"):
/// - seconds with an optional fraction: `12`, `12.5`, `0.040`;
/// - `[HH:]MM:SS[.fff]`: `01:02.5` (62.5 s), `1:00:00.040` (3600.04 s); minutes and seconds
///   below 60 when a larger unit is given.
///
/// At most 9 fraction digits (nanoseconds); no sign (times count from the start of the input).
public struct MediaTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The time in seconds, as `numerator / denominator` with a power-of-ten denominator.
    public let seconds: Rational

    /// The most fraction digits a time may have.
    public static let maxFractionDigits = 9
    /// The largest time taken: about 31 years, so products with any 32-bit timescale fit 64 bits.
    public static let maxWholeSeconds: Int64 = 1 << 30

    public static let zero = MediaTime(wholeSeconds: 0)

    /// `seconds` whole seconds.
    public init(wholeSeconds: Int64) {
        seconds = Rational(min(max(0, wholeSeconds), Self.maxWholeSeconds), 1)
    }

    private init(exact: Rational) { seconds = exact }

    /// Parses `text` (see the type's description).
    /// - Throws: ``NALUError`` `.invalidValue` with `field` (the option name, `"time"` by
    ///   default) and what is wrong.
    public init(parsing text: String, field: String = "time") throws(NALUError) {
        func bad(_ why: String) -> NALUError {
            NALUError(.invalidValue, field: field, detail: "\"\(text)\": \(why); give seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5)")
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw bad("too many ':'") }
        // The last part: seconds with an optional fraction.
        let secondsPart = parts[parts.count - 1]
        let pieces = secondsPart.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), let whole = Self.digits(pieces[0]) else { throw bad("not a time") }
        var denominator: Int64 = 1
        var fraction: Int64 = 0
        if pieces.count == 2 {
            guard pieces[1].count <= Self.maxFractionDigits else { throw bad("more than \(Self.maxFractionDigits) fraction digits") }
            guard let value = Self.digits(pieces[1]) else { throw bad("not a time") }
            fraction = value
            for _ in 0..<pieces[1].count { denominator *= 10 }
        }
        var total = whole
        if parts.count > 1 {
            guard whole < 60 else { throw bad("seconds must be below 60 after minutes") }
            guard let minutes = Self.digits(parts[parts.count - 2]) else { throw bad("not a time") }
            if parts.count == 3 {
                guard minutes < 60 else { throw bad("minutes must be below 60 after hours") }
                guard let hours = Self.digits(parts[0]), hours <= Self.maxWholeSeconds / 3600 else { throw bad("not a time") }
                total += hours * 3600
            }
            guard minutes <= Self.maxWholeSeconds / 60 else { throw bad("too large") }
            total += minutes * 60
        }
        guard total <= Self.maxWholeSeconds else { throw bad("more than \(Self.maxWholeSeconds) seconds") }
        // total ≤ 2^30 and denominator ≤ 10^9 < 2^30: the product fits.
        seconds = Rational(total * denominator + fraction, denominator)
    }

    /// A run of 1 to 10 ASCII digits as a number (no sign, no spaces), else `nil`.
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    /// `self + other`, or `nil` past ``maxWholeSeconds``.
    public func adding(_ other: MediaTime) -> MediaTime? {
        let a = seconds, b = other.seconds
        // Denominators are powers of ten ≤ 10^9: the larger is a multiple of the smaller.
        let denominator = max(a.denominator, b.denominator)
        let sum = a.numerator * (denominator / a.denominator) + b.numerator * (denominator / b.denominator)
        guard sum / denominator <= Self.maxWholeSeconds else { return nil }
        return MediaTime(exact: Rational(sum, denominator))
    }

    /// How many ticks of `tick` seconds the time is, rounded up (`ceil(self / tick)`: the first
    /// tick at or after it) or down. `nil` when `tick` is not positive or the count does not fit
    /// 63 bits. Exact: the products are taken 128 bits wide.
    public func ticks(of tick: Rational, roundingUp: Bool = true) -> Int64? {
        guard tick.numerator > 0, tick.denominator > 0 else { return nil }
        // (sn / sd) / (tn / td) = sn·td / (sd·tn); sd ≤ 10^9 and tn < 2^63 / 10^9 keep sd·tn in 64 bits.
        let (bottom, overflow) = UInt64(seconds.denominator).multipliedReportingOverflow(by: UInt64(tick.numerator))
        guard !overflow, bottom > 0 else { return nil }
        let top = UInt64(seconds.numerator).multipliedFullWidth(by: UInt64(tick.denominator))
        guard top.high < bottom else { return nil }
        let (quotient, remainder) = bottom.dividingFullWidth(top)
        let result = roundingUp && remainder != 0 ? quotient + 1 : quotient
        guard result <= UInt64(Int64.max) else { return nil }
        return Int64(result)
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        // Both denominators divide 10^9, and whole seconds ≤ 2^30: the scaled values fit 63 bits.
        let scale: Int64 = 1_000_000_000
        return lhs.seconds.numerator * (scale / lhs.seconds.denominator) < rhs.seconds.numerator * (scale / rhs.seconds.denominator)
    }

    /// Seconds with the digits given, `62.5`.
    public var description: String {
        let whole = seconds.numerator / seconds.denominator
        var fraction = seconds.numerator % seconds.denominator
        guard fraction != 0 else { return "\(whole)" }
        var denominator = seconds.denominator
        while fraction % 10 == 0 && denominator > 1 {
            fraction /= 10
            denominator /= 10
        }
        let digits = String(fraction)
        let width = String(denominator).count - 1
        return "\(whole)." + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
