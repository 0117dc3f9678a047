/// The sample tables an ``MP4Writer`` builds, sample by sample: `stsz` sizes, `stts` and
/// `ctts` runs, `stss` sample numbers (ISO/IEC 14496-12 8.6.1.2, 8.6.1.3, 8.6.2, 8.7.3).
///
/// One value, so recording a sample is one access to the writer's stored property instead of
/// one (with its run-time exclusivity check) per table. Sizes are kept only once two differ and
/// sync sample numbers only once a sample is not one: a track of constant-size sync samples
/// (QuickTime PCM, one sample per PCM frame) costs no memory per sample.
struct SampleTableState {
    /// Samples recorded.
    private(set) var count = 0
    /// Every size, once two differ; empty while all equal ``uniformSize``.
    private(set) var sizes: [UInt32] = []
    /// The size of every sample so far, while they are all the same.
    private(set) var uniformSize: UInt32?
    /// `stts` runs but the last, which is ``openDuration`` (count 0 before the first sample):
    /// extending a run is then a change of a stored value, not of an array element.
    private(set) var closedDurations: [(count: UInt32, delta: UInt32)] = []
    private(set) var openDuration: (count: UInt32, delta: UInt32) = (0, 0)
    /// `ctts` runs but the last, ``openOffset``. Offsets are kept in 32 bits, as `ctts` and
    /// `trun` write them (every caller checks that they fit): 8 bytes a run, and with B-frames
    /// most runs are one sample long.
    private(set) var closedOffsets: [(count: UInt32, offset: Int32)] = []
    private(set) var openOffset: (count: UInt32, offset: Int32) = (0, 0)

    /// The number of `stts` runs.
    var durationRunCount: Int { closedDurations.count + (openDuration.count == 0 ? 0 : 1) }
    /// The `index`-th `stts` run (`index < durationRunCount`).
    func durationRun(_ index: Int) -> (count: UInt32, delta: UInt32) {
        index < closedDurations.count ? closedDurations[index] : openDuration
    }
    /// The number of `ctts` runs.
    var offsetRunCount: Int { closedOffsets.count + (openOffset.count == 0 ? 0 : 1) }
    /// The `index`-th `ctts` run (`index < offsetRunCount`).
    func offsetRun(_ index: Int) -> (count: UInt32, offset: Int32) {
        index < closedOffsets.count ? closedOffsets[index] : openOffset
    }
    /// `stss` sample numbers, once a sample is not a sync sample (``allSync`` false).
    private(set) var syncSamples: [UInt32] = []
    private(set) var syncCount = 0
    private(set) var allSync = true
    var totalDuration: UInt64 = 0
    var minimumOffset: Int64 = 0
    /// The smallest presentation time (decoding time + composition offset) so far.
    var earliestPresentation: Int64?
    /// The latest end of a presentation (decoding time + composition offset + duration) so far.
    var latestPresentationEnd: Int64?

    /// Adds one sample: its size, duration, composition offset (within 32 bits, which the
    /// callers check) and whether it is a sync sample.
    @inline(__always)
    mutating func record(size: UInt32, duration: UInt32, offset: Int64, isSync: Bool) {
        count += 1
        if !sizes.isEmpty {
            sizes.append(size)
        } else if count == 1 {
            uniformSize = size
        } else if let uniform = uniformSize, uniform != size {
            sizes.reserveCapacity(count * 2)
            sizes.append(contentsOf: repeatElement(uniform, count: count - 1))
            sizes.append(size)
            uniformSize = nil
        }
        if openDuration.count != 0, openDuration.delta == duration, openDuration.count < UInt32.max {
            openDuration.count += 1
        } else {
            if openDuration.count != 0 { closedDurations.append(openDuration) }
            openDuration = (1, duration)
        }
        if openOffset.count != 0, Int64(openOffset.offset) == offset, openOffset.count < UInt32.max {
            openOffset.count += 1
        } else {
            if openOffset.count != 0 { closedOffsets.append(openOffset) }
            openOffset = (1, Int32(truncatingIfNeeded: offset))
        }
        minimumOffset = min(minimumOffset, offset)
        let presentation = Int64(clamping: totalDuration).addingReportingOverflow(offset).partialValue
        earliestPresentation = min(earliestPresentation ?? presentation, presentation)
        let end = presentation.addingReportingOverflow(Int64(duration)).partialValue
        latestPresentationEnd = max(latestPresentationEnd ?? end, end)
        let number = UInt32(truncatingIfNeeded: count)
        if isSync {
            syncCount += 1
            if !allSync { syncSamples.append(number) }
        } else if allSync {
            // Every sample before this one was a sync sample.
            allSync = false
            syncSamples.reserveCapacity(count)
            syncSamples.append(contentsOf: 1..<number)
        }
        totalDuration += UInt64(duration)
    }
}
