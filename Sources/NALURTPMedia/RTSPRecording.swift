public import NALU
public import NALUPackager
public import NALURTP

/// How RTP comes from an RTSP server (RFC 2326 12.39 `Transport`).
public enum RTSPTransport: String, Sendable, CaseIterable {
    /// Interleaved on the RTSP connection (`RTP/AVP/TCP;interleaved=0-1`, RFC 2326 10.12).
    case tcp
    /// UDP to a local port (`RTP/AVP;unicast;client_port=…`).
    case udp
}

/// What ``RTSPRecording/record(url:to:transport:limits:videoOnly:liveHLS:shouldStop:)`` does.
public struct RTSPRecordingResult {
    /// The session description the server gave.
    public var description: SessionDescription
    /// Why the reception ended.
    public var end: RTPReceptionEnd
    /// What was lost (``RTPRecorder/losses(unparsed:otherMedia:)``); empty: nothing.
    public var losses: [String]
    /// The receiver's statistics line.
    public var summary: String
    /// Malformed packets (at most 20).
    public var notes: [String]
}

/// Records an RTSP server's video and AAC audio to a file: OPTIONS, DESCRIBE, SETUP of each
/// stream (TCP interleaved on channels 0-1 and 2-3, or UDP), PLAY (its `RTP-Info` places the
/// audio against the video), GET_PARAMETER keep-alives at half the session timeout, TEARDOWN at
/// the end (a limit, or `shouldStop`, e.g. a signal), then the file finished (``RTPRecorder``).
public enum RTSPRecording {
    /// Records the video of `url` into `path` (`.mp4`/`.mov`: MP4 with the times and the AAC
    /// stream, RFC 3640; `.ts`/`.m2ts`: MPEG-TS with both; else Annex-B), or, with `liveHLS`,
    /// into a live HLS package in the folder `path` (``RTPRecordingOutput``).
    /// - Parameters:
    ///   - videoOnly: records the video alone (no other stream is set up); without it, the AAC
    ///     stream is recorded too and other streams are reported in ``RTSPRecordingResult/losses``.
    /// - Throws: the client's `NALUError`s; `.missing` (field `RTSP`) when no packet came within
    ///   `limits.wait`.
    public static func record(url: RTSPURL, to path: String, transport: RTSPTransport, limits: RTPReceptionLimits,
                              videoOnly: Bool, liveHLS: PackagerOptions? = nil, shouldStop: () -> Bool = { false }) throws(NALUError) -> RTSPRecordingResult {
        do {
            let client = try RTSPClient(url: url)
            _ = try? client.options()
            let (sdp, base) = try client.describe()
            let description = try SessionDescription(parsing: sdp)
            let controls = SDPControls(text: sdp)
            let videoLine = "m=video"
            let control = base.resolving(controls.control(ofFirst: videoLine) ?? "")
            let audio = Self.recordedAudio(description, videoOnly: videoOnly)
            let recorder = try RTPRecorder(video: description.video, path: path, audio: audio?.description, liveHLS: liveHLS)
            let rtcp = RTCPReceiverSession(keyframeRequest: RTCPDescription(sdp: sdp, video: description.video).keyframeRequest)
            recorder.rtcp = rtcp
            var socket: UDPSocket?
            var rtcpChannel: RTCPReceiverChannel?
            var audioSocket: UDPSocket?
            // The audio's RTCP: its SRs place it against the video when RTP-Info does not, its BYE ends it.
            let audioRTCP = audio.map { RTCPReceiverSession(canonicalName: rtcp.canonicalName, clockRate: Int64($0.description.sampleRate)) }
            var audioRTCPChannel: RTCPReceiverChannel?
            let audioControl = audio.map { _ in base.resolving(controls.control(ofFirst: "m=audio") ?? "") }
            switch transport {
            case .tcp:
                _ = try client.setup(control, transport: "RTP/AVP/TCP;unicast;interleaved=0-1")
                if let audioControl { _ = try client.setup(audioControl, transport: "RTP/AVP/TCP;unicast;interleaved=2-3") }
            case .udp:
                let video = try Self.setupUDP(client: client, control: control)
                socket = video.rtp
                rtcpChannel = RTCPReceiverChannel(socket: video.rtcp, session: rtcp)
                if let audioControl, let audioRTCP {
                    let (rtp, control) = try Self.setupUDP(client: client, control: audioControl)
                    audioSocket = rtp
                    audioRTCPChannel = RTCPReceiverChannel(socket: control, session: audioRTCP)
                }
            }
            let played = try client.play()
            if let audio, let audioControl {
                recorder.output.alignment = Self.alignment(played, video: control, audio: audioControl, clockRate: audio.description.sampleRate)
                // Without RTP-Info, the two streams' RTCP sender reports place the audio.
                recorder.output.holdsAudioUntilAligned = recorder.output.alignment == nil
            }
            let keepAlive = Int64(max(1, client.sessionTimeout / 2)) * 1_000_000_000
            var lastKeepAlive = MonotonicClock.now()
            let sendKeepAlive = { () throws -> Void in
                let now = MonotonicClock.now()
                if now - lastKeepAlive >= keepAlive {
                    lastKeepAlive = now
                    try client.sendKeepAlive()
                }
            }
            let report: RTPReceptionReport
            if let socket, let audioSocket {
                report = try recorder.receive(video: socket, audio: audioSocket, control: rtcpChannel, audioControl: audioRTCPChannel,
                                              limits: limits, shouldStop: shouldStop) {
                    try sendKeepAlive()
                    // Answers to the keep-alives: read and dropped.
                    _ = try? client.nextFrame(timeoutMilliseconds: 0)
                }
            } else if let socket {
                var failure: (any Error)?
                report = try RTPReception.receive(from: socket, into: &recorder.receiver, limits: limits, control: rtcpChannel, shouldStop: {
                    do { try sendKeepAlive() } catch { failure = error; return true }
                    // Answers to the keep-alives: read and dropped.
                    _ = try? client.nextFrame(timeoutMilliseconds: 0)
                    return shouldStop()
                }, handle: recorder.handle)
                if let failure { throw failure }
            } else {
                report = try receiveInterleaved(client: client, recorder: recorder, rtcp: rtcp, audioRTCP: audioRTCP, limits: limits,
                                                shouldStop: shouldStop, keepAlive: sendKeepAlive)
            }
            try? client.teardown()
            if report.end == .noPacket {
                throw NALUError(.missing, field: "RTSP", detail: "no RTP packet came from \(url) within \(limits.wait / 1_000_000_000) s")
            }
            try recorder.finish()
            let others = videoOnly ? [] : Self.mediaNotRecorded(description, audio: audio)
            return RTSPRecordingResult(description: description, end: report.end,
                                       losses: recorder.losses(unparsed: report.unparsed, otherMedia: others),
                                       summary: recorder.summary, notes: recorder.notes + recorder.output.packagerNotes)
        } catch {
            throw NALUError.converting(error, field: "RTSP")
        }
    }

