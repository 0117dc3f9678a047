#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit NTP timestamp (RFC 3550 4, RFC 5905 6): seconds since 1900-01-01 00:00 UTC and a
/// 32-bit binary fraction of a second. RTCP sender reports carry it beside the RTP timestamp of
/// the same instant (RFC 3550 6.4.1), which maps the sender's RTP clock to wall-clock time.
public struct NTPTimestamp: Sendable, Hashable, Comparable {
    /// Seconds since 1900 (wrapping in 2036, era 0 as RFC 3550 uses it).
    public var seconds: UInt32
    /// Fractions of a second in units of 2^-32 s.
    public var fraction: UInt32

    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let unixEpochOffset: Int64 = 2_208_988_800

    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// The timestamp as one 64-bit number (seconds in the high half).
    public init(bits: UInt64) {
        seconds = UInt32(truncatingIfNeeded: bits >> 32)
        fraction = UInt32(truncatingIfNeeded: bits)
    }

    /// The instant `nanoseconds` after the Unix epoch, or `nil` outside NTP era 0 (1900–2036).
    public init?(unixNanoseconds nanoseconds: Int64) {
        let (whole, rest) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (secondsSince1900, overflow) = whole.addingReportingOverflow(Self.unixEpochOffset)
        guard !overflow, rest >= 0, let seconds = UInt32(exactly: secondsSince1900) else { return nil }
        self.seconds = seconds
        // rest < 10^9 < 2^30: rest << 32 fits 63 bits.
        fraction = UInt32(truncatingIfNeeded: (rest << 32) / 1_000_000_000)
    }

    /// The system's wall clock now (`CLOCK_REALTIME`).
    public static func now() -> NTPTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return NTPTimestamp(unixNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)) ?? NTPTimestamp(seconds: 0, fraction: 0)
    }

    /// The 64 bits, seconds in the high half.
    public var bits: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// The middle 32 bits (RFC 3550 6.4.1: the `LSR` field of a report block echoes them).
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: bits >> 16) }

    /// Nanoseconds since the Unix epoch (negative before 1970).
    public var unixNanoseconds: Int64 {
        let whole = Int64(seconds) - Self.unixEpochOffset
        return whole * 1_000_000_000 + (Int64(fraction) * 1_000_000_000) >> 32
    }

    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.bits < rhs.bits }
}
