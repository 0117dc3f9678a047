import Testing
import NALU
import NALURTP

/// RFC 3550 appendix A: sequence numbers extended over wrap-arounds (A.1), expected/lost and
/// the fraction lost (A.3), interarrival jitter (A.8, against the floating-point recursion of
/// 6.4.1), the NTP ↔ RTP mapping of a sender report (6.4.1), and the receiver session's RR,
/// PLI/FIR and BYE.
@Suite struct RTCPStatisticsTests {
    static func packet(_ sequence: UInt16, _ timestamp: UInt32, ssrc: UInt32 = 0x1234) -> RTPPacket {
        RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc, payload: [0x65])
    }

    @Test func countsLossAcrossTheWrapAround() {
        // 65530 … 65535, 0 … 9 with 65534, 2 and 3 dropped: 16 expected, 13 received.
        let sent = (0..<16).map { UInt16(truncatingIfNeeded: 65_530 + $0) }
        let dropped: Set<UInt16> = [65_534, 2, 3]
        var statistics: RTPSourceStatistics?
        for (index, sequence) in sent.enumerated() where !dropped.contains(sequence) {
            let p = Self.packet(sequence, UInt32(index * 3000))
            if statistics == nil { statistics = RTPSourceStatistics(first: p, arrival: 0) } else { statistics?.update(p, arrival: Int64(index) * 33_333_333) }
        }
        guard var stats = statistics else { Issue.record("no statistics"); return }
        #expect(stats.extendedHighestSequenceNumber == 65_536 + 9)
        #expect(stats.expected == 16 && stats.received == 13 && stats.lost == 3)
        let block = stats.reportBlock(lastSenderReport: nil, now: 0)
        // A.3: 3 lost of 16 expected in the interval: (3 << 8) / 16 = 48.
        #expect(block.fractionLost == 48 && block.cumulativeLost == 3)
        #expect(block.lastSenderReport == 0 && block.delaySinceLastSenderReport == 0)
        // The next interval lost nothing.
        stats.update(Self.packet(10, 16 * 3000), arrival: 16 * 33_333_333)
        #expect(stats.reportBlock(lastSenderReport: nil, now: 0).fractionLost == 0)
    }

    @Test func duplicatesMakeTheLossNegativeAndAJumpIsARestartOnlyWhenConfirmed() {
        var stats = RTPSourceStatistics(first: Self.packet(100, 0), arrival: 0)
        stats.update(Self.packet(101, 0), arrival: 0)
        stats.update(Self.packet(101, 0), arrival: 0)
        #expect(stats.lost == -1)
        // 40000 is far: discarded once, then a restart when 40001 follows.
        let far = stats.update(Self.packet(40_000, 0), arrival: 0)
        #expect(!far)
        #expect(stats.discarded == 1 && stats.expected == 2)
        let next = stats.update(Self.packet(40_001, 0), arrival: 0)
        #expect(next)
        #expect(stats.expected == 1 && stats.received == 1)
    }

    @Test func jitterFollowsTheRecursionOfA8() {
        // Packets 40 ms apart on the RTP clock (3600 ticks) arriving with a delay varying
        // pseudo-randomly in 0…20 ms.
        var generator = RTPTestSupport.Generator(state: 42)
        var stats: RTPSourceStatistics?
        var reference = 0.0
        var previousTransit: Double?
        for index in 0..<500 {
            let delay = Int64(generator.next() % 20_000_000)
            let arrival = Int64(index) * 40_000_000 + delay
            let p = Self.packet(UInt16(index), UInt32(index * 3600))
            if stats == nil { stats = RTPSourceStatistics(first: p, arrival: arrival) } else { stats?.update(p, arrival: arrival) }
            let transit = Double(arrival) * 90_000 / 1e9 - Double(index * 3600)
            if let previousTransit { reference += (abs(transit - previousTransit) - reference) / 16 }
            previousTransit = transit
        }
        // Uniform 0…20 ms: mean |D| = 20/3 ms = 600 ticks.
        let jitter = Double(stats?.jitter ?? 0)
        #expect(abs(jitter - reference) <= 2, "jitter \(jitter), A.8 in floating point \(reference)")
        #expect(jitter > 300 && jitter < 900)
    }

    @Test func senderReportMapsRTPTimeToWallClockAcrossTheWrap() throws {
        let ntp = try #require(NTPTimestamp(unixNanoseconds: 1_800_000_000_000_000_000))
        let clock = RTCPSenderClock(ntpTimestamp: ntp, rtpTimestamp: UInt32.max - 899)
        // 900 ticks before the wrap and 2700 after: 3600 ticks = 40 ms later.
        let later = try #require(clock.wallClock(of: 2700))
        // Within the NTP fraction's resolution (2^-32 s, truncated to nanoseconds).
        #expect(abs(later.unixNanoseconds - ntp.unixNanoseconds - 40_000_000) <= 1)
        let earlier = try #require(clock.wallClock(of: UInt32.max - 899 - 90_000))
        #expect(abs(ntp.unixNanoseconds - earlier.unixNanoseconds - 1_000_000_000) <= 1)
        #expect(ntp.middle32 == UInt32(truncatingIfNeeded: ntp.bits >> 16))
    }

    @Test func receiverSessionReportsRequestsKeyframesAndSaysGoodbye() throws {
        let session = RTCPReceiverSession(ssrc: 0xAAAA, canonicalName: "nalu-test", keyframeRequest: .fullIntraRequest)
        session.packetReceived(Self.packet(1, 0), arrival: 0)
        session.packetReceived(Self.packet(3, 3000), arrival: 33_000_000)
        let sr = RTCPSenderReport(ssrc: 0x1234, ntpTimestamp: NTPTimestamp(seconds: 3_900_000_000, fraction: 0x8000_0000), rtpTimestamp: 0,
                                  packetCount: 3, octetCount: 3)
        session.controlReceived(RTCPCompoundPacket(packets: [.senderReport(sr)]).bytes, arrival: 50_000_000)
        #expect(session.counts.senderReports == 1 && session.senderClock?.rtpTimestamp == 0)
        // Two requests 100 ms apart: the second is within 200 ms and not sent.
        let first = try #require(session.requestKeyframe(now: 100_000_000))
        #expect(session.requestKeyframe(now: 200_000_000) == nil)
        #expect(session.counts.fullIntraRequests == 1 && session.counts.keyframeRequestsSuppressed == 1)
        // Two requests at once (two gaps released together): one FIR, the other counted as not sent.
        #expect(session.keyframeRequest(for: [.keyframeRequest, .droppedAccessUnit(timestamp: 0, reason: "packets of it were lost"), .keyframeRequest],
                                        now: 1_000_000_000) != nil)
        #expect(session.counts.fullIntraRequests == 2 && session.counts.keyframeRequestsSuppressed == 2)
        let compound = try RTCPCompoundPacket(parsing: first)
        #expect(compound.feedback == [RTCPFeedback(senderSSRC: 0xAAAA, mediaSSRC: 0,
                                                   message: .fullIntraRequest([RTCPFullIntraRequest(ssrc: 0x1234, sequenceNumber: 1)]))])
        let block = try #require(compound.reportBlocks.first)
        // 3 expected, 2 received; LSR the middle 32 bits of the SR's NTP; DLSR 50 ms in 1/65536 s.
        #expect(block.cumulativeLost == 1 && block.fractionLost == 85)
        #expect(block.lastSenderReport == sr.ntpTimestamp.middle32 && block.delaySinceLastSenderReport == 3276)
        let bye = try RTCPCompoundPacket(parsing: session.goodbye(now: 1_100_000_000))
        #expect(bye.departedSources == [0xAAAA])
        #expect(bye.packets.contains(.sourceDescription(RTCPSourceDescription(ssrc: 0xAAAA, canonicalName: "nalu-test"))))
        // The sender's BYE.
        session.controlReceived(RTCPCompoundPacket(packets: [.goodbye(RTCPGoodbye(sources: [0x1234]))]).bytes, arrival: 0)
        #expect(session.goodbyeReceived)
    }

    @Test func sdpGivesTheRTCPPortAndTheKeyframeRequest() throws {
        let text = """
        v=0\r
        o=- 0 0 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=audio 6000 RTP/AVP 97\r
        a=rtcp:6009\r
        a=rtpmap:97 MPEG4-GENERIC/48000/2\r
        m=video 5004 RTP/AVPF 96\r
        a=rtpmap:96 H264/90000\r
        a=rtcp:5011 IN IP4 127.0.0.2\r
        a=rtcp-fb:96 ccm fir\r
        a=rtcp-fb:* nack\r
        a=rtcp-fb:98 nack pli\r

        """
        let description = try SessionDescription(parsing: text)
        let rtcp = RTCPDescription(sdp: text, video: description.video)
        #expect(rtcp.port == 5011 && rtcp.address == "127.0.0.2")
        #expect(rtcp.feedback == ["ccm fir", "nack"])
        #expect(rtcp.keyframeRequest == .fullIntraRequest)
        // Without a=rtcp: the RTP port + 1 (RFC 3550 11); with nack pli offered, PLI.
        let plain = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video 5004 RTP/AVPF 96\r\n"
            + "a=rtpmap:96 H264/90000\r\na=rtcp-fb:96 ccm fir\r\na=rtcp-fb:96 nack pli\r\n"
        let other = RTCPDescription(sdp: plain, video: try SessionDescription(parsing: plain).video)
        #expect(other.port == 5005 && other.keyframeRequest == .pictureLossIndication)
    }

    @Test func keyframeRequestsGoToTheAddressTheSendersRTCPCameFrom() throws {
        let sender = try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: 0))
        let socket = try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: 0))
        let port = try #require(socket.localPort)
        let channel = RTCPReceiverChannel(socket: socket)
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264)))
        channel.session.packetReceived(Self.packet(1, 0), arrival: 0)
        // No RTCP from the sender yet: its address is not known, the request is counted, not sent.
        channel.handle([.keyframeRequest], now: 0)
        #expect(channel.unsentKeyframeRequests == 1 && channel.session.counts.pictureLossIndications == 0)
        #expect(channel.notes.contains { $0.contains("1 keyframe request(s) not sent") })
        let sr = RTCPSenderReport(ssrc: 0x1234, ntpTimestamp: NTPTimestamp.now(), rtpTimestamp: 0, packetCount: 1, octetCount: 1)
        try sender.send(RTCPCompoundPacket(packets: [.senderReport(sr)]).bytes, to: UDPEndpoint(address: "127.0.0.1", port: port))
        for _ in 0..<100 where channel.destination == nil {
            channel.poll(now: 0, receiver: &receiver)
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        #expect(channel.destination == UDPEndpoint(address: "127.0.0.1", port: try #require(sender.localPort)))
        #expect(receiver.senderClock == RTCPSenderClock(sr))
        channel.handle([.keyframeRequest], now: 1_000_000_000)
        let reply = try RTCPCompoundPacket(parsing: try #require(try sender.receive(timeoutMilliseconds: 2000)))
        #expect(reply.feedback == [RTCPFeedback(senderSSRC: channel.session.ssrc, mediaSSRC: 0x1234, message: .pictureLossIndication)])
        #expect(reply.reportBlocks.first?.lastSenderReport == sr.ntpTimestamp.middle32)
    }

    @Test func senderReadsReportsKeyframeRequestsAndTheRoundTrip() throws {
        let session = RTCPSenderSession(ssrc: 7)
        session.setClock(rtpTimestamp: 1000, at: 0)
        session.packetSent(payloadBytes: 1200)
        let sent = try RTCPCompoundPacket(parsing: try #require(session.reportIfDue(now: 500_000_000, wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))))
        let sr = try #require(sent.senderReports.first)
        // 0.5 s after the clock's instant on a 90 kHz clock; the packet counted without its header.
        #expect(sr.rtpTimestamp == 1000 + 45_000 && sr.packetCount == 1 && sr.octetCount == 1200)
        #expect(session.reportIfDue(now: 600_000_000, wallClock: sr.ntpTimestamp) == nil)
        // A receiver's RR echoing the SR after holding it 1 s, arriving 1.25 s after it: 250 ms round trip.
        let block = RTCPReportBlock(ssrc: 7, fractionLost: 0, cumulativeLost: 2, extendedHighestSequenceNumber: 10, jitter: 5,
                                    lastSenderReport: sr.ntpTimestamp.middle32, delaySinceLastSenderReport: 65_536)
        let fir = RTCPFeedback(senderSSRC: 9, mediaSSRC: 0, message: .fullIntraRequest([RTCPFullIntraRequest(ssrc: 7, sequenceNumber: 3)]))
        let datagram = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 9, reports: [block])), .feedback(fir)]).bytes
        let requests = session.controlReceived(datagram, wallClock: NTPTimestamp(seconds: 3_900_000_001, fraction: 1 << 30))
        #expect(requests == [RTCPKeyframeRequestEvent(receiver: 9, kind: .fullIntraRequest, sequenceNumber: 3)])
        #expect(session.receptionReports[9] == block)
        #expect(abs((session.roundTrips[9] ?? 0) - 250_000_000) < 100_000)
        // The same FIR again is a retransmission: not a new request.
        #expect(session.controlReceived(datagram).isEmpty && session.counts.fullIntraRequests == 1)
    }
}