    /// The reception loop of interleaved TCP: channel 0 is the video's RTP, 1 its RTCP, 2 and 3
    /// the audio's RTP and RTCP (`audioRTCP`: the audio's SRs and BYE read).
    private static func receiveInterleaved(client: RTSPClient, recorder: RTPRecorder, rtcp: RTCPReceiverSession, audioRTCP: RTCPReceiverSession?,
                                           limits: RTPReceptionLimits, shouldStop: () -> Bool,
                                           keepAlive: () throws -> Void) throws -> RTPReceptionReport {
        // RTCP on channel 1 (RFC 2326 10.12): receiver reports and keyframe requests sent there;
        // a failure to send is not the recording's.
        let sendControl = { (bytes: [UInt8]?) in if let bytes { try? client.sendInterleaved(channel: 1, bytes) } }
        defer { sendControl(rtcp.goodbye(now: MonotonicClock.now())) }
        var timer = RTPReceptionTimer(limits: limits)
        var unparsed = 0
        var end = RTPReceptionEnd.stopped
        while true {
            if shouldStop() { end = .stopped; break }
            let now = MonotonicClock.now()
            if let limit = timer.end(at: now) { end = limit; break }
            try keepAlive()
            sendControl(rtcp.reportIfDue(now: MonotonicClock.now()))
            let next = Result { () throws(NALUError) -> RTSPInterleavedFrame? in try client.nextFrame(timeoutMilliseconds: 20) }
            if case .failure(let error) = next, timer.started, error.code == .io {
                // The server ended the session (closed the connection): what came is recorded.
                end = .endOfFile
                break
            }
            let frame = try next.get()
            guard let frame else {
                try recorder.handle(recorder.receiver.advance(to: MonotonicClock.now()))
                try recorder.advanceAudio(to: MonotonicClock.now())
                continue
            }
            guard frame.channel == 0 else {
                if frame.channel == 1 {
                    rtcp.controlReceived(frame.payload, arrival: MonotonicClock.now())
                    if let clock = rtcp.senderClock { recorder.receiver.senderClock = clock }
                } else if frame.channel == 3, let audioRTCP {
                    audioRTCP.controlReceived(frame.payload, arrival: MonotonicClock.now())
                    try recorder.alignBySenderReports(video: rtcp, audio: audioRTCP)
                }
                // RTCP BYE (RFC 3550 6.6) on the RTCP channels: the sources left, the streams ended.
                if frame.channel == 1 || frame.channel == 3, timer.started, rtcp.goodbyeReceived,
                   audioRTCP.map({ $0.goodbyeReceived }) ?? true || recorder.audioReceiver == nil {
                    end = .endOfFile
                    break
                }
                if frame.channel == 2, recorder.audioReceiver != nil {
                    let arrival = MonotonicClock.now()
                    timer.arrived(at: arrival)
                    if let packet = try? RTPPacket(parsing: frame.payload) {
                        audioRTCP?.packetReceived(packet, arrival: arrival)
                        try recorder.receiveAudio(packet, arrival: arrival)
                    } else {
                        unparsed += 1
                    }
                }
                continue
            }
            let arrival = MonotonicClock.now()
            timer.arrived(at: arrival)
            guard let packet = try? RTPPacket(parsing: frame.payload) else {
                unparsed += 1
                continue
            }
            rtcp.packetReceived(packet, arrival: arrival)
            let events = recorder.receiver.receive(packet, arrival: arrival)
            sendControl(rtcp.keyframeRequest(for: events, now: arrival))
            try recorder.handle(events)
        }
        try recorder.handle(recorder.receiver.finish())
        return RTPReceptionReport(end: end, unparsed: unparsed, partialRecords: 0)
    }
}

