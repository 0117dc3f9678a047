// Sources/NALURTP/Documentation.docc/NALURTP.md: the overview's example, compiled.
import NALU
import NALUMedia
import NALURTP

enum RTPSnippets {
    static func sendAndReceive(reader: MediaReader, sdpText: String, datagram: [UInt8], write: ([[UInt8]]) -> Void,
                               log: (String) -> Void, askTheSenderForAKeyframe: () -> Void) throws {
        // Sending: an access unit's NAL units → RTP packets (marker on the last one).
        var sender = try RTPStreamSender(codec: reader.codec, timescale: 90_000, parameterSets: reader.outOfBandParameterSets,
                                         options: RTPPacketizerOptions(mtu: 1400, payloadType: 96))
        let socket = try UDPSocket()
        while let unit = try reader.nextAccessUnit() {
            for packet in try sender.packets(for: unit, pts: unit.pts ?? 0) {
                try socket.send(packet.bytes, to: UDPEndpoint(address: "127.0.0.1", port: 5004))
            }
        }

        // Receiving: packets → access units, loss reported.
        let description = try SessionDescription(parsing: sdpText)
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: description.video.payloadFormat))
        for event in receiver.receive(try RTPPacket(parsing: datagram), arrival: MonotonicClock.now()) {
            switch event {
            case .accessUnit(let unit): write(unit.nalUnits)
            case .gap(let gap): log("\(gap.count) packets lost")
            case .keyframeRequest: askTheSenderForAKeyframe()
            case .droppedAccessUnit, .malformedPacket: break
            }
        }
    }
}
