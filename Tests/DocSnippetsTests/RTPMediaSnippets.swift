// Sources/NALURTPMedia/Documentation.docc/NALURTPMedia.md: the example, compiled.
import NALUMedia
import NALURTP
import NALURTPMedia

enum RTPMediaSnippets {
    static func sendAndRecord() throws {
        // Send a file's video to 127.0.0.1:5004, paced at its decoding times, with its SDP.
        let reader = try MediaReader(path: "in.mp4", options: MediaReaderOptions(readsOtherTracks: false))
        let transmitter = try RTPStreamTransmitter(reader: reader, options: RTPTransmitterOptions(realtime: true))
        let sent = try transmitter.transmit(to: UDPEndpoint(address: "127.0.0.1", port: 5004), sdp: "out.sdp")
        print("\(sent.packets) packets")

        // Record an RTSP camera for ten seconds over interleaved TCP.
        let camera = try RTSPURL(parsing: "rtsp://user:pw@127.0.0.1:8554/cam")
        let result = try RTSPRecording.record(url: camera, to: "cam.mp4", transport: .tcp,
                                              limits: RTPReceptionLimits(duration: 10_000_000_000), videoOnly: false)
        if !result.losses.isEmpty { print("written, but", result.losses.joined(separator: ", ")) }
    }

    /// Sources/NALURTP/Documentation.docc/NALURTP.md: the sender and receiver loops.
    static func sendAndReceive(reader: MediaReader, sdpText: String, datagram: [UInt8]) throws {
        let write = { (_: [[UInt8]]) in }
        let log = { (_: String) in }
        let askTheSenderForAKeyframe = {}
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
