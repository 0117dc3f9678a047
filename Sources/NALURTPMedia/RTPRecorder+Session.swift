public import NALU
import NALUIO
public import NALURTP

extension RTPRecorder {
    /// The session's AAC stream when it can be recorded: its payload format is read
    /// (``NALURTP/RTPAACPayloadFormat/init(description:)``), and `videoOnly` is not set. A
    /// recorder made with it (`audio:`) records it beside the video; otherwise it stays among the
    /// media not received (``mediaNotReceived(_:audio:)``).
    public static func receivableAudio(_ description: SessionDescription, videoOnly: Bool) -> RTPAACDescription? {
        RTSPRecording.recordedAudio(description, videoOnly: videoOnly)?.description
    }

    /// The `m=` lines of `description` not received when `audio` is (the AAC stream's line left
    /// out), with why for an AAC stream whose mode is not read.
    public static func mediaNotReceived(_ description: SessionDescription, audio: RTPAACDescription?) -> [String] {
        let line = audio.flatMap { _ in RTSPRecording.aacLine(description) }
        return RTSPRecording.mediaNotRecorded(description, audio: audio.flatMap { stream in line.map { (stream, $0) } })
    }

    /// Receives on UDP the session the SDP file at `sdpFile` describes (`description`, parsed
    /// from it): the video on its port, and, when the recorder takes the AAC stream
    /// (``audioReceiver``), the audio on its own. With `rtcp`, each stream's RTCP runs on its
    /// `a=rtcp` port or the RTP port + 1 (RFC 3550 11, RFC 3605): receiver reports and keyframe
    /// requests sent, the senders' BYEs end the reception, and their sender reports place the
    /// audio against the video (RFC 3550 6.4.1; the audio is held until both streams' reports
    /// came). Without RTCP the audio's place is not known: its first access unit goes with the
    /// first picture, and ``losses(unparsed:otherMedia:)`` says so.
    /// - Parameter address: the address to listen on; `nil`: the SDP's.
    /// - Throws: the sockets' ``NALU/NALUError`` (`.io`), reading `sdpFile`'s, and the output's.
    public func receive(session description: SessionDescription, sdpFile: String, address: String? = nil, rtcp: Bool = true,
                        limits: RTPReceptionLimits, shouldStop: () -> Bool = { false }) throws(NALUError) -> RTPReceptionReport {
        do {
            let host = address ?? description.address
            let video = UDPEndpoint(address: host, port: description.video.port)
            let text = rtcp ? String(decoding: try FileSource.readWhole(path: sdpFile, limit: SessionDescription.maxSize), as: UTF8.self) : ""
            let videoRTCP = RTCPDescription(sdp: text, video: description.video)
            let control = try rtcp ? channel(host, videoRTCP, RTCPReceiverSession(keyframeRequest: videoRTCP.keyframeRequest)) : nil
            guard audioReceiver != nil, let audio = description.audio else {
                if let control { return try receive(on: video, control: control, limits: limits, shouldStop: shouldStop) }
                return try receive(on: video, limits: limits, shouldStop: shouldStop)
            }
            let audioControl = try control.map { control in
                try channel(host, RTCPDescription(sdp: text, audio: audio),
                            RTCPReceiverSession(canonicalName: control.session.canonicalName, clockRate: Int64(audio.sampleRate)))
            }
            output.holdsAudioUntilAligned = audioControl != nil
            return try receive(video: UDPSocket(bindingTo: video), audio: UDPSocket(bindingTo: UDPEndpoint(address: host, port: audio.port)),
                               control: control, audioControl: audioControl, limits: limits, shouldStop: shouldStop)
        } catch {
            throw NALUError.converting(error, field: "RTP")
        }
    }

    /// An RTCP channel on `host` at the port `description` gives.
    private func channel(_ host: String, _ description: RTCPDescription, _ session: RTCPReceiverSession) throws -> RTCPReceiverChannel {
        RTCPReceiverChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: host, port: description.port)), session: session)
    }
}
