/// Checked conversions for numbers read from input: every value that comes from a file, a
/// manifest or a command line reaches `Int`/`Int64` through one of these, so a NaN, an infinity,
/// an exponent of 300 or a product past 2^63 becomes `nil` (and the caller's typed error), never a
/// trap or a wrapped value.
///
/// ```swift
/// guard let ticks = CheckedNumber.ticks(seconds: duration, timescale: 90_000) else {
///     throw NALUError(.invalidValue, field: "EXTINF", detail: "\(duration) s is not a duration")
/// }
/// ```
public enum CheckedNumber {
    /// `value` rounded to the nearest whole number, or `nil` when it is not finite or does not fit.
    public static func int64(_ value: Double) -> Int64? {
        // 2^63 is exactly representable; Double(Int64.max) rounds up to it. NaN fails both tests.
        guard value > -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else { return nil }
        // Truncation, then rounding half away from zero by hand (no libm in the core).
        let whole = Int64(value)
        let fraction = value - Double(whole)
        if fraction >= 0.5 { return CheckedNumber.sum(whole, 1) }
        if fraction <= -0.5 { return CheckedNumber.sum(whole, -1) }
        return whole
    }

    /// `value` rounded to the nearest whole number, or `nil` when it is not finite or does not fit.
    public static func int(_ value: Double) -> Int? {
        int64(value).flatMap { Int(exactly: $0) }
    }

    /// `value` as `Int64`, or `nil` when it does not fit (a `UInt64` above 2^63 − 1).
    public static func int64<T: BinaryInteger>(_ value: T) -> Int64? { Int64(exactly: value) }

    /// `value` as `Int`, or `nil` when it does not fit.
    public static func int<T: BinaryInteger>(_ value: T) -> Int? { Int(exactly: value) }

    /// `seconds × timescale` rounded to whole ticks, or `nil` when `seconds` is not finite, the
    /// timescale is not positive, or the product does not fit 64 bits.
    public static func ticks(seconds: Double, timescale: Int64) -> Int64? {
        guard timescale > 0, seconds.isFinite else { return nil }
        return int64(seconds * Double(timescale))
    }

    /// `a + b`, or `nil` on overflow.
    public static func sum(_ a: Int64, _ b: Int64) -> Int64? {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : value
    }

    /// `a × b`, or `nil` on overflow.
    public static func product(_ a: Int64, _ b: Int64) -> Int64? {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : value
    }

    /// `value × to / from` (a time moved from one timescale to another), truncated toward zero as
    /// integer division does, computed in 128 bits; `nil` when `from` or `to` is not positive or
    /// the result does not fit 64 bits.
    public static func rescale(_ value: Int64, from: Int64, to: Int64) -> Int64? {
        guard from > 0, to > 0 else { return nil }
        let magnitude = value.magnitude.multipliedFullWidth(by: UInt64(to))
        // The quotient fits 64 bits only when the high half is below the divisor.
        guard magnitude.high < UInt64(from) else { return nil }
        let quotient = UInt64(from).dividingFullWidth(magnitude).quotient
        if value < 0 {
            guard quotient <= UInt64(Int64.max) + 1 else { return nil }
            return quotient == UInt64(Int64.max) + 1 ? Int64.min : -Int64(quotient)
        }
        return Int64(exactly: quotient)
    }
}
