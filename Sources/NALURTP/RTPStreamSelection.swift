/// The one stream a receiver takes from what arrives (RFC 3550 5.1): the payload type given,
/// else the first packet's, and the first packet's SSRC (8.1: the source). Packets of another
/// payload type or source are not the stream's; the receiver counts them.
struct RTPStreamSelection: Sendable {
    /// What ``check(_:)`` says of a packet.
    enum Verdict {
        case taken
        case otherPayloadType
        case otherSource
    }

    private(set) var payloadType: UInt8?
    /// The SSRC taken (the first packet's).
    private(set) var ssrc: UInt32?

    init(payloadType: UInt8?) {
        self.payloadType = payloadType
    }

    /// Whether `packet` is the stream's; the first packet chooses what was not given.
    mutating func check(_ packet: RTPPacket) -> Verdict {
        if payloadType == nil { payloadType = packet.payloadType }
        guard packet.payloadType == payloadType else { return .otherPayloadType }
        if ssrc == nil { ssrc = packet.ssrc }
        return packet.ssrc == ssrc ? .taken : .otherSource
    }
}
