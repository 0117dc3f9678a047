public import NALU

/// When a reception ends (``RTPReception``), in nanoseconds.
public struct RTPReceptionLimits: Sendable, Hashable {
    /// After the first packet: the reception lasts this long at most (`nil`: no limit).
    public var duration: Int64?
    /// Once packets came: this long without one ends the reception.
    public var idle: Int64
    /// Before the first packet: this long without one ends the reception with nothing.
    public var wait: Int64

    public init(duration: Int64? = nil, idle: Int64 = 3_000_000_000, wait: Int64 = 30_000_000_000) {
        self.duration = duration
        self.idle = idle
        self.wait = wait
    }
}

/// Why a reception ended.
public enum RTPReceptionEnd: Sendable, Hashable {
    /// ``RTPReceptionLimits/duration`` passed.
    case duration
    /// No packet for ``RTPReceptionLimits/idle``.
    case idle
    /// No packet came within ``RTPReceptionLimits/wait``.
    case noPacket
    /// The caller asked to stop (a signal).
    case stopped
    /// The rtpdump file ended.
    case endOfFile
    /// The sender said it left: an RTCP BYE (RFC 3550 6.6).
    case goodbye
}

/// What a reception did.
public struct RTPReceptionReport: Sendable, Hashable {
    public var end: RTPReceptionEnd
    /// Datagrams or records that were no RTP packet (RFC 3550 5.1).
    public var unparsed: Int
    /// rtpdump records holding less than their packet.
    public var partialRecords: Int

    public init(end: RTPReceptionEnd, unparsed: Int, partialRecords: Int) {
        self.end = end
        self.unparsed = unparsed
        self.partialRecords = partialRecords
    }
}

/// Feeds an ``RTPReceiver`` from a UDP socket or an rtpdump file until the end, handing its
/// events to the caller as they come; the receiver is finished at the end (its last events
/// handed over too).
///
/// ```swift
/// let socket = try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: description.video.port))
/// var receiver = RTPReceiver(options: RTPReceiverOptions(format: description.video.payloadFormat))
/// let report = try RTPReception.receive(from: socket, into: &receiver, limits: RTPReceptionLimits()) { events in … }
/// ```
public enum RTPReception {
    /// Receives from `socket` until a limit is reached, `shouldStop` says so (checked at
    /// least every 20 ms) or, with `control`, the sender's RTCP BYE came (``RTPReceptionEnd/goodbye``).
    /// - Parameter control: RTCP (RFC 3550 6): the sender's reports read, receiver reports,
    ///   keyframe requests and a BYE at the end sent; `nil`: none.
    /// - Throws: the socket's ``NALU/NALUError`` (`.io`), and what `handle` throws.
    public static func receive(from socket: UDPSocket, into receiver: inout RTPReceiver, limits: RTPReceptionLimits,
                               control: RTCPReceiverChannel? = nil,
                               shouldStop: () -> Bool = { false }, handle: ([RTPReceiverEvent]) throws -> Void) throws -> RTPReceptionReport {
        var timer = RTPReceptionTimer(limits: limits)
        var unparsed = 0
        var end = RTPReceptionEnd.stopped
        while true {
            if shouldStop() {
                end = .stopped
                break
            }
            let now = MonotonicClock.now()
            if let limit = timer.end(at: now) {
                end = limit
                break
            }
            control?.poll(now: now, receiver: &receiver)
            guard let datagram = try socket.receive(timeoutMilliseconds: 20) else {
                // After the sender's BYE, the packets it sent before are read first.
                if let control, control.session.goodbyeReceived, timer.started {
                    end = .goodbye
                    break
                }
                let now = MonotonicClock.now()
                let events = receiver.advance(to: now)
                control?.handle(events, now: now)
                try handle(events)
                continue
            }
            let arrival = MonotonicClock.now()
            timer.arrived(at: arrival)
            guard let packet = try? RTPPacket(parsing: datagram) else {
                unparsed += 1
                continue
            }
            control?.session.packetReceived(packet, arrival: arrival)
            let events = receiver.receive(packet, arrival: arrival)
            control?.handle(events, now: arrival)
            try handle(events)
        }
        let remaining = receiver.finish()
        control?.handle(remaining, now: MonotonicClock.now())
        try handle(remaining)
        control?.finish(now: MonotonicClock.now())
        return RTPReceptionReport(end: end, unparsed: unparsed, partialRecords: 0)
    }

    /// Replays an rtpdump file, each packet arriving at its record's offset, the first
    /// `duration` nanoseconds of it (`nil`: all).
    /// - Throws: the reader's ``NALU/NALUError``, and what `handle` throws.
    public static func replay<Source: ByteSource>(_ reader: inout RTPDumpReader<Source>, into receiver: inout RTPReceiver, duration: Int64? = nil,
                                                  handle: ([RTPReceiverEvent]) throws -> Void) throws -> RTPReceptionReport {
        var first: Int64?
        var unparsed = 0
        var end = RTPReceptionEnd.endOfFile
        while let record = try reader.next() {
            let arrival = Int64(record.offsetMilliseconds) * 1_000_000
            if first == nil { first = arrival }
            if let duration, let first, arrival - first >= duration {
                end = .duration
                break
            }
            guard let packet = try? RTPPacket(parsing: record.bytes) else {
                unparsed += 1
                continue
            }
            try handle(receiver.receive(packet, arrival: arrival))
        }
        try handle(receiver.finish())
        return RTPReceptionReport(end: end, unparsed: unparsed, partialRecords: reader.skippedPartial)
    }
}
