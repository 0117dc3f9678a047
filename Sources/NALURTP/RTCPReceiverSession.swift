import NALU

/// How a receiver asks the sender for a keyframe after a loss.
public enum RTCPKeyframeRequest: String, Sendable, Hashable, CaseIterable {
    /// Picture loss indication (RFC 4585 6.3.1), understood by every AVPF sender.
    case pictureLossIndication = "pli"
    /// Full intra request (RFC 5104 4.3.1), when the SDP offers `a=rtcp-fb:PT ccm fir` only.
    case fullIntraRequest = "fir"
}

/// What an ``RTCPReceiverSession`` sent and read.
public struct RTCPReceiverCounts: Sendable, Hashable {
    /// Sender reports read from the media source.
    public var senderReports = 0
    /// Compound packets sent with a receiver report (regular reports, feedback and BYE).
    public var receiverReports = 0
    /// PLIs sent.
    public var pictureLossIndications = 0
    /// FIRs sent.
    public var fullIntraRequests = 0
    /// Keyframe requests not sent because one had been sent less than
    /// ``RTCPReceiverSession/minimumKeyframeRequestInterval`` before.
    public var keyframeRequestsSuppressed = 0
    /// RTCP datagrams that could not be read.
    public var malformed = 0
    /// BYE packets naming the media source.
    public var goodbyes = 0
}

/// The receiving side of RTCP (RFC 3550 6) for one media source: reception statistics (A.1,
/// A.3) and jitter (A.8) from the RTP packets, the sender's clocks from its sender reports, a
/// receiver report (with SDES `CNAME`) about every ``reportInterval`` randomised as 6.3.1
/// does, a PLI or FIR (RFC 4585, RFC 5104) for each keyframe request of the ``RTPReceiver``,
/// and a BYE at the end. It holds no socket: its methods return the compound packets to send
/// (``RTCPReceiverChannel`` drives it over UDP; an RTSP client over its interleaved channel).
///
/// ```swift
/// let session = RTCPReceiverSession(canonicalName: "nalu@receiver")
/// session.packetReceived(packet, arrival: now)
/// if let report = session.reportIfDue(now: now) { try socket.send(report, to: sender) }
/// ```
public final class RTCPReceiverSession {
    /// The receiver's own SSRC (RFC 3550 8.1: random).
    public let ssrc: UInt32
    /// The receiver's `CNAME` (RFC 3550 6.5.1).
    public let canonicalName: String
    /// How a keyframe is asked for.
    public let keyframeRequest: RTCPKeyframeRequest
    /// The RTP clock rate of the media (90 000 for video).
    public let clockRate: Int64
    /// The mean interval between receiver reports in nanoseconds (RFC 3550 6.2: 5 s minimum).
    public var reportInterval: Int64 = 5_000_000_000
    /// Keyframe requests closer than this (nanoseconds) to the previous one are not sent
    /// (counted in ``RTCPReceiverCounts/keyframeRequestsSuppressed``): the keyframe asked for
    /// is on its way.
    public var minimumKeyframeRequestInterval: Int64 = 200_000_000

    /// What was sent and read.
    public private(set) var counts = RTCPReceiverCounts()
    /// The media source's reception statistics (after its first packet).
    public private(set) var statistics: RTPSourceStatistics?
    /// The latest sender report of the media source.
    public private(set) var lastSenderReport: RTCPSenderReport?
    /// The media source's clocks from ``lastSenderReport``.
    public private(set) var senderClock: RTCPSenderClock?
    /// The media source's `CNAME`, once an SDES gave it.
    public private(set) var senderCanonicalName: String?
    /// Whether a BYE of the media source came (RFC 3550 6.6: it left).
    public private(set) var goodbyeReceived = false
    /// Why RTCP datagrams could not be read (at most 20).
    public private(set) var notes: [String] = []

    private var mediaSSRC: UInt32?
    private var lastSenderReportArrival: Int64 = 0
    private var nextReport: Int64?
    private var lastKeyframeRequest: Int64?
    private var firSequenceNumber: UInt8 = 0

    /// - Parameters:
    ///   - mediaSSRC: the source reported on; `nil`: the first RTP packet's.
    public init(ssrc: UInt32 = UInt32.random(in: 1...UInt32.max), canonicalName: String = RTCPReceiverSession.randomCanonicalName(),
                keyframeRequest: RTCPKeyframeRequest = .pictureLossIndication, clockRate: Int64 = 90_000, mediaSSRC: UInt32? = nil) {
        self.ssrc = ssrc
        self.canonicalName = canonicalName
        self.keyframeRequest = keyframeRequest
        self.clockRate = max(1, clockRate)
        self.mediaSSRC = mediaSSRC
    }

