public import NALU

/// Durations in a track's timescale, in checked integer arithmetic: a file may put any 64-bit
/// value in `mdhd.duration` (ISO/IEC 14496-12 8.4.2) and any 32-bit value in each sample's
/// duration, so sums overflow and conversions to seconds must not go through `Int(Double)`.
public enum MP4Duration {
    /// `duration / timescale` seconds rounded to milliseconds, as "2", "1.5" or "0.667"; `nil`
    /// when the timescale is 0 (the duration means nothing).
    public static func secondsText(_ duration: UInt64, timescale: UInt32) -> String? {
        guard timescale > 0 else { return nil }
        let scale = UInt64(timescale)
        var whole = duration / scale
        // The remainder is below 2^32, so remainder · 1000 fits 64 bits.
        var millis = ((duration % scale) * 1000 + scale / 2) / scale
        if millis == 1000 {
            // Rounds up to the next second; duration / scale < 2^64 - 1 whenever the remainder is not 0.
            whole += 1
            millis = 0
        }
        guard millis > 0 else { return String(whole) }
        var fraction = String(millis)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}

/// The sample count and the sum of the sample durations of a track, accumulated without
/// overflow: ``duration`` becomes `nil` ("overflow") once the sum passes 2^64 − 1, which a
/// fragmented file can reach as each `tfdt` may restart the decoding time (8.8.12).
public struct MP4SampleTotals: Hashable, Sendable {
    /// Samples counted.
    public private(set) var samples: Int = 0
    /// The sum of their durations, or `nil` when it overflowed 64 bits.
    public private(set) var duration: UInt64? = 0

    public init() {}

    /// Counts `sample`.
    public mutating func add(_ sample: MP4Sample) {
        samples += 1
        if let total = duration {
            let (sum, overflow) = total.addingReportingOverflow(UInt64(sample.duration))
            duration = overflow ? nil : sum
        }
    }

    /// The totals of every sample of `reader`'s track.
    /// - Throws: ``NALUError`` (typed): a malformed sample table or fragment.
    public static func of<Source: RandomAccessByteSource>(_ reader: MP4VideoTrackReader<Source>) throws(NALUError) -> MP4SampleTotals {
        var totals = MP4SampleTotals()
        var samples = reader.samples()
        while let sample = try samples.next() { totals.add(sample) }
        return totals
    }
}
