import NALU

/// A receiver's request for a keyframe, read from its RTCP (RFC 4585 6.3.1 PLI, RFC 5104
/// 4.3.1 FIR).
public struct RTCPKeyframeRequestEvent: Sendable, Hashable {
    /// The SSRC of the receiver that asked.
    public var receiver: UInt32
    /// PLI or FIR.
    public var kind: RTCPKeyframeRequest
    /// The FIR's command sequence number (`nil` for a PLI).
    public var sequenceNumber: UInt8?

    public init(receiver: UInt32, kind: RTCPKeyframeRequest, sequenceNumber: UInt8? = nil) {
        self.receiver = receiver
        self.kind = kind
        self.sequenceNumber = sequenceNumber
    }
}

/// What an ``RTCPSenderSession`` sent and read.
public struct RTCPSenderCounts: Sendable, Hashable {
    /// Sender reports sent (with SDES `CNAME`; the last one with the BYE).
    public var senderReports = 0
    /// Report blocks about this sender read from receivers' RRs and SRs.
    public var receptionReports = 0
    /// PLIs for this sender read.
    public var pictureLossIndications = 0
    /// New FIRs for this sender read (a retransmitted one, same sequence number, not counted).
    public var fullIntraRequests = 0
    /// Generic NACKs read (not acted on: packets are not retransmitted).
    public var negativeAcknowledgements = 0
    /// BYEs of receivers read.
    public var goodbyes = 0
    /// RTCP datagrams that could not be read.
    public var malformed = 0
}

/// The sending side of RTCP (RFC 3550 6) for one media source: sender reports (6.4.1: the
/// NTP wall clock and the RTP timestamp of the same instant, packet and octet counts) with
/// SDES `CNAME` at the start, about every ``reportInterval`` (randomised as 6.3.1 does) and
/// with the BYE at the end; the receivers' reports and keyframe requests read. It holds no
/// socket: its methods return the compound packets to send (``RTCPSenderChannel`` drives it
/// over UDP).
///
/// A keyframe request is an event for the source of the stream: a file cannot make a
/// keyframe, an encoder can (`EncoderSession.requestKeyframe()` in NALUEncoder).
public final class RTCPSenderSession {
    /// The media source's SSRC (the RTP packets').
    public let ssrc: UInt32
    /// Its `CNAME` (RFC 3550 6.5.1).
    public let canonicalName: String
    /// The RTP clock rate (90 000 for video).
    public let clockRate: Int64
    /// The mean interval between sender reports in nanoseconds (RFC 3550 6.2: 5 s minimum).
    public var reportInterval: Int64 = 5_000_000_000

    /// What was sent and read.
    public private(set) var counts = RTCPSenderCounts()
    /// The latest report block about this sender from each receiver (by the receiver's SSRC).
    public private(set) var receptionReports: [UInt32: RTCPReportBlock] = [:]
    /// The latest round-trip time to each receiver in nanoseconds (RFC 3550 6.4.1: arrival of
    /// its report − `LSR` − `DLSR`), when its report echoed one of our SRs.
    public private(set) var roundTrips: [UInt32: Int64] = [:]
    /// Why RTCP datagrams could not be read (at most 20).
    public private(set) var notes: [String] = []

    private var packets: UInt32 = 0
    private var octets: UInt32 = 0
    private var clock: (rtpTimestamp: UInt32, monotonic: Int64)?
    private var nextReport: Int64?
    private var lastFIR: [UInt32: UInt8] = [:]

    public init(ssrc: UInt32, canonicalName: String = RTCPReceiverSession.randomCanonicalName(), clockRate: Int64 = 90_000) {
        self.ssrc = ssrc
        self.canonicalName = canonicalName
        self.clockRate = max(1, clockRate)
    }

    /// Sets the media clock: RTP timestamp `rtpTimestamp` is the instant `monotonic`
    /// nanoseconds; the RTP clock runs at ``clockRate`` from there (the SR's RTP timestamp is
    /// read from it).
    public func setClock(rtpTimestamp: UInt32, at monotonic: Int64) {
        clock = (rtpTimestamp, monotonic)
    }

    /// Counts a packet sent: `payloadBytes` octets of payload (RFC 3550 6.4.1: headers and
    /// padding not counted).
    public func packetSent(payloadBytes: Int) {
        packets &+= 1
        octets &+= UInt32(truncatingIfNeeded: max(0, payloadBytes))
    }

