/// Reception statistics of one RTP source, as RFC 3550 appendix A computes them: the sequence
/// number state of A.1 (wrap-arounds counted, a jump of more than `MAX_DROPOUT` taken as a
/// restart only when confirmed by the next packet), packets expected and lost of A.3, and the
/// interarrival jitter of A.8. The report block of an RR or SR (6.4.1) comes from them.
///
/// Unlike A.1 there is no probation: the source is known from the SDP, and its first packet
/// counts (so the cumulative loss is what the network lost after it).
public struct RTPSourceStatistics: Sendable, Hashable {
    /// A.1 `MAX_DROPOUT`.
    static let maxDropout: UInt16 = 3000
    /// A.1 `MAX_MISORDER`.
    static let maxMisorder: UInt16 = 100

    /// The source.
    public let ssrc: UInt32
    /// The clock rate of its timestamps (90 000 for video).
    public let clockRate: Int64
    /// `max_seq`: the highest sequence number seen.
    public private(set) var maxSequence: UInt16
    /// `cycles`: sequence number wrap-arounds, times 65 536.
    public private(set) var cycles: UInt32 = 0
    /// `base_seq`: the first sequence number.
    public private(set) var baseSequence: UInt16
    /// `received`: packets received (duplicates included, A.3).
    public private(set) var received: Int64 = 0
    /// Packets that jumped too far and were not confirmed (A.1 `bad_seq`), not counted.
    public private(set) var discarded: Int64 = 0
    private var badSequence: UInt32 = 1 << 16 + 1
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// A.8 `jitter`, scaled by 16.
    private var scaledJitter: UInt32 = 0
    private var transit: UInt32?

    /// Statistics starting at `first`, arrived at `arrival` nanoseconds.
    public init(first: RTPPacket, arrival: Int64, clockRate: Int64 = 90_000) {
        ssrc = first.ssrc
        self.clockRate = max(1, clockRate)
        maxSequence = first.sequenceNumber
        baseSequence = first.sequenceNumber
        received = 1
        transit = Self.ticks(arrival, clockRate: self.clockRate) &- first.timestamp
    }

    /// A.1 `update_seq` and A.8: takes the next packet of the source, arrived at `arrival`
    /// nanoseconds (a monotonic clock). Returns whether it was counted.
    @discardableResult
    public mutating func update(_ packet: RTPPacket, arrival: Int64) -> Bool {
        let sequence = packet.sequenceNumber
        let delta = sequence &- maxSequence
        if delta < Self.maxDropout {
            // In order, with a permissible gap.
            if sequence < maxSequence { cycles &+= 1 << 16 }
            maxSequence = sequence
        } else if delta <= UInt16.max - Self.maxMisorder {
            // A very large jump: a restart if the next packet follows it.
            if UInt32(sequence) == badSequence {
                self = RTPSourceStatistics(first: packet, arrival: arrival, clockRate: clockRate)
                return true
            }
            badSequence = UInt32(sequence &+ 1)
            discarded += 1
            return false
        }
        // else: a duplicate or a packet out of order, counted as received (A.3).
        received += 1
        updateJitter(packet, arrival: arrival)
        return true
    }

    /// A.8: `J(i) = J(i-1) + (|D(i-1,i)| - J(i-1))/16`, in integer arithmetic scaled by 16.
    private mutating func updateJitter(_ packet: RTPPacket, arrival: Int64) {
        let now = Self.ticks(arrival, clockRate: clockRate) &- packet.timestamp
        if let transit {
            let difference = Int32(bitPattern: now &- transit).magnitude
            scaledJitter = scaledJitter &+ difference &- ((scaledJitter &+ 8) >> 4)
        }
        transit = now
    }

    /// `extended_max` (A.3): the highest sequence number with the wrap-arounds.
    public var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSequence) }
    /// `expected` (A.3).
    public var expected: Int64 { Int64(extendedHighestSequenceNumber) - Int64(baseSequence) + 1 }
    /// `lost` (A.3): expected − received; negative with duplicates.
    public var lost: Int64 { expected - received }
    /// The interarrival jitter in timestamp units (A.8).
    public var jitter: UInt32 { scaledJitter >> 4 }

    /// The report block on the source (A.3: the fraction lost since the previous one), with
    /// `LSR`/`DLSR` from the latest sender report (`nil`: none yet), at `now` nanoseconds.
    public mutating func reportBlock(lastSenderReport: (middle32: UInt32, arrival: Int64)?, now: Int64) -> RTCPReportBlock {
        let expectedInterval = expected - expectedPrior
        expectedPrior = expected
        let receivedInterval = received - receivedPrior
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : min(255, (lostInterval << 8) / expectedInterval)
        var delay: UInt32 = 0
        if let lastSenderReport {
            // DLSR in units of 1/65 536 s.
            let elapsed = max(0, now - lastSenderReport.arrival)
            delay = UInt32(clamping: elapsed / 1_000_000_000 * 65_536 + elapsed % 1_000_000_000 * 65_536 / 1_000_000_000)
        }
        let cumulative = Int32(clamping: min(max(lost, Int64(RTCPReportBlock.cumulativeLostRange.lowerBound)),
                                             Int64(RTCPReportBlock.cumulativeLostRange.upperBound)))
        return RTCPReportBlock(ssrc: ssrc, fractionLost: UInt8(fraction), cumulativeLost: cumulative,
                               extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter,
                               lastSenderReport: lastSenderReport?.middle32 ?? 0, delaySinceLastSenderReport: lastSenderReport == nil ? 0 : delay)
    }

    /// `nanoseconds` on a `clockRate` clock, modulo 2^32 (A.8: the arrival time in timestamp units).
    static func ticks(_ nanoseconds: Int64, clockRate: Int64) -> UInt32 {
        let (seconds, rest) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return UInt32(truncatingIfNeeded: seconds &* clockRate &+ rest * clockRate / 1_000_000_000)
    }
}

/// A sender's clocks at one instant, from its latest RTCP sender report (RFC 3550 6.4.1): maps
/// its RTP timestamps to wall-clock time.
public struct RTCPSenderClock: Sendable, Hashable {
    /// The SR's NTP timestamp.
    public var ntpTimestamp: NTPTimestamp
    /// The SR's RTP timestamp (the same instant).
    public var rtpTimestamp: UInt32
    /// The RTP clock rate (90 000 for video).
    public var clockRate: Int64

    public init(ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, clockRate: Int64 = 90_000) {
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.clockRate = max(1, clockRate)
    }

    /// The clock of `report`.
    public init(_ report: RTCPSenderReport, clockRate: Int64 = 90_000) {
        self.init(ntpTimestamp: report.ntpTimestamp, rtpTimestamp: report.rtpTimestamp, clockRate: clockRate)
    }

    /// The wall-clock time of RTP timestamp `timestamp`, taken within half the RTP clock's
    /// cycle of the report's (± 6.6 hours at 90 kHz); `nil` outside NTP era 0.
    public func wallClock(of timestamp: UInt32) -> NTPTimestamp? {
        let ticks = Int64(Int32(bitPattern: timestamp &- rtpTimestamp))
        let nanoseconds = ticks * 1_000_000_000 / clockRate
        return NTPTimestamp(unixNanoseconds: ntpTimestamp.unixNanoseconds + nanoseconds)
    }
}
