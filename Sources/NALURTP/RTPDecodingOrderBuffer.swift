public import NALU

/// A de-interleaving buffer (RFC 6184 13, RFC 7798 6): NAL units taken in transmission order
/// with their decoding order numbers leave in decoding order (AbsDon, ``RTPDecodingOrderUnwrapper``;
/// equal numbers in arrival order).
///
/// The NAL unit with the lowest AbsDon leaves when no unit still to come can precede it: its
/// AbsDon is at most the highest received minus `sprop-max-don-diff`. It leaves earlier when the
/// buffer holds more units than the SDP's depth (more VCL units than `sprop-interleaving-depth`
/// for H.264), more bytes than its size, more than ``RTPDecodingOrderLimits/maxHeldUnits``, or
/// when it has waited ``maxDelay`` nanoseconds. A NAL unit that arrives after a later one in
/// decoding order has left cannot be put in order: it is refused (``push(_:timestamp:arrival:)``
/// returns it in ``Outcome/outOfOrder``), never passed on out of order.
///
/// Losses (``noteLoss()``) are placed in decoding order: the units they may have been are
/// those between the highest AbsDon received before the loss minus `sprop-max-don-diff` and the
/// next AbsDon received after it plus `sprop-max-don-diff`; a unit released with that range
/// since the previous one is marked ``Released/followsLoss``. Once the sender has shown that it
/// numbers NAL units one by one (16 steps of at most one where nothing was lost, none larger),
/// only a missing number inside the range marks it.
///
/// Memory: the units held (bounded as above) and at most 64 loss ranges; each unit costs
/// O(log n) (a binary heap).
public struct RTPDecodingOrderBuffer: Sendable {
    /// A NAL unit released in decoding order.
    public struct Released: Sendable, Hashable {
        public var unit: DepacketizedNALUnit
        /// The RTP timestamp of its access unit (an MTAP unit's offset added).
        public var timestamp: UInt32
        /// Its AbsDon.
        public var absDon: Int64
        /// Whether NAL units may be missing between the previous unit released and this one
        /// (packets were lost whose units belong there).
        public var followsLoss: Bool
    }

    /// What a pushed NAL unit did.
    public struct Outcome: Sendable {
        /// Units now released in decoding order.
        public var released: [Released] = []
        /// The unit pushed, when it came after a later one had been released (not passed on).
        public var outOfOrder: (absDon: Int64, lastReleased: Int64)?
    }

    /// The codec of the units (tells VCL units for `sprop-interleaving-depth`).
    public let codec: Codec
    /// The buffer's size, from the SDP.
    public let limits: RTPDecodingOrderLimits
    /// Nanoseconds a unit waits at most.
    public let maxDelay: Int64
    private let maxBytes: Int

    private struct Entry: Sendable {
        var absDon: Int64
        var arrivalIndex: Int64
        var arrival: Int64
        var timestamp: UInt32
        var unit: DepacketizedNALUnit
        var isVCL: Bool

        func precedes(_ other: Entry) -> Bool {
            absDon != other.absDon ? absDon < other.absDon : arrivalIndex < other.arrivalIndex
        }
    }

    private var heap: [Entry] = []
    private var unwrapper = RTPDecodingOrderUnwrapper()
    private var highest: Int64?
    private var lastReleased: Int64?
    private var arrivals: Int64 = 0
    private var heldBytes = 0
    private var heldVCL = 0
    /// AbsDon ranges where lost units may belong; `upper` nil until a DON arrives after the loss.
    private var lossRanges: [(lower: Int64, upper: Int64?)] = []
    /// Units held, in arrival order (released ones skipped when reached, via `releasedIndices`).
    private var arrivalOrder: [(index: Int64, arrival: Int64)] = []
    private var arrivalsHead = 0
    private var releasedIndices: Set<Int64> = []

    /// Steps of one (or none) between consecutive units where nothing was lost, and whether a
    /// larger one was seen: a sender that numbers NAL units one by one shows a lost unit as a
    /// missing number, so a loss range damages only where a number is missing.
    private var consecutiveSteps = 0
    private var numbersHaveGaps = false
    static let stepsToTrustNumbering = 16

