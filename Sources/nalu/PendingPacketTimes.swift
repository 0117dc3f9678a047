import NALU

/// The times of encoded packets on their way through an access-unit assembler: each packet's
/// byte offset in the Annex-B stream and its timing, until the access unit starting there is
/// complete (``EncodeTimedOutput``, ``EncodeTransportStreamOutput``).
struct PendingPacketTimes {
    private var pending: [(start: Int64, timing: SampleTiming)] = []

    /// Notes that the packet starting at `start` has `timing`.
    mutating func add(start: Int64, timing: SampleTiming) {
        pending.append((start, timing))
    }

    /// The timing of the last packet starting at or before `offset`; older ones are done.
    mutating func timing(at offset: Int64) -> SampleTiming? {
        guard let index = pending.lastIndex(where: { $0.start <= offset }) else { return nil }
        let timing = pending[index].timing
        pending.removeFirst(index)
        return timing
    }
}