    /// A `CNAME` of 96 random bits (RFC 7022 4.2), in hexadecimal after `nalu-`.
    public static func randomCanonicalName() -> String {
        "nalu-" + (0..<3).map { _ in
            let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// Takes an RTP packet received at `arrival` nanoseconds (monotonic): the media source's
    /// packets update the statistics.
    public func packetReceived(_ packet: RTPPacket, arrival: Int64) {
        if mediaSSRC == nil { mediaSSRC = packet.ssrc }
        guard packet.ssrc == mediaSSRC else { return }
        if statistics == nil {
            statistics = RTPSourceStatistics(first: packet, arrival: arrival, clockRate: clockRate)
        } else {
            statistics?.update(packet, arrival: arrival)
        }
        if nextReport == nil { nextReport = arrival + nextInterval(initial: true) }
    }

    /// Takes an RTCP datagram received at `arrival` nanoseconds: the media source's SR gives
    /// its clocks, its SDES its `CNAME`, its BYE ends it. A datagram that cannot be read is
    /// counted and noted, and `nil` returned.
    @discardableResult
    public func controlReceived(_ datagram: [UInt8], arrival: Int64) -> RTCPCompoundPacket? {
        let compound: RTCPCompoundPacket
        do {
            compound = try RTCPCompoundPacket(parsing: datagram)
        } catch {
            counts.malformed += 1
            if notes.count < 20 { notes.append("RTCP: \(error)") }
            return nil
        }
        for packet in compound.packets {
            switch packet {
            case .senderReport(let report):
                if mediaSSRC == nil { mediaSSRC = report.ssrc }
                guard report.ssrc == mediaSSRC else { continue }
                counts.senderReports += 1
                lastSenderReport = report
                lastSenderReportArrival = arrival
                senderClock = RTCPSenderClock(report, clockRate: clockRate)
            case .sourceDescription(let description):
                if let mediaSSRC, let name = description.canonicalName(of: mediaSSRC) { senderCanonicalName = name }
            case .goodbye(let goodbye):
                if mediaSSRC.map(goodbye.sources.contains) ?? true {
                    counts.goodbyes += 1
                    goodbyeReceived = true
                }
            default:
                continue
            }
        }
        return compound
    }

    /// The receiver report due at `now` nanoseconds, if one is (the next is then scheduled).
    public func reportIfDue(now: Int64) -> [UInt8]? {
        guard let due = nextReport, now >= due else { return nil }
        nextReport = now + nextInterval(initial: false)
        return compound(now: now, adding: []).bytes
    }

    /// The PLI or FIR asking for a keyframe, when `events` hold a keyframe request and none was
    /// sent in the last ``minimumKeyframeRequestInterval``: one for all the requests of
    /// `events` (the others are counted in ``RTCPReceiverCounts/keyframeRequestsSuppressed``).
    public func keyframeRequest(for events: [RTPReceiverEvent], now: Int64) -> [UInt8]? {
        let requests = events.count { $0 == .keyframeRequest }
        guard requests > 0 else { return nil }
        let sent = requestKeyframe(now: now)
        counts.keyframeRequestsSuppressed += requests - 1
        return sent
    }

    /// A compound packet asking for a keyframe (RR, SDES and a PLI or FIR: RFC 4585 3.1), or
    /// `nil` when one was sent less than ``minimumKeyframeRequestInterval`` ago or the media
    /// source is not known yet.
    public func requestKeyframe(now: Int64) -> [UInt8]? {
        guard let media = mediaSSRC else { return nil }
        if let last = lastKeyframeRequest, now - last < minimumKeyframeRequestInterval {
            counts.keyframeRequestsSuppressed += 1
            return nil
        }
        lastKeyframeRequest = now
        let message: RTCPFeedback
        switch keyframeRequest {
        case .pictureLossIndication:
            counts.pictureLossIndications += 1
            message = RTCPFeedback(senderSSRC: ssrc, mediaSSRC: media, message: .pictureLossIndication)
        case .fullIntraRequest:
            // RFC 5104 4.3.1.2: the media source field is 0; the sequence number grows per new request.
            counts.fullIntraRequests += 1
            firSequenceNumber &+= 1
            message = RTCPFeedback(senderSSRC: ssrc, mediaSSRC: 0,
                                   message: .fullIntraRequest([RTCPFullIntraRequest(ssrc: media, sequenceNumber: firSequenceNumber)]))
        }
        return compound(now: now, adding: [.feedback(message)]).bytes
    }

    /// The last compound packet: a receiver report, SDES and BYE (RFC 3550 6.6).
    public func goodbye(now: Int64) -> [UInt8] {
        compound(now: now, adding: [.goodbye(RTCPGoodbye(sources: [ssrc]))]).bytes
    }

    /// RR + SDES `CNAME` + `extra` (RFC 3550 6.1: a compound packet starts with a report and
    /// holds a `CNAME`).
    private func compound(now: Int64, adding extra: [RTCPPacket]) -> RTCPCompoundPacket {
        counts.receiverReports += 1
        var blocks: [RTCPReportBlock] = []
        if var statistics {
            let last = lastSenderReport.map { (middle32: $0.ntpTimestamp.middle32, arrival: lastSenderReportArrival) }
            blocks.append(statistics.reportBlock(lastSenderReport: last, now: now))
            self.statistics = statistics
        }
        return RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: ssrc, reports: blocks)),
                                            .sourceDescription(RTCPSourceDescription(ssrc: ssrc, canonicalName: canonicalName))] + extra)
    }

    /// RFC 3550 6.3.1 simplified: the interval (half of it for the first report, 6.2) times a
    /// random factor in [0.5, 1.5], divided by e − 3/2 to compensate the timer reconsideration
    /// the full algorithm does.
    private func nextInterval(initial: Bool) -> Int64 {
        let base = Double(initial ? reportInterval / 2 : reportInterval)
        return CheckedNumber.int64(base * Double.random(in: 0.5...1.5) / 1.21828) ?? reportInterval
    }
}