extension RTSPRecording {
    /// A UDP socket on an even port and one on the next (RTP and RTCP, RFC 3550 11), the
    /// system picking the ports (at most 20 tries).
    static func bindPortPair() throws(NALUError) -> (rtp: UDPSocket, rtcp: UDPSocket) {
        for _ in 0..<20 {
            let probe = try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: 0))
            guard let port = probe.localPort, port > 1, port < UInt16.max else { continue }
            if port % 2 == 0 {
                if let rtcp = try? UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: port + 1)) { return (probe, rtcp) }
            } else if let rtp = try? UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: port - 1)) {
                return (rtp, probe)
            }
        }
        throw NALUError(.io, field: "UDP socket", detail: "no free pair of ports for RTP and RTCP")
    }
}

/// The `a=control` attribute of each `m=` section of an SDP (RFC 2326 C.1.1).
struct SDPControls {
    private var sections: [(media: String, control: String?)] = []

    init(text: String) {
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).prefix(4096) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.hasPrefix("m=") {
                sections.append((String(line), nil))
            } else if line.hasPrefix("a=control:"), !sections.isEmpty {
                sections[sections.count - 1].control = String(line.dropFirst("a=control:".count))
            }
        }
    }

    /// The control of the first section whose `m=` line starts with `prefix`.
    func control(ofFirst prefix: String) -> String? {
        sections.first { $0.media.hasPrefix(prefix) }?.control
    }
}
