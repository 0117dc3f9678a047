import NALU
public import NALURTP

extension RTPRecorder {
    /// Receives the video on UDP socket `video` and the AAC stream (``audioReceiver``) on
    /// `audio`, until a limit of `limits`, `shouldStop`, or both senders' BYEs (RFC 3550 6.6) with
    /// nothing left to read: the audio's last packets may come after the video's BYE. Each turn
    /// takes every datagram waiting on both sockets, then waits at most 10 ms on the video's.
    ///
    /// - Parameters:
    ///   - control: the video's RTCP (its SRs read, receiver reports and keyframe requests sent).
    ///   - audioControl: the audio's RTCP (its SRs read, receiver reports sent), a session of the
    ///     audio's clock rate. When the output has no ``RTPRecordingOutput/alignment`` yet (no RTSP
    ///     `RTP-Info`), the first pair of sender reports of the two streams gives it (RFC 3550
    ///     6.4.1: both on one wall clock): set ``RTPRecordingOutput/holdsAudioUntilAligned`` so
    ///     the audio waits for them.
    ///   - keepAlive: called every turn (an RTSP session's keep-alive); what it throws ends the
    ///     reception with that error.
    /// - Throws: the sockets' ``NALU/NALUError`` (`.io`), the output's errors, and `keepAlive`'s as
    ///   it threw it: untyped (`any Error`) for that, as ``RTPStreamTransmitter/transmit(_:)`` is.
    public func receive(video: UDPSocket, audio: UDPSocket, control: RTCPReceiverChannel?, audioControl: RTCPReceiverChannel?,
                        limits: RTPReceptionLimits, shouldStop: () -> Bool = { false },
                        keepAlive: () throws -> Void = {}) throws -> RTPReceptionReport {
        rtcp = control?.session
        var timer = RTPReceptionTimer(limits: limits)
        var unparsed = 0
        var end = RTPReceptionEnd.stopped
        func receiveVideo(_ packet: RTPPacket, arrival: Int64) throws {
            control?.session.packetReceived(packet, arrival: arrival)
            let events = receiver.receive(packet, arrival: arrival)
            control?.handle(events, now: arrival)
            try handle(events)
        }
        func take(_ datagram: [UInt8], isAudio: Bool) throws {
            let arrival = MonotonicClock.now()
            timer.arrived(at: arrival)
            guard let packet = try? RTPPacket(parsing: datagram) else {
                unparsed += 1
                return
            }
            if isAudio {
                audioControl?.session.packetReceived(packet, arrival: arrival)
                try receiveAudio(packet, arrival: arrival)
            } else {
                try receiveVideo(packet, arrival: arrival)
            }
        }
        while true {
            if shouldStop() { end = .stopped; break }
            let now = MonotonicClock.now()
            if let limit = timer.end(at: now) { end = limit; break }
            try keepAlive()
            control?.poll(now: now, receiver: &receiver)
            audioControl?.poll(now: now)
            try alignBySenderReports(video: control?.session, audio: audioControl?.session)
            var received = false
            for (socket, isAudio) in [(video, false), (audio, true)] {
                // At most 256 datagrams of one socket a turn, so the other is not starved.
                for _ in 0..<256 {
                    guard let datagram = try socket.receive(timeoutMilliseconds: 0) else { break }
                    received = true
                    try take(datagram, isAudio: isAudio)
                }
            }
            if !received, timer.started, let control, control.session.goodbyeReceived,
               audioControl.map({ $0.session.goodbyeReceived }) ?? true {
                end = .goodbye
                break
            }
            if !received {
                if let datagram = try video.receive(timeoutMilliseconds: 10) {
                    try take(datagram, isAudio: false)
                } else {
                    let now = MonotonicClock.now()
                    let events = receiver.advance(to: now)
                    control?.handle(events, now: now)
                    try handle(events)
                    try advanceAudio(to: now)
                }
            }
        }
        let remaining = receiver.finish()
        control?.handle(remaining, now: MonotonicClock.now())
        try handle(remaining)
        control?.finish(now: MonotonicClock.now())
        audioControl?.finish(now: MonotonicClock.now())
        try finishAudio()
        for text in (control?.notes ?? []) + (audioControl?.notes ?? []) { note(text) }
        return RTPReceptionReport(end: end, unparsed: unparsed, partialRecords: 0)
    }

    /// Gives the output its alignment from the two streams' latest sender reports (RFC 3550
    /// 6.4.1), when it has none yet and both have come.
    func alignBySenderReports(video: RTCPReceiverSession?, audio: RTCPReceiverSession?) throws {
        guard output.alignment == nil, let videoClock = video?.senderClock, let audioClock = audio?.senderClock,
              let alignment = RTPStreamAlignment(video: videoClock, audio: audioClock) else { return }
        try output.align(alignment)
    }
}
