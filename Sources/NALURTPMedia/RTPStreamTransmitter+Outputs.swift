import NALUIO
public import NALURTP

extension RTPStreamTransmitter {
    /// Sends the stream to `destination` (UDP) and/or writes every packet to an rtpdump file
    /// at `rtpdump` (offsets: the decoding times), after writing the SDP describing it to
    /// `sdp`: what `nalu rtp send` does. An attached AAC stream goes to the destination's port
    /// + 2 (not into the rtpdump file, which holds one stream). Files are written through `FileSink` (exclusive
    /// temporary name, committed at the end). Without a destination the SDP and the rtpdump
    /// name 127.0.0.1:5004. With `rtcp`, sender reports go out at the start, about every 5 s
    /// and with the BYE at the end, and the receivers' reports and keyframe requests are read
    /// (RFC 3550 6; the RTP clock of the SRs: the first packet's timestamp at the instant it
    /// is sent).
    public func transmit(to destination: UDPEndpoint?, rtpdump: String? = nil, sdp: String? = nil,
                         rtcp: RTCPSenderChannel? = nil) throws -> RTPTransmissionReport {
        let address = destination?.address ?? "127.0.0.1"
        let port = destination?.port ?? 5004
        if let sdp {
            let sink = try FileSink(path: sdp)
            try sink.write(Array(sessionDescription(address: address, port: port).text.utf8))
            try sink.commit()
        }
        let socket = destination == nil ? nil : try UDPSocket()
        var dump: RTPDumpWriter<FileSink>?
        if let rtpdump { dump = try RTPDumpWriter(sink: try FileSink(path: rtpdump), address: address, port: port) }
        let audioDestination = destination.map { UDPEndpoint(address: $0.address, port: $0.port &+ 2) }
        let report = try transmitStreams { bytes, offset, stream in
            if stream == .audio {
                // The rtpdump file holds the video stream (one address and port).
                if let socket, let audioDestination { try socket.send(bytes, to: audioDestination) }
                return
            }
            if let rtcp, bytes.count >= RTPPacket.fixedHeaderSize {
                let now = MonotonicClock.now()
                if rtcp.session.counts.senderReports == 0, let first = try? RTPPacket(parsing: bytes) {
                    rtcp.session.setClock(rtpTimestamp: first.timestamp, at: now)
                }
                rtcp.poll(now: now)
                rtcp.session.packetSent(payloadBytes: bytes.count - RTPPacket.fixedHeaderSize)
            }
            if let socket, let destination { try socket.send(bytes, to: destination) }
            try dump?.append(bytes, offsetMilliseconds: UInt32(clamping: max(0, offset / 1_000_000)))
        }
        rtcp?.finish(now: MonotonicClock.now())
        if let dump { try dump.sink.commit() }
        return report
    }
}
