// Sources/NALURTP/Documentation.docc/NALURTP.md: the RTCP example, compiled.
import NALURTP

enum RTCPSnippets {
    static func receiveWithRTCP(sdpText: String, onWallClock: (NTPTimestamp) -> Void) throws {
        // Receiving with RTCP on the RTP port + 1 (or the SDP's a=rtcp): the sender's SRs give the
        // access units wall-clock times; RRs, a PLI after each loss and a BYE at the end go back.
        let description = try SessionDescription(parsing: sdpText)
        let rtcp = RTCPDescription(sdp: sdpText, video: description.video)
        let socket = try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: description.video.port))
        let control = RTCPReceiverChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: rtcp.port)),
                                          session: RTCPReceiverSession(keyframeRequest: rtcp.keyframeRequest))
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: description.video.payloadFormat))
        let report = try RTPReception.receive(from: socket, into: &receiver, limits: RTPReceptionLimits(), control: control) { events in
            for case .accessUnit(let unit) in events {
                if let wallClock = unit.wallClock { onWallClock(wallClock) }
            }
        }
        print(report.end == .goodbye ? "the sender said BYE" : "ended", control.session.counts.pictureLossIndications, "PLIs sent")

        // Packets by hand: an RTCP compound packet read and written.
        let compound = try RTCPCompoundPacket(parsing: [0x80, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2A])
        for case .receiverReport(let rr) in compound.packets { print(rr.ssrc, rr.reports.map(\.cumulativeLost)) }
        let pli = RTCPFeedback(senderSSRC: 42, mediaSSRC: 7, message: .pictureLossIndication)
        _ = RTCPCompoundPacket(packets: compound.packets + [.feedback(pli)]).bytes
    }
}
