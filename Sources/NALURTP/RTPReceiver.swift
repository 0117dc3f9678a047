public import NALU

/// What an ``RTPReceiver`` does with an access unit that lost packets.
public enum RTPDamagedAccessUnits: String, Sendable, Hashable, CaseIterable {
    /// Not passed on: an ``RTPReceiverEvent/droppedAccessUnit(timestamp:reason:)`` reports it.
    case drop
    /// Passed on with ``RTPAccessUnit/isDamaged`` set and its cut-short NAL unit marked with
    /// `forbidden_zero_bit` (RFC 6184 5.3).
    case mark
}

/// What an ``RTPReceiver`` is told.
public struct RTPReceiverOptions: Sendable, Hashable {
    /// How the stream is packetized (``RTPVideoDescription/payloadFormat`` of its SDP).
    public var format: RTPPayloadFormat
    /// The payload type received; packets of others are counted and dropped. `nil`: the first
    /// packet's.
    public var payloadType: UInt8?
    /// Packets the reorder buffer holds at most.
    public var reorderCapacity: Int
    /// Nanoseconds a packet waits at most for the ones before it.
    public var maxReorderDelay: Int64
    /// Whether access units that lost packets are dropped or passed on marked.
    public var damagedAccessUnits: RTPDamagedAccessUnits
    /// The largest access unit, in bytes of NAL units: a larger one is cut there and damaged.
    public var maxAccessUnitBytes: Int

    public init(format: RTPPayloadFormat, payloadType: UInt8? = nil, reorderCapacity: Int = 128, maxReorderDelay: Int64 = 200_000_000,
                damagedAccessUnits: RTPDamagedAccessUnits = .drop, maxAccessUnitBytes: Int = 64 << 20) {
        self.format = format
        self.payloadType = payloadType
        self.reorderCapacity = reorderCapacity
        self.maxReorderDelay = maxReorderDelay
        self.damagedAccessUnits = damagedAccessUnits
        self.maxAccessUnitBytes = maxAccessUnitBytes
    }
}

/// An access unit received over RTP.
public struct RTPAccessUnit: Sendable, Hashable {
    /// Its NAL units in the order received (headers included, no start codes).
    public var nalUnits: [[UInt8]]
    /// The RTP timestamp of its packets.
    public var rtpTimestamp: UInt32
    /// The timestamp on a 64-bit time line (wrap-arounds unfolded), in the clock's ticks (90 kHz).
    public var time: Int64
    /// Whether packets of it were lost (or cut short by a malformed payload); its cut-short NAL
    /// unit, if any, has `forbidden_zero_bit` set.
    public var isDamaged: Bool
    /// Whether the packet with the marker bit ended it (else the next timestamp did).
    public var endedByMarker: Bool
    /// Its wall-clock time from the sender's latest RTCP sender report
    /// (``RTPReceiver/senderClock``, RFC 3550 6.4.1); `nil` before the first one.
    public var wallClock: NTPTimestamp? = nil
}

/// Sequence numbers given up on.
public struct RTPGap: Sendable, Hashable {
    /// The first extended sequence number lost.
    public var firstSequenceNumber: Int64
    /// How many.
    public var count: Int
}

/// What an ``RTPReceiver`` reports, in order.
public enum RTPReceiverEvent: Sendable, Hashable {
    /// A complete access unit (or, with ``RTPDamagedAccessUnits/mark``, a damaged one, marked).
    case accessUnit(RTPAccessUnit)
    /// Packets lost.
    case gap(RTPGap)
    /// An access unit not passed on because it lost packets.
    case droppedAccessUnit(timestamp: UInt32, reason: String)
    /// After a loss: the sender should send a keyframe (RTCP PLI/FIR, RFC 4585 6.3.1, RFC 5104 4.3.1).
    case keyframeRequest
    /// A packet whose payload could not be read; its access unit is damaged.
    case malformedPacket(sequenceNumber: UInt16, error: NALUError)
}

/// Counts of what an ``RTPReceiver`` saw.
public struct RTPReceiverStatistics: Sendable, Hashable {
    /// Packets taken.
    public var packets = 0
    /// Packets received twice (dropped).
    public var duplicates = 0
    /// Packets that came after later ones had been passed on (dropped).
    public var late = 0
    /// Sequence numbers given up on.
    public var lost = 0
    /// Runs of lost sequence numbers.
    public var gaps = 0
    /// Packets of another payload type (dropped).
    public var otherPayloadType = 0
    /// Packets of another SSRC than the first packet's (dropped).
    public var otherSource = 0
    /// Packets whose payload could not be read.
    public var malformed = 0
    /// Fragments skipped because their NAL unit's start fragment did not come.
    public var fragmentsWithoutStart = 0
    /// H.265 PACI packets skipped (RFC 7798 4.4.4).
    public var skippedPACI = 0
    /// Access units passed on (damaged ones included when marked).
    public var accessUnits = 0
    /// Access units that lost packets (dropped or marked).
    public var damagedAccessUnits = 0
    /// Access units not passed on.
    public var droppedAccessUnits = 0
    /// Keyframe requests raised (one per gap).
    public var keyframeRequests = 0
    /// NAL units dropped because they came after later ones in decoding order had been passed on
    /// (decoding order numbers not kept within `sprop-max-don-diff` or the buffer's size).
    public var outOfDecodingOrder = 0
    /// NAL units passed on before the `sprop-max-don-diff` rule allowed it (the de-interleaving
    /// buffer was full, or a unit waited the reorder delay).
    public var releasedEarly = 0

