import NALU
import NALUMedia

/// The range of times a package can carry, checked on every sample and edit before any
/// arithmetic: a time read from the input (an MP4's `tfdt`, `stts` sums or edit list, PES time
/// stamps) further than 2^32 seconds (about 136 years) or 2^60 ticks from 0 is refused with an
/// error naming it, so the sums, products and rescales after it (segment durations, 90 kHz time
/// stamps, `EXTINF`, the MPD's timeline) stay far inside 64 bits. Those that remain are made
/// through ``NALU/CheckedNumber`` all the same.
enum PackagedTime {
    /// The furthest a time may be from 0, in seconds.
    static let maxSeconds: Double = 4_294_967_296
    /// The furthest a time may be from 0, in ticks.
    static let maxTicks: Int64 = 1 << 60

    /// `ticks`, checked against the range.
    /// - Throws: ``NALUError`` `.invalidValue` naming `field` (and `byteOffset`) when it is out of it.
    @discardableResult
    static func check(_ ticks: Int64, timescale: UInt32, field: String, byteOffset: Int64? = nil) throws -> Int64 {
        guard timescale > 0 else {
            throw NALUError(.invalidValue, field: field, byteOffset: byteOffset, detail: "a timescale of 0")
        }
        guard ticks.magnitude <= UInt64(maxTicks), (Double(ticks) / Double(timescale)).magnitude <= maxSeconds else {
            throw NALUError(.invalidValue, field: field, byteOffset: byteOffset,
                            detail: "\(ticks) ticks at \(timescale) per second: more than 2^32 seconds (or 2^60 ticks) from 0, past what a package can time")
        }
        return ticks
    }

    /// A sample's times, each checked (``check(_:timescale:field:byteOffset:)``); `name` names the track.
    static func timing(decode: Int64, presentation: Int64, duration: Int64, timescale: UInt32, name: String,
                       byteOffset: Int64? = nil) throws -> SampleTiming {
        try check(decode, timescale: timescale, field: "\(name) decoding time (tfdt)", byteOffset: byteOffset)
        try check(presentation, timescale: timescale, field: "\(name) presentation time", byteOffset: byteOffset)
        try check(duration, timescale: timescale, field: "\(name) sample duration", byteOffset: byteOffset)
        return SampleTiming(decode: decode, presentation: presentation, duration: duration, timescale: timescale)
    }

    /// `a − b`, or an error naming `field` on overflow.
    static func difference(_ a: Int64, _ b: Int64, field: String) throws -> Int64 {
        let (value, overflow) = a.subtractingReportingOverflow(b)
        guard !overflow else { throw NALUError(.invalidValue, field: field, detail: "\(a) − \(b) does not fit 64 bits") }
        return value
    }
}
