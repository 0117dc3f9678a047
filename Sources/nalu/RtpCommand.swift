import ArgumentParser

/// `nalu rtp`: send a stream over RTP, receive one (issue 42).
struct RtpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtp",
        abstract: "Send an H.264/H.265 stream over RTP (RFC 6184, RFC 7798) or receive one into a file.",
        discussion: """
        nalu rtp send IN --to 127.0.0.1:5004 --sdp out.sdp   packetizes IN (any input nalu reads) and sends it
        nalu rtp receive --sdp in.sdp -o out.mp4              receives the stream the SDP describes
        --rtpdump FILE writes the packets sent (send) or replays the packets recorded (receive) in rtpdump format.
        Network access goes only to the addresses given. See Docs/rtp.md for the ffmpeg and GStreamer pipelines.
        """,
        subcommands: [RtpSend.self, RtpReceive.self]
    )
}