    /// Whether anything was lost, dropped or damaged.
    public var isLossless: Bool {
        lost == 0 && late == 0 && malformed == 0 && fragmentsWithoutStart == 0 && damagedAccessUnits == 0 && droppedAccessUnits == 0
            && otherPayloadType == 0 && otherSource == 0 && outOfDecodingOrder == 0
    }
}

/// Turns RTP packets of one H.264 or H.265 stream into access units: reordered in a bounded
/// buffer (``RTPReorderBuffer``), depacketized (``RTPDepacketizer``), grouped by timestamp (an
/// access unit ends at the marker bit, or when the timestamp changes).
///
/// Loss never passes unnoticed: each run of lost sequence numbers is a ``RTPReceiverEvent/gap(_:)``
/// followed by a ``RTPReceiverEvent/keyframeRequest``; the access unit open at the loss and the
/// one the next packet belongs to are damaged (the lost packets may have been either's), and are
/// dropped or passed on marked (``RTPDamagedAccessUnits``). A NAL unit is never rebuilt from a
/// middle fragment.
///
/// ```swift
/// var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264)))
/// for event in receiver.receive(packet, arrival: now) {
///     if case .accessUnit(let unit) = event { write(unit.nalUnits) }
/// }
/// for event in receiver.finish() { … }
/// ```
public struct RTPReceiver: Sendable {
    /// What the receiver was told.
    public let options: RTPReceiverOptions
    /// What it saw so far.
    public private(set) var statistics = RTPReceiverStatistics()

    private var buffer: RTPReorderBuffer
    private var depacketizer: RTPDepacketizer
    private var timestamps = RTPTimestampUnwrapper()
    private var selection: RTPStreamSelection
    /// The access unit being collected.
    private var open: (unit: RTPAccessUnit, bytes: Int)?
    /// Whether the next access unit begun is damaged (a loss came before its first packet).
    private var nextIsDamaged = false
    /// Whether no access unit has been closed yet.
    private var isFirstAccessUnit = true
    /// With decoding order numbers: the de-interleaving buffer, and the time of the packets released now.
    private var decodingOrder: RTPDecodingOrderBuffer?
    private var clock: Int64 = 0
    /// The timestamp of the packet that began the NAL unit being rebuilt from fragments.
    private var fragmentTimestamp: UInt32 = 0

    public init(options: RTPReceiverOptions) {
        self.options = options
        buffer = RTPReorderBuffer(capacity: options.reorderCapacity, maxDelay: options.maxReorderDelay)
        depacketizer = RTPDepacketizer(format: options.format, maxNALUnitBytes: options.maxAccessUnitBytes)
        selection = RTPStreamSelection(payloadType: options.payloadType)
        if options.format.usesDecodingOrderNumbers {
            var limits = options.format.decodingOrder
            limits.maxDonDiff = options.format.maxDonDiff
            decodingOrder = RTPDecodingOrderBuffer(codec: options.format.codec, limits: limits,
                                                   maxDelay: options.maxReorderDelay, maxBytes: options.maxAccessUnitBytes)
        }
    }

    /// The SSRC received (the first packet's).
    public var source: UInt32? { selection.ssrc }

    /// The sender's clocks from its latest RTCP sender report (``RTCPReceiverSession`` sets it):
    /// access units completed after it carry ``RTPAccessUnit/wallClock``.
    public var senderClock: RTCPSenderClock?

    /// Takes one packet received at `arrival` nanoseconds (a monotonic clock) and returns what it
    /// completed. Packets of another payload type or SSRC are counted and dropped.
    public mutating func receive(_ packet: RTPPacket, arrival: Int64) -> [RTPReceiverEvent] {
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
        var events: [RTPReceiverEvent] = []
        clock = arrival
        process(buffer.push(packet, arrival: arrival), into: &events)
        process(buffer.advance(to: arrival), into: &events)
        syncCounts()
        return events
    }

