import NALU
import NALURTP

extension RTSPRecording {
    /// The AAC stream recorded with the video, and its `m=` line: the session's, unless
    /// `videoOnly` or its mode is not read (then it stays among the media not recorded).
    static func recordedAudio(_ description: SessionDescription, videoOnly: Bool) -> (description: RTPAACDescription, line: String)? {
        guard !videoOnly, let audio = description.audio, (try? RTPAACPayloadFormat(description: audio)) != nil else { return nil }
        return aacLine(description).map { (audio, $0) }
    }

    /// The `m=` lines not recorded: the other streams, and the AAC stream when it is not
    /// (with why, when its mode is not read).
    static func mediaNotRecorded(_ description: SessionDescription, audio: (description: RTPAACDescription, line: String)?) -> [String] {
        let aac = aacLine(description)
        return description.otherMedia.compactMap { line in
            if line == audio?.line { return nil }
            if line == aac, let stream = description.audio {
                do {
                    _ = try RTPAACPayloadFormat(description: stream)
                } catch {
                    return line + " (\(error))"
                }
            }
            return line
        }
    }

    /// The `m=audio` line of the session's AAC stream: its payload type among the line's formats.
    static func aacLine(_ description: SessionDescription) -> String? {
        guard let audio = description.audio else { return nil }
        return description.otherMedia.first { line in
            let fields = line.split(separator: " ")
            return line.hasPrefix("m=audio ") && fields.dropFirst(3).contains { UInt8($0) == audio.payloadType }
        }
    }

    /// SETUP of `control` to a pair of UDP ports the system picks: RTP on the even one, RTCP on
    /// the next (RFC 3550 11, ``bindPortPair()``).
    static func setupUDP(client: RTSPClient, control: String) throws -> (rtp: UDPSocket, rtcp: UDPSocket) {
        let (bound, rtcpSocket) = try bindPortPair()
        guard let port = bound.localPort else { throw NALUError(.io, field: "UDP socket", detail: "no local port") }
        _ = try client.setup(control, transport: "RTP/AVP;unicast;client_port=\(port)-\(UInt32(port) + 1)")
        return (bound, rtcpSocket)
    }

    /// The streams' alignment from the PLAY response's `RTP-Info` (RFC 2326 12.33): both
    /// streams' `rtptime` at the start of the range, or `nil` when one is missing.
    static func alignment(_ response: RTSPResponse, video: String, audio: String, clockRate: Int) -> RTPStreamAlignment? {
        let entries = RTSPRTPInfo.parse(response.header("RTP-Info") ?? "")
        guard let videoTime = RTSPRTPInfo.entry(for: video, in: entries)?.rtpTime,
              let audioTime = RTSPRTPInfo.entry(for: audio, in: entries)?.rtpTime else { return nil }
        return RTPStreamAlignment(videoRTPTime: videoTime, audioRTPTime: audioTime, audioClockRate: clockRate)
    }

    /// The reception loop over two UDP sockets (video, audio): until a limit, `shouldStop`,
    /// or the keep-alive fails. Each turn takes every datagram waiting on both, then waits at
    /// most 10 ms on the video's. `control`: the video's RTCP (its SRs read, receiver reports
    /// and keyframe requests sent); `audioControl`: the audio's RTCP port, read for its BYE. The
    /// reception ends when both streams' BYEs came (RFC 3550 6.6) and nothing is left to read:
    /// the audio's last packets may come after the video's BYE.
    static func receiveUDP(video: UDPSocket, audio: UDPSocket, control: RTCPReceiverChannel?, audioControl: UDPSocket?, client: RTSPClient,
                           recorder: RTPRecorder, limits: RTPReceptionLimits, shouldStop: () -> Bool,
                           keepAlive: () throws -> Void) throws -> RTPReceptionReport {
        var timer = RTPReceptionTimer(limits: limits)
        var unparsed = 0
        var end = RTPReceptionEnd.stopped
        var audioGoodbye = false
        func receiveVideo(_ packet: RTPPacket, arrival: Int64) throws {
            control?.session.packetReceived(packet, arrival: arrival)
            let events = recorder.receiver.receive(packet, arrival: arrival)
            control?.handle(events, now: arrival)
            try recorder.handle(events)
        }
        while true {
            if shouldStop() { end = .stopped; break }
            let now = MonotonicClock.now()
            if let limit = timer.end(at: now) { end = limit; break }
            try keepAlive()
            control?.poll(now: now, receiver: &recorder.receiver)
            for _ in 0..<16 {
                guard let datagram = try? audioControl?.receive(timeoutMilliseconds: 0) else { break }
                if hasBye(datagram) { audioGoodbye = true }
            }
            // Answers to the keep-alives: read and dropped.
            _ = try? client.nextFrame(timeoutMilliseconds: 0)
            var received = false
            for (socket, isAudio) in [(video, false), (audio, true)] {
                // At most 256 datagrams of one socket a turn, so the other is not starved.
                for _ in 0..<256 {
                    guard let datagram = try socket.receive(timeoutMilliseconds: 0) else { break }
                    received = true
                    let arrival = MonotonicClock.now()
                    timer.arrived(at: arrival)
                    guard let packet = try? RTPPacket(parsing: datagram) else {
                        unparsed += 1
                        continue
                    }
                    if isAudio {
                        try recorder.receiveAudio(packet, arrival: arrival)
                    } else {
                        try receiveVideo(packet, arrival: arrival)
                    }
                }
            }
            if !received, timer.started, let control, control.session.goodbyeReceived, audioGoodbye || audioControl == nil {
                end = .goodbye
                break
            }
            if !received {
                if let datagram = try video.receive(timeoutMilliseconds: 10) {
                    let arrival = MonotonicClock.now()
                    timer.arrived(at: arrival)
                    if let packet = try? RTPPacket(parsing: datagram) {
                        try receiveVideo(packet, arrival: arrival)
                    } else {
                        unparsed += 1
                    }
                } else {
                    let events = recorder.receiver.advance(to: MonotonicClock.now())
                    control?.handle(events, now: MonotonicClock.now())
                    try recorder.handle(events)
                    try recorder.advanceAudio(to: MonotonicClock.now())
                }
            }
        }
        let remaining = recorder.receiver.finish()
        control?.handle(remaining, now: MonotonicClock.now())
        try recorder.handle(remaining)
        control?.finish(now: MonotonicClock.now())
        try recorder.finishAudio()
        return RTPReceptionReport(end: end, unparsed: unparsed, partialRecords: 0)
    }
}
