public import NALU

/// What an ``RTPAACReceiver`` saw.
public struct RTPAACReceiverStatistics: Sendable, Hashable {
    /// Packets taken (all of them, before any check).
    public var packets = 0
    public var duplicates = 0
    public var late = 0
    /// Sequence numbers given up on, in ``gaps`` runs.
    public var lost = 0
    public var gaps = 0
    public var otherPayloadType = 0
    public var otherSource = 0
    /// Packets whose payload could not be read (interleaved ones included).
    public var malformed = 0
    /// AUs passed on.
    public var accessUnits = 0
    /// AUs dropped because a fragment was lost or damaged.
    public var droppedAccessUnits = 0

    /// Whether nothing was lost, dropped or refused.
    public var isLossless: Bool {
        lost == 0 && late == 0 && otherPayloadType == 0 && otherSource == 0 && malformed == 0 && droppedAccessUnits == 0
    }
}

/// What an ``RTPAACReceiver`` reports, in order.
public enum RTPAACReceiverEvent: Sendable, Hashable {
    case accessUnit(RTPAACAccessUnit)
    /// Packets lost.
    case gap(RTPGap)
    /// A packet whose payload could not be read (its AUs dropped).
    case malformedPacket(sequenceNumber: UInt16, error: NALUError)
}

/// The receiving side of an RFC 3640 AAC stream: packets of one payload type and SSRC through
/// a bounded reorder buffer (``RTPReorderBuffer``: duplicates dropped, losses reported) into an
/// ``RTPAACDepacketizer``; each AU gets its timestamp on a 64-bit time line.
///
/// ```swift
/// var receiver = RTPAACReceiver(format: try RTPAACPayloadFormat(description: sdp.audio!), payloadType: 97)
/// for event in receiver.receive(packet, arrival: MonotonicClock.now()) { … }
/// ```
public struct RTPAACReceiver: Sendable {
    public let format: RTPAACPayloadFormat
    public private(set) var statistics = RTPAACReceiverStatistics()
    private var buffer: RTPReorderBuffer
    private var depacketizer: RTPAACDepacketizer
    private var timestamps = RTPTimestampUnwrapper()
    private var selection: RTPStreamSelection

    /// - Parameters:
    ///   - payloadType: the stream's payload type (`nil`: the first packet's).
    ///   - reorderCapacity, maxReorderDelay: the reorder buffer's bounds (packets, nanoseconds).
    public init(format: RTPAACPayloadFormat, payloadType: UInt8? = nil, reorderCapacity: Int = 128, maxReorderDelay: Int64 = 200_000_000) {
        self.format = format
        selection = RTPStreamSelection(payloadType: payloadType)
        buffer = RTPReorderBuffer(capacity: reorderCapacity, maxDelay: maxReorderDelay)
        depacketizer = RTPAACDepacketizer(format: format)
    }

    /// The SSRC received (the first packet's).
    public var source: UInt32? { selection.ssrc }

    /// Takes one packet received at `arrival` nanoseconds (a monotonic clock).
    public mutating func receive(_ packet: RTPPacket, arrival: Int64) -> [RTPAACReceiverEvent] {
        statistics.packets += 1
        switch selection.check(packet) {
        case .taken: break
        case .otherPayloadType:
            statistics.otherPayloadType += 1
            return []
        case .otherSource:
            statistics.otherSource += 1
            return []
        }
        var events: [RTPAACReceiverEvent] = []
        process(buffer.push(packet, arrival: arrival), into: &events)
        process(buffer.advance(to: arrival), into: &events)
        syncCounts()
        return events
    }

    /// Gives up on packets that waited past the reorder delay at `now` nanoseconds.
    public mutating func advance(to now: Int64) -> [RTPAACReceiverEvent] {
        var events: [RTPAACReceiverEvent] = []
        process(buffer.advance(to: now), into: &events)
        syncCounts()
        return events
    }

    /// Releases everything held; an AU still being reassembled is dropped.
    public mutating func finish() -> [RTPAACReceiverEvent] {
        var events: [RTPAACReceiverEvent] = []
        process(buffer.flush(), into: &events)
        depacketizer.finish()
        syncCounts()
        return events
    }

    private mutating func process(_ releases: [RTPReorderBuffer.Release], into events: inout [RTPAACReceiverEvent]) {
        for release in releases {
            if release.lostBefore > 0 {
                statistics.gaps += 1
                events.append(.gap(RTPGap(firstSequenceNumber: release.extendedSequenceNumber - Int64(release.lostBefore), count: release.lostBefore)))
            }
            do {
                let units = try depacketizer.push(release.packet, lostBefore: release.lostBefore)
                guard !units.isEmpty else { continue }
                let base = timestamps.unwrap(release.packet.timestamp)
                for unit in units {
                    var timed = unit
                    timed.time = base &+ RTPSequence.timestampDistance(from: release.packet.timestamp, to: unit.rtpTimestamp)
                    events.append(.accessUnit(timed))
                }
            } catch {
                events.append(.malformedPacket(sequenceNumber: release.packet.sequenceNumber, error: error))
            }
        }
    }

    private mutating func syncCounts() {
        statistics.duplicates = buffer.duplicates
        statistics.late = buffer.late
        statistics.lost = buffer.lost
        statistics.malformed = depacketizer.malformedPackets
        statistics.accessUnits = depacketizer.accessUnits
        statistics.droppedAccessUnits = depacketizer.droppedAccessUnits
    }
}
