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
}