    /// Gives up on packets that waited past the reorder delay at `now` nanoseconds (call it when
    /// no packet comes).
    public mutating func advance(to now: Int64) -> [RTPReceiverEvent] {
        var events: [RTPReceiverEvent] = []
        clock = now
        process(buffer.advance(to: now), into: &events)
        if let released = decodingOrder?.advance(to: now) { appendInDecodingOrder(released, into: &events) }
        syncCounts()
        return events
    }

    /// Releases everything held and ends the access unit being collected (the end of the input).
    public mutating func finish() -> [RTPReceiverEvent] {
        var events: [RTPReceiverEvent] = []
        process(buffer.flush(), into: &events)
        if decodingOrder != nil {
            flushDecodingOrder(into: &events)
        } else if depacketizer.isInsideFragmentedUnit, let partial = depacketizer.interrupt() {
            append(DepacketizedNALUnit(bytes: partial.bytes, isDamaged: true), into: &events)
        }
        close(into: &events)
        syncCounts()
        return events
    }

    private mutating func syncCounts() {
        statistics.duplicates = buffer.duplicates
        statistics.late = buffer.late
        statistics.lost = buffer.lost
    }

    private mutating func process(_ releases: [RTPReorderBuffer.Release], into events: inout [RTPReceiverEvent]) {
        for release in releases { deliver(release, into: &events) }
    }

    private mutating func deliver(_ release: RTPReorderBuffer.Release, into events: inout [RTPReceiverEvent]) {
        if decodingOrder != nil { return deliverInterleaved(release, into: &events) }
        let packet = release.packet
        if release.lostBefore > 0 {
            statistics.gaps += 1
            events.append(.gap(RTPGap(firstSequenceNumber: release.extendedSequenceNumber - Int64(release.lostBefore), count: release.lostBefore)))
            if let partial = depacketizer.interrupt() { append(partial, into: &events) }
            open?.unit.isDamaged = true
            nextIsDamaged = true
            statistics.keyframeRequests += 1
            events.append(.keyframeRequest)
        }
        if let current = open, current.unit.rtpTimestamp != packet.timestamp {
            if depacketizer.isInsideFragmentedUnit, let partial = depacketizer.interrupt() { append(partial, into: &events) }
            close(into: &events)
        }
        if open == nil {
            let time = timestamps.unwrap(packet.timestamp)
            open = (RTPAccessUnit(nalUnits: [], rtpTimestamp: packet.timestamp, time: time, isDamaged: nextIsDamaged, endedByMarker: false), 0)
        }
        // The access unit this packet belongs to carries the loss before it (already marked
        // when it was open at the loss); the ones after it do not.
        nextIsDamaged = false
        do {
            let payload = try depacketizer.depacketize(packet.payload)
            statistics.skippedPACI += payload.skippedPACI
            if payload.fragmentsWithoutStart > 0 {
                statistics.fragmentsWithoutStart += payload.fragmentsWithoutStart
                open?.unit.isDamaged = true
            }
            for unit in payload.nalUnits { append(unit, into: &events) }
        } catch {
            statistics.malformed += 1
            open?.unit.isDamaged = true
            events.append(.malformedPacket(sequenceNumber: packet.sequenceNumber, error: error))
        }
        if packet.marker {
            if depacketizer.isInsideFragmentedUnit, let partial = depacketizer.interrupt() { append(partial, into: &events) }
            open?.unit.endedByMarker = true
            close(into: &events)
        }
    }

    private mutating func append(_ unit: DepacketizedNALUnit, into events: inout [RTPReceiverEvent]) {
        guard var current = open else { return }
        if unit.isDamaged { current.unit.isDamaged = true }
        if unit.bytes.count > options.maxAccessUnitBytes - current.bytes {
            current.unit.isDamaged = true
        } else {
            current.unit.nalUnits.append(unit.bytes)
            current.bytes += unit.bytes.count
        }
        open = current
    }

    private mutating func close(into events: inout [RTPReceiverEvent]) {
        guard var current = open?.unit else { return }
        open = nil
        if isFirstAccessUnit {
            // Packets sent before the first one received cannot be counted lost: the first access
            // unit is whole only if its first slice begins the picture.
            isFirstAccessUnit = false
            let codec = options.format.codec
            if let firstSlice = current.nalUnits.first(where: { PictureStart.startsPicture($0, codec: codec) != nil }),
               PictureStart.startsPicture(firstSlice, codec: codec) == false {
                current.isDamaged = true
            }
        }
        if current.isDamaged {
            statistics.damagedAccessUnits += 1
            if options.damagedAccessUnits == .drop || current.nalUnits.isEmpty {
                statistics.droppedAccessUnits += 1
                events.append(.droppedAccessUnit(timestamp: current.rtpTimestamp, reason: "packets of it were lost"))
                return
            }
        } else if current.nalUnits.isEmpty {
            return
        }
        statistics.accessUnits += 1
        current.wallClock = senderClock?.wallClock(of: current.rtpTimestamp)
        events.append(.accessUnit(current))
    }
}

