/// An ``RTCPSenderSession`` over UDP: SRs to the receiver's RTCP port (the RTP port + 1),
/// its reports and keyframe requests read on the same socket. RTCP never stops the
/// transmission: a datagram that cannot be read or sent is counted and noted.
public final class RTCPSenderChannel {
    /// The RTCP state and the packets it makes.
    public let session: RTCPSenderSession
    /// Where SRs go.
    public let destination: UDPEndpoint
    /// Called for each keyframe request read (an encoder source can then make one).
    public var onKeyframeRequest: ((RTCPKeyframeRequestEvent) -> Void)?
    /// Keyframe requests read.
    public private(set) var keyframeRequests = 0
    /// The latest keyframe request read.
    public private(set) var lastKeyframeRequest: RTCPKeyframeRequestEvent?
    /// Datagrams that could not be sent.
    public private(set) var sendFailures = 0
    /// Notes on RTCP that could not be read or sent.
    public var notes: [String] { session.notes + sendNotes }
    private let socket: UDPSocket
    private var sendNotes: [String] = []

    /// A channel sending to `destination` from `socket` (bound: the receivers answer to it).
    public init(socket: UDPSocket, destination: UDPEndpoint, session: RTCPSenderSession) {
        self.socket = socket
        self.destination = destination
        self.session = session
    }

    /// Reads the RTCP datagrams waiting (at most 16), then sends the SR if one is due.
    public func poll(now: Int64) {
        for _ in 0..<16 {
            let datagram: [UInt8]?
            do { datagram = try socket.receive(timeoutMilliseconds: 0) } catch {
                note("\(error)")
                break
            }
            guard let datagram else { break }
            for request in session.controlReceived(datagram) {
                keyframeRequests += 1
                lastKeyframeRequest = request
                onKeyframeRequest?(request)
            }
        }
        if let report = session.reportIfDue(now: now, wallClock: NTPTimestamp.now()) { send(report) }
    }

    /// Nanoseconds between the last RTP packet and the BYE, RTCP still read meanwhile: a
    /// receiver that ends at the BYE (ffmpeg's RTP demuxer does) reads the last packets first.
    public var goodbyeDelay: Int64 = 250_000_000

    /// Reads RTCP for ``goodbyeDelay``, then sends the last SR with the BYE.
    public func finish(now: Int64) {
        let deadline = now + max(0, goodbyeDelay)
        var current = now
        repeat {
            poll(now: current)
            MonotonicClock.sleep(nanoseconds: min(10_000_000, deadline - current))
            current = MonotonicClock.now()
        } while current < deadline
        poll(now: current)
        send(session.goodbye(now: current, wallClock: NTPTimestamp.now()))
    }

    private func send(_ bytes: [UInt8]) {
        do { try socket.send(bytes, to: destination) } catch {
            sendFailures += 1
            note("\(error)")
        }
    }

    private func note(_ text: String) {
        if sendNotes.count < 20 { sendNotes.append("RTCP: " + text) }
    }
}
