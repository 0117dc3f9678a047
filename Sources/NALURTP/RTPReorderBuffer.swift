/// A bounded jitter and reorder buffer of RTP packets (RFC 3550 Appendix A.1's extended sequence
/// numbers): packets come out in sequence order; a packet already held or already passed on is
/// dropped as a duplicate; a packet older than the ones passed on is dropped as late; missing
/// packets are given up on — reported as lost — when the buffer holds ``capacity`` packets past
/// them or the packet held longest has waited ``maxDelay`` nanoseconds.
///
/// Memory is ``capacity`` slots and a list of arrivals; each packet costs constant time
/// amortized, plus one step per sequence number given up on.
public struct RTPReorderBuffer: Sendable {
    /// A packet released in order, with how many sequence numbers were lost just before it.
    public struct Release: Sendable {
        public var packet: RTPPacket
        /// The packet's extended sequence number.
        public var extendedSequenceNumber: Int64
        /// Sequence numbers given up on right before this packet (0: none).
        public var lostBefore: Int
    }

    /// Packets held at most (and the sequence-number window ahead of the next one expected).
    public let capacity: Int
    /// Nanoseconds a packet waits at most for the ones before it.
    public let maxDelay: Int64

    private var slots: [(sequence: Int64, packet: RTPPacket, arrival: Int64)?]
    /// Extended sequence numbers passed on recently, by slot: what tells a duplicate from a late packet.
    private var passed: [Int64]
    private var unwrapper = RTPSequenceUnwrapper()
    /// The next extended sequence number to release.
    private var next: Int64?
    private var held = 0
    /// Packets stored, in arrival order (released ones skipped when reached): the front is the
    /// packet held longest, found without a search.
    private var arrivals: [(sequence: Int64, arrival: Int64)] = []
    private var arrivalsHead = 0
    /// Sequence numbers given up on since the last release.
    private var pendingLoss = 0

    /// Duplicates dropped.
    public private(set) var duplicates = 0
    /// Packets dropped because they came after later ones had been passed on.
    public private(set) var late = 0
    /// Sequence numbers given up on.
    public private(set) var lost = 0

    /// - Parameters:
    ///   - capacity: packets held at most, 1…65 536 (clamped).
    ///   - maxDelay: nanoseconds a packet is held at most waiting for the ones before it.
    public init(capacity: Int = 128, maxDelay: Int64 = 200_000_000) {
        self.capacity = min(max(capacity, 1), 1 << 16)
        self.maxDelay = max(maxDelay, 0)
        slots = Array(repeating: nil, count: self.capacity)
        passed = Array(repeating: -1, count: self.capacity)
    }

    /// Packets held now.
    public var count: Int { held }

    /// Takes `packet`, received at `arrival` nanoseconds (any monotonic clock), and returns the
    /// packets now released in order.
    public mutating func push(_ packet: RTPPacket, arrival: Int64) -> [Release] {
        let sequence = unwrapper.unwrap(packet.sequenceNumber)
        if next == nil { next = sequence }
        guard var expected = next else { return [] }
        if sequence < expected {
            if passed[slot(sequence)] == sequence { duplicates += 1 } else { late += 1 }
            return []
        }
        var released: [Release] = []
        // Keep the window: give up on what is `capacity` or more behind the newest.
        let behind = sequence - expected - Int64(capacity) + 1
        if behind > 0 {
            // Past one window every slot is empty: the rest is counted, not walked.
            let walked = min(behind, Int64(capacity))
            for _ in 0..<walked {
                releaseOrSkip(expected, into: &released)
                expected += 1
            }
            let rest = Int(behind - walked)
            pendingLoss += rest
            lost += rest
            expected += Int64(rest)
        }
        next = expected
        let index = slot(sequence)
        if let existing = slots[index], existing.sequence == sequence {
            duplicates += 1
        } else {
            slots[index] = (sequence, packet, arrival)
            held += 1
            arrivals.append((sequence, arrival))
        }
        drain(into: &released)
        if arrivalsHead > 1024, arrivalsHead * 2 > arrivals.count {
            arrivals.removeFirst(arrivalsHead)
            arrivalsHead = 0
        }
        return released
    }

    /// Releases what waited too long at `now` nanoseconds: the missing packets before the
    /// oldest one held are given up on.
    public mutating func advance(to now: Int64) -> [Release] {
        var released: [Release] = []
        while held > 0, let oldest = oldestArrival(), now - oldest >= maxDelay {
            skipToFirstHeld(into: &released)
        }
        return released
    }

    /// Releases everything held, giving up on what is missing between.
    public mutating func flush() -> [Release] {
        var released: [Release] = []
        while held > 0 { skipToFirstHeld(into: &released) }
        return released
    }

    private func slot(_ sequence: Int64) -> Int {
        let remainder = sequence % Int64(capacity)
        return Int(remainder < 0 ? remainder + Int64(capacity) : remainder)
    }

    /// The arrival time of the packet held longest (the first stored of those still held).
    private mutating func oldestArrival() -> Int64? {
        while arrivalsHead < arrivals.count {
            let entry = arrivals[arrivalsHead]
            if let stored = slots[slot(entry.sequence)], stored.sequence == entry.sequence { return entry.arrival }
            arrivalsHead += 1
        }
        arrivals.removeAll(keepingCapacity: true)
        arrivalsHead = 0
        return nil
    }

    private mutating func skipToFirstHeld(into released: inout [Release]) {
        guard var expected = next else { return }
        var steps = 0
        while steps < capacity, slots[slot(expected)]?.sequence != expected {
            pendingLoss += 1
            lost += 1
            expected += 1
            steps += 1
        }
        next = expected
        drain(into: &released)
    }

    private mutating func releaseOrSkip(_ sequence: Int64, into released: inout [Release]) {
        let index = slot(sequence)
        if let entry = slots[index], entry.sequence == sequence {
            slots[index] = nil
            held -= 1
            passed[index] = sequence
            released.append(Release(packet: entry.packet, extendedSequenceNumber: sequence, lostBefore: pendingLoss))
            pendingLoss = 0
        } else {
            pendingLoss += 1
            lost += 1
        }
    }

    private mutating func drain(into released: inout [Release]) {
        guard var expected = next else { return }
        while let entry = slots[slot(expected)], entry.sequence == expected {
            releaseOrSkip(expected, into: &released)
            expected += 1
        }
        next = expected
    }
}