// MARK: Decoding order (H.264 interleaved mode, H.265 with sprop-max-don-diff > 0)

extension RTPReceiver {
    /// A packet in sequence order whose NAL units carry decoding order numbers: they go through
    /// the de-interleaving buffer and are grouped into access units in decoding order, by
    /// timestamp (the marker bit ends an access unit in transmission order only: RFC 6184 5.1).
    /// A loss is placed in decoding order by the buffer (``RTPDecodingOrderBuffer/noteLoss()``):
    /// the access units on both sides of where the lost units may have been are damaged.
    private mutating func deliverInterleaved(_ release: RTPReorderBuffer.Release, into events: inout [RTPReceiverEvent]) {
        let packet = release.packet
        if release.lostBefore > 0 {
            statistics.gaps += 1
            events.append(.gap(RTPGap(firstSequenceNumber: release.extendedSequenceNumber - Int64(release.lostBefore), count: release.lostBefore)))
            if let partial = depacketizer.interrupt() { pushInDecodingOrder(partial, timestamp: fragmentTimestamp, into: &events) }
            decodingOrder?.noteLoss()
            statistics.keyframeRequests += 1
            events.append(.keyframeRequest)
        }
        if depacketizer.isInsideFragmentedUnit, fragmentTimestamp != packet.timestamp, let partial = depacketizer.interrupt() {
            // A fragment of another access unit: the unit being rebuilt lost its end.
            pushInDecodingOrder(partial, timestamp: fragmentTimestamp, into: &events)
            decodingOrder?.noteLoss()
        }
        fragmentTimestamp = packet.timestamp
        do {
            let payload = try depacketizer.depacketize(packet.payload)
            statistics.skippedPACI += payload.skippedPACI
            if payload.fragmentsWithoutStart > 0 {
                statistics.fragmentsWithoutStart += payload.fragmentsWithoutStart
                decodingOrder?.noteLoss()
            }
            for unit in payload.nalUnits { pushInDecodingOrder(unit, timestamp: packet.timestamp &+ unit.timestampOffset, into: &events) }
        } catch {
            statistics.malformed += 1
            decodingOrder?.noteLoss()
            events.append(.malformedPacket(sequenceNumber: packet.sequenceNumber, error: error))
        }
    }

    private mutating func pushInDecodingOrder(_ unit: DepacketizedNALUnit, timestamp: UInt32, into events: inout [RTPReceiverEvent]) {
        guard var buffer = decodingOrder else { return }
        let outcome = buffer.push(unit, timestamp: timestamp, arrival: clock)
        decodingOrder = buffer
        if let late = outcome.outOfOrder {
            statistics.outOfDecodingOrder += 1
            // Its access unit, if still being collected, lacks it; one already passed on is reported here.
            if open?.unit.rtpTimestamp == timestamp { open?.unit.isDamaged = true }
            events.append(.malformedPacket(sequenceNumber: 0, error: NALUError(
                .invalidValue, field: "DON", detail: "a NAL unit with AbsDon \(late.absDon) came after \(late.lastReleased) was passed on: "
                    + "not within sprop-max-don-diff \(options.format.maxDonDiff) or the buffer's size; dropped")))
        }
        statistics.releasedEarly = buffer.releasedEarly
        appendInDecodingOrder(outcome.released, into: &events)
    }

    private mutating func appendInDecodingOrder(_ released: [RTPDecodingOrderBuffer.Released], into events: inout [RTPReceiverEvent]) {
        for item in released {
            if item.followsLoss { open?.unit.isDamaged = true }
            if let current = open, current.unit.rtpTimestamp != item.timestamp { close(into: &events) }
            if open == nil {
                let time = timestamps.unwrap(item.timestamp)
                open = (RTPAccessUnit(nalUnits: [], rtpTimestamp: item.timestamp, time: time, isDamaged: item.followsLoss, endedByMarker: false), 0)
            }
            append(item.unit, into: &events)
        }
        if let buffer = decodingOrder { statistics.releasedEarly = buffer.releasedEarly }
    }

    private mutating func flushDecodingOrder(into events: inout [RTPReceiverEvent]) {
        if let partial = depacketizer.interrupt() {
            pushInDecodingOrder(partial, timestamp: fragmentTimestamp, into: &events)
            decodingOrder?.noteLoss()
        }
        if let released = decodingOrder?.flush() { appendInDecodingOrder(released, into: &events) }
        if decodingOrder?.lossAfterLastReleased == true { open?.unit.isDamaged = true }
    }
}
