/// The sample tables an ``MP4Writer`` builds, sample by sample: `stsz` sizes, `stts` and
/// `ctts` runs, `stss` sample numbers (ISO/IEC 14496-12 8.6.1.2, 8.6.1.3, 8.6.2, 8.7.3).
///
/// One value, so recording a sample is one access to the writer's stored property instead of
/// one (with its run-time exclusivity check) per table.
struct SampleTableState {
    var sizes: [UInt32] = []
    var durations: [(count: UInt32, delta: UInt32)] = []
    var offsets: [(count: UInt32, offset: Int64)] = []
    var syncSamples: [UInt32] = []
    var totalDuration: UInt64 = 0
    var minimumOffset: Int64 = 0
    /// The smallest presentation time (decoding time + composition offset) so far.
    var earliestPresentation: Int64?

    /// Adds one sample: its size, duration, composition offset and whether it is a sync sample.
    mutating func record(size: UInt32, duration: UInt32, offset: Int64, isSync: Bool) {
        sizes.append(size)
        if let last = durations.last, last.delta == duration, last.count < UInt32.max {
            durations[durations.count - 1].count += 1
        } else {
            durations.append((1, duration))
        }
        if let last = offsets.last, last.offset == offset, last.count < UInt32.max {
            offsets[offsets.count - 1].count += 1
        } else {
            offsets.append((1, offset))
        }
        minimumOffset = min(minimumOffset, offset)
        let presentation = Int64(clamping: totalDuration).addingReportingOverflow(offset).partialValue
        earliestPresentation = min(earliestPresentation ?? presentation, presentation)
        if isSync { syncSamples.append(UInt32(truncatingIfNeeded: sizes.count)) }
        totalDuration += UInt64(duration)
    }
}
