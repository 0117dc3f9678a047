public import NALU
public import NALURTP

extension RTPStreamTransmitter {
    /// The RTCP sender channels (RFC 3550 6) for streams sent to `destination`: the video's on
    /// its port + 1 with SSRC `ssrc`, and, when an AAC stream is attached (its RTP port: the
    /// video's + 2), the audio's on that port + 1 with SSRC `ssrc ^ 1` at the AAC sampling rate.
    /// Both share one CNAME (RFC 3550 6.5.1: a receiver synchronises the streams of one CNAME).
    /// Each channel sends from a UDP port the system picks. `nil` for a stream whose RTCP port
    /// would be past 65535.
    /// - Throws: `NALUError` when a socket cannot be opened.
    public func senderChannels(to destination: UDPEndpoint, ssrc: UInt32) throws(NALUError) -> (video: RTCPSenderChannel?, audio: RTCPSenderChannel?) {
        guard destination.port < UInt16.max else { return (nil, nil) }
        let video = RTCPSenderChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: 0)),
                                      destination: UDPEndpoint(address: destination.address, port: destination.port + 1),
                                      session: RTCPSenderSession(ssrc: ssrc))
        guard let rate = audioClockRate, destination.port <= UInt16.max - 3 else { return (video, nil) }
        let audio = RTCPSenderChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: 0)),
                                      destination: UDPEndpoint(address: destination.address, port: destination.port + 3),
                                      session: RTCPSenderSession(ssrc: ssrc ^ 1, canonicalName: video.session.canonicalName, clockRate: Int64(rate)))
        return (video, audio)
    }
}