    /// Whether units lost may lie after the last one released (a loss whose range is not passed):
    /// the access unit open at the end is damaged then.
    public var lossAfterLastReleased: Bool {
        guard let lastReleased else { return !lossRanges.isEmpty }
        return lossRanges.contains { ($0.upper ?? Int64.max) > lastReleased }
    }

    /// Units refused because a later one had been released.
    public private(set) var outOfOrder = 0
    /// Units released before the `sprop-max-don-diff` rule allowed (the buffer was full or a
    /// unit waited too long).
    public private(set) var releasedEarly = 0

    /// - Parameters:
    ///   - maxDelay: nanoseconds a unit waits at most (`sprop-init-buf-time` lengthens it).
    ///   - maxBytes: bytes held at most, whatever `sprop-deint-buf-req` says.
    public init(codec: Codec, limits: RTPDecodingOrderLimits, maxDelay: Int64 = 200_000_000, maxBytes: Int = 64 << 20) {
        self.codec = codec
        self.limits = limits
        let initial = limits.initialBufferTime.flatMap { CheckedNumber.rescale(Int64($0), from: 90_000, to: 1_000_000_000) } ?? 0
        self.maxDelay = max(maxDelay, initial, 0)
        self.maxBytes = max(1, min(maxBytes, limits.bufferBytes.map { max($0, 1) } ?? maxBytes))
    }

    /// Units held now.
    public var count: Int { heap.count }

    /// Takes one NAL unit (its ``DepacketizedNALUnit/decodingOrderNumber`` set; a unit without
    /// one follows the previous in decoding order) of the access unit at `timestamp`, received at
    /// `arrival` nanoseconds.
    public mutating func push(_ unit: DepacketizedNALUnit, timestamp: UInt32, arrival: Int64) -> Outcome {
        var outcome = Outcome()
        let absDon: Int64
        if let don = unit.decodingOrderNumber {
            absDon = unwrapper.absDon(don)
        } else {
            absDon = highest ?? 0
        }
        if let index = lossRanges.lastIndex(where: { $0.upper == nil }) {
            // The first number after a loss closes its range.
            let upper = absDon + Int64(lossReach)
            for open in index..<lossRanges.count where lossRanges[open].upper == nil { lossRanges[open].upper = upper }
        }
        highest = max(highest ?? absDon, absDon)
        if let lastReleased, absDon < lastReleased {
            outOfOrder += 1
            outcome.outOfOrder = (absDon, lastReleased)
            addLossRange(lower: absDon, upper: absDon)
            return outcome
        }
        let isVCL = (try? NALUnitHeader(unit.bytes, codec: codec))?.isVCL ?? false
        insert(Entry(absDon: absDon, arrivalIndex: arrivals, arrival: arrival, timestamp: timestamp, unit: unit, isVCL: isVCL))
        arrivalOrder.append((arrivals, arrival))
        arrivals += 1
        if arrivalsHead > 1024, arrivalsHead * 2 > arrivalOrder.count {
            arrivalOrder.removeFirst(arrivalsHead)
            arrivalsHead = 0
        }
        heldBytes += unit.bytes.count
        if isVCL { heldVCL += 1 }
        release(now: arrival, flushing: false, into: &outcome.released)
        return outcome
    }

    /// Packets were lost before the next unit pushed: their units may belong anywhere from the
    /// highest AbsDon received minus `sprop-max-don-diff` (the lowest one held when it is not given).
    public mutating func noteLoss() {
        let lower: Int64
        if limits.maxDonDiff > 0, let highest {
            lower = highest - Int64(limits.maxDonDiff)
        } else {
            lower = min(heap.first?.absDon ?? Int64.max, lastReleased.map { $0 + 1 } ?? highest ?? 0)
        }
        addLossRange(lower: lower, upper: nil)
    }

    /// Releases what waited ``maxDelay`` at `now` nanoseconds.
    public mutating func advance(to now: Int64) -> [Released] {
        var released: [Released] = []
        release(now: now, flushing: false, into: &released)
        return released
    }

