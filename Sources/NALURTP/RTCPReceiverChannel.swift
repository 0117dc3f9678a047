import NALU

/// An ``RTCPReceiverSession`` over UDP (RFC 3550 6, RTCP on the RTP port + 1 or the SDP's
/// `a=rtcp:` port, RFC 3605): reads the sender's reports on its socket, sends receiver
/// reports, keyframe requests and the BYE to the address the sender's RTCP came from (or
/// ``destination`` when given). RTCP never stops the reception: a datagram that cannot be read
/// or sent is counted and noted.
///
/// ```swift
/// let channel = try RTCPReceiverChannel(socket: UDPSocket(bindingTo: UDPEndpoint(address: "0.0.0.0", port: port + 1)))
/// let report = try RTPReception.receive(from: socket, into: &receiver, limits: limits, control: channel) { events in … }
/// ```
public final class RTCPReceiverChannel {
    /// The RTCP state and the packets it makes.
    public let session: RTCPReceiverSession
    /// Where reports go: the source of the first RTCP datagram received, unless given.
    public private(set) var destination: UDPEndpoint?
    /// Datagrams that could not be sent.
    public private(set) var sendFailures = 0
    /// Keyframe requests not sent because no RTCP came from the sender (its address unknown).
    public private(set) var unsentKeyframeRequests = 0
    /// Notes on RTCP that could not be read or sent (at most 20 of each).
    public var notes: [String] {
        session.notes + sendNotes
            + (unsentKeyframeRequests == 0 ? [] : ["RTCP: \(unsentKeyframeRequests) keyframe request(s) not sent: no RTCP came from the sender"])
    }
    private let socket: UDPSocket
    private var sendNotes: [String] = []

    /// A channel on `socket` (bound to the RTCP port).
    public init(socket: UDPSocket, session: RTCPReceiverSession = RTCPReceiverSession(), destination: UDPEndpoint? = nil) {
        self.socket = socket
        self.session = session
        self.destination = destination
    }

    /// Reads the RTCP datagrams waiting (at most 16), sets `receiver`'s sender clock from the
    /// latest SR, and sends the receiver report if one is due.
    public func poll(now: Int64, receiver: inout RTPReceiver) {
        poll(now: now)
        if let clock = session.senderClock { receiver.senderClock = clock }
    }

    /// Reads the RTCP datagrams waiting (at most 16) into ``session`` and sends the receiver
    /// report if one is due: the channel of a stream whose receiver takes no sender clock (an
    /// AAC stream, RFC 3640), whose SRs still place it against the video (RFC 3550 6.4.1).
    public func poll(now: Int64) {
        for _ in 0..<16 {
            let received: (bytes: [UInt8], source: UDPEndpoint)?
            do {
                received = try socket.receiveWithSource(timeoutMilliseconds: 0)
            } catch {
                note("\(error)")
                break
            }
            guard let received else { break }
            if session.controlReceived(received.bytes, arrival: now) != nil, destination == nil { destination = received.source }
        }
        // Reports wait for the sender's address (its first RTCP).
        if destination != nil, let report = session.reportIfDue(now: now) { send(report) }
    }

    /// Takes the receiver's events: a keyframe request becomes a PLI or FIR.
    public func handle(_ events: [RTPReceiverEvent], now: Int64) {
        guard destination != nil else {
            unsentKeyframeRequests += events.count { $0 == .keyframeRequest }
            return
        }
        if let request = session.keyframeRequest(for: events, now: now) { send(request) }
    }

    /// Sends the last report and the BYE (when the sender's address is known).
    public func finish(now: Int64) {
        if destination != nil { send(session.goodbye(now: now)) }
    }

    private func send(_ bytes: [UInt8]) {
        guard let destination else { return }
        do { try socket.send(bytes, to: destination) } catch {
            sendFailures += 1
            note("\(error)")
        }
    }

    private func note(_ text: String) {
        if sendNotes.count < 20 { sendNotes.append("RTCP: " + text) }
    }
}
