/// What an SDP (RFC 8866) says about the RTCP of one of its streams (the video, or the AAC audio): the port (RFC 3605
/// `a=rtcp:PORT [IN IP4 ADDRESS]`; by default the RTP port + 1, RFC 3550 11) and the feedback
/// the sender accepts (RFC 4585 4.2 `a=rtcp-fb:PT|* …`).
///
/// ```swift
/// let rtcp = RTCPDescription(sdp: text, video: description.video)
/// let socket = try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: rtcp.port))
/// ```
public struct RTCPDescription: Sendable, Hashable {
    /// The RTCP port.
    public var port: UInt16
    /// The address of `a=rtcp:`, if it gives one.
    public var address: String?
    /// The `a=rtcp-fb` values for the video payload type (or `*`), e.g. `nack pli`, `ccm fir`.
    public var feedback: [String]

    /// How a keyframe is asked for: FIR when the SDP offers `ccm fir` but not `nack pli`, else
    /// PLI (RFC 4585 6.3.1; sent also without `a=rtcp-fb`, as GStreamer and ffmpeg senders
    /// accept it).
    public var keyframeRequest: RTCPKeyframeRequest {
        feedback.contains("ccm fir") && !feedback.contains("nack pli") ? .fullIntraRequest : .pictureLossIndication
    }

    public init(port: UInt16, address: String? = nil, feedback: [String] = []) {
        self.port = port
        self.address = address
        self.feedback = feedback
    }

    /// Reads the `m=video` section of `sdp` whose payload type is `video.payloadType` (at most
    /// 4096 lines looked at).
    public init(sdp: String, video: RTPVideoDescription) {
        self.init(sdp: sdp, media: "video", payloadType: video.payloadType, port: video.port)
    }

    /// Reads the `m=audio` section of `sdp` whose payload type is `audio.payloadType`: the AAC
    /// stream's RTCP port (at most 4096 lines looked at).
    public init(sdp: String, audio: RTPAACDescription) {
        self.init(sdp: sdp, media: "audio", payloadType: audio.payloadType, port: audio.port)
    }

    /// Reads the `m=<media>` section of `sdp` on RTP port `rtpPort` that lists `payloadType`.
    private init(sdp: String, media: Substring, payloadType: UInt8, port rtpPort: UInt16) {
        port = rtpPort == UInt16.max ? rtpPort : rtpPort + 1
        address = nil
        feedback = []
        var inSection = false
        let type = String(payloadType)
        for raw in sdp.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).prefix(4096) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.hasPrefix("m=") {
                if inSection { break }
                let fields = line.dropFirst(2).split(separator: " ")
                inSection = fields.first == media && fields.dropFirst(3).contains(Substring(type)) && fields.dropFirst().first.flatMap { UInt16($0) } == rtpPort
                continue
            }
            guard inSection else { continue }
            if line.hasPrefix("a=rtcp:") {
                let fields = line.dropFirst("a=rtcp:".count).split(separator: " ")
                if let value = fields.first.flatMap({ UInt16($0) }), value > 0 { port = value }
                if fields.count >= 4 { address = String(fields[3]) }
            } else if line.hasPrefix("a=rtcp-fb:") {
                let value = line.dropFirst("a=rtcp-fb:".count)
                guard let space = value.firstIndex(of: " ") else { continue }
                let target = value[..<space]
                if target == "*" || target == type {
                    feedback.append(value[value.index(after: space)...].split(separator: " ").joined(separator: " "))
                }
            }
        }
    }
}