    /// The SR + SDES due at `now` (monotonic nanoseconds; `wallClock` the same instant), if one
    /// is: the first at once, then every interval.
    public func reportIfDue(now: Int64, wallClock: NTPTimestamp) -> [UInt8]? {
        if let due = nextReport, now < due { return nil }
        nextReport = now + nextInterval()
        return compound(now: now, wallClock: wallClock, adding: []).bytes
    }

    /// The last compound packet: SR, SDES and BYE (RFC 3550 6.6).
    public func goodbye(now: Int64, wallClock: NTPTimestamp) -> [UInt8] {
        compound(now: now, wallClock: wallClock, adding: [.goodbye(RTCPGoodbye(sources: [ssrc]))]).bytes
    }

    /// Reads a receiver's RTCP datagram, arrived at `wallClock`: its report block on this
    /// sender is kept (with the round trip), its PLIs and new FIRs for this sender returned. A datagram that cannot be read is counted and noted.
    public func controlReceived(_ datagram: [UInt8], wallClock: NTPTimestamp = NTPTimestamp.now()) -> [RTCPKeyframeRequestEvent] {
        let compound: RTCPCompoundPacket
        do {
            compound = try RTCPCompoundPacket(parsing: datagram)
        } catch {
            counts.malformed += 1
            if notes.count < 20 { notes.append("RTCP: \(error)") }
            return []
        }
        var requests: [RTCPKeyframeRequestEvent] = []
        for packet in compound.packets {
            switch packet {
            case .receiverReport(let report):
                keep(report.reports, from: report.ssrc, arrival: wallClock)
            case .senderReport(let report):
                keep(report.reports, from: report.ssrc, arrival: wallClock)
            case .goodbye(let goodbye) where !goodbye.sources.contains(ssrc):
                counts.goodbyes += 1
            case .feedback(let feedback):
                switch feedback.message {
                case .pictureLossIndication where feedback.mediaSSRC == ssrc:
                    counts.pictureLossIndications += 1
                    requests.append(RTCPKeyframeRequestEvent(receiver: feedback.senderSSRC, kind: .pictureLossIndication, sequenceNumber: nil))
                case .fullIntraRequest(let entries):
                    // RFC 5104 4.3.1.2: a repeated sequence number is a retransmission of the same request.
                    for entry in entries where entry.ssrc == ssrc && lastFIR[feedback.senderSSRC] != entry.sequenceNumber {
                        lastFIR[feedback.senderSSRC] = entry.sequenceNumber
                        counts.fullIntraRequests += 1
                        requests.append(RTCPKeyframeRequestEvent(receiver: feedback.senderSSRC, kind: .fullIntraRequest,
                                                                 sequenceNumber: entry.sequenceNumber))
                    }
                case .genericNACK where feedback.mediaSSRC == ssrc:
                    counts.negativeAcknowledgements += 1
                default:
                    continue
                }
            default:
                continue
            }
        }
        return requests
    }

    private func keep(_ blocks: [RTCPReportBlock], from receiver: UInt32, arrival: NTPTimestamp) {
        for block in blocks where block.ssrc == ssrc {
            counts.receptionReports += 1
            receptionReports[receiver] = block
            if block.lastSenderReport != 0 {
                // In units of 1/65 536 s, modulo 2^32; a negative difference (clocks) is no measure.
                let units = Int32(bitPattern: arrival.middle32 &- block.lastSenderReport &- block.delaySinceLastSenderReport)
                if units >= 0 { roundTrips[receiver] = Int64(units) * 1_000_000_000 >> 16 }
            }
        }
    }

    private func compound(now: Int64, wallClock: NTPTimestamp, adding extra: [RTCPPacket]) -> RTCPCompoundPacket {
        counts.senderReports += 1
        var rtp: UInt32 = 0
        if let clock {
            let elapsed = now - clock.monotonic
            let (seconds, rest) = elapsed.quotientAndRemainder(dividingBy: 1_000_000_000)
            rtp = clock.rtpTimestamp &+ UInt32(truncatingIfNeeded: seconds &* clockRate &+ rest * clockRate / 1_000_000_000)
        }
        let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: wallClock, rtpTimestamp: rtp, packetCount: packets, octetCount: octets)
        return RTCPCompoundPacket(packets: [.senderReport(report), .sourceDescription(RTCPSourceDescription(ssrc: ssrc, canonicalName: canonicalName))] + extra)
    }

    /// RFC 3550 6.3.1 simplified, as ``RTCPReceiverSession`` does it.
    private func nextInterval() -> Int64 {
        CheckedNumber.int64(Double(reportInterval) * Double.random(in: 0.5...1.5) / 1.21828) ?? reportInterval
    }
}