    /// Releases everything held (the end of the stream).
    public mutating func flush() -> [Released] {
        var released: [Released] = []
        release(now: Int64.max, flushing: true, into: &released)
        return released
    }

    /// How far past the first number after a loss its units may lie.
    private var lossReach: Int {
        limits.maxDonDiff > 0 ? limits.maxDonDiff : max(limits.bufferUnits ?? 0, 1)
    }

    private mutating func addLossRange(lower: Int64, upper: Int64?) {
        if lossRanges.count >= 64 {
            // Merge the two oldest: the range only widens (more is marked, nothing less).
            let first = lossRanges.removeFirst()
            lossRanges[0].lower = min(lossRanges[0].lower, first.lower)
            if let upper = lossRanges[0].upper { lossRanges[0].upper = max(upper, first.upper ?? upper) }
        }
        lossRanges.append((lower, upper))
    }

    private mutating func mustRelease(_ head: Entry, now: Int64) -> (release: Bool, early: Bool) {
        if limits.maxDonDiff > 0, let highest, head.absDon <= highest - Int64(limits.maxDonDiff) { return (true, false) }
        if let units = limits.bufferUnits, limits.maxDonDiff == 0 {
            let held = codec == .h264 ? heldVCL : heap.count
            if held > units { return (true, false) }
        }
        if heap.count > RTPDecodingOrderLimits.maxHeldUnits || heldBytes > maxBytes { return (true, true) }
        if now != Int64.max {
            let oldest = oldestArrival()
            if oldest != Int64.max, now - oldest >= maxDelay { return (true, true) }
        }
        return (false, false)
    }

    /// The arrival of the unit held longest: the front of the arrival list, released units
    /// skipped (each once).
    private mutating func oldestArrival() -> Int64 {
        while arrivalsHead < arrivalOrder.count {
            let entry = arrivalOrder[arrivalsHead]
            if releasedIndices.remove(entry.index) == nil { return entry.arrival }
            arrivalsHead += 1
        }
        return Int64.max
    }

    private mutating func release(now: Int64, flushing: Bool, into released: inout [Released]) {
        while let head = heap.first {
            if !flushing {
                let decision = mustRelease(head, now: now)
                guard decision.release else { return }
                if decision.early { releasedEarly += 1 }
            }
            let entry = removeFirst()
            if arrivalsHead < arrivalOrder.count, arrivalOrder[arrivalsHead].index == entry.arrivalIndex {
                arrivalsHead += 1
            } else {
                releasedIndices.insert(entry.arrivalIndex)
            }
            heldBytes -= entry.unit.bytes.count
            if entry.isVCL { heldVCL -= 1 }
            let previous = lastReleased
            lastReleased = entry.absDon
            let step = previous.map { entry.absDon - $0 } ?? 0
            var followsLoss = touchesLoss(after: previous, upTo: entry.absDon)
            if !followsLoss {
                // Where nothing was lost: does the sender number NAL units one by one?
                if step > 1 { numbersHaveGaps = true } else { consecutiveSteps += 1 }
            } else if !numbersHaveGaps, consecutiveSteps >= Self.stepsToTrustNumbering, step <= 1 {
                // Numbered one by one, and none is missing here: the lost units were elsewhere.
                followsLoss = false
            }
            released.append(Released(unit: entry.unit, timestamp: entry.timestamp, absDon: entry.absDon, followsLoss: followsLoss))
        }
    }

    /// Whether a loss range meets `previous … absDon` (both ends included: units with equal
    /// numbers may come in either order); ranges wholly passed are forgotten.
    private mutating func touchesLoss(after previous: Int64?, upTo absDon: Int64) -> Bool {
        let low = previous ?? absDon
        var touches = false
        lossRanges.removeAll { range in
            let upper = range.upper ?? Int64.max
            if range.lower <= absDon && upper >= low { touches = true }
            return upper < absDon
        }
        return touches
    }

    // MARK: Binary heap by (AbsDon, arrival)

    private mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func removeFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
