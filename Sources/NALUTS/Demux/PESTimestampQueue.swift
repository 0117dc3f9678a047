/// The time stamps of PES packets whose payload has been handed on but whose access units
/// have not been matched yet, keyed by where the payload starts in the elementary stream.
///
/// ISO/IEC 13818-1 2.4.3.7: a PTS/DTS applies to the first access unit that starts in the PES
/// packet. ``take(upTo:)`` gives an access unit starting at elementary-stream offset `o` the
/// latest time stamps of a PES packet starting at or before `o` that no earlier access unit
/// took. Bounded: at most ``capacity`` entries, the oldest dropped first.
struct PESTimestampQueue {
    static let capacity = 1 << 16
    private var offsets: [Int64] = []
    private var stamps: [PESTimestamps] = []
    private var head = 0

    mutating func append(_ timestamps: PESTimestamps, at offset: Int64) {
        if offsets.count - head >= Self.capacity { head += 1 }
        if head > 4096 && head * 2 > offsets.count {
            offsets.removeSubrange(0..<head)
            stamps.removeSubrange(0..<head)
            head = 0
        }
        offsets.append(offset)
        stamps.append(timestamps)
    }

    mutating func take(upTo offset: Int64) -> PESTimestamps? {
        var found: PESTimestamps?
        while head < offsets.count, offsets[head] <= offset {
            found = stamps[head]
            head += 1
        }
        return found
    }
}
