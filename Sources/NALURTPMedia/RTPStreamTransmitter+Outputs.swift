import NALUIO
public import NALURTP

extension RTPStreamTransmitter {
    /// Sends the stream to `destination` (UDP) and/or writes every packet to an rtpdump file
    /// at `rtpdump` (offsets: the decoding times), after writing the SDP describing it to
    /// `sdp`: what `nalu rtp send` does. Files are written through `FileSink` (exclusive
    /// temporary name, committed at the end). Without a destination the SDP and the rtpdump
    /// name 127.0.0.1:5004. `timing`: an ``RTPTimingLog`` of when each access unit's last packet
    /// was sent.
    public func transmit(to destination: UDPEndpoint?, rtpdump: String? = nil, sdp: String? = nil,
                         timing: String? = nil) throws -> RTPTransmissionReport {
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
        let log = try timing.map { try RTPTimingLog(path: $0) }
        let report = try transmit { bytes, offset in
            if let socket, let destination { try socket.send(bytes, to: destination) }
            // The marker bit ends an access unit (RFC 6184 5.1, RFC 7798 4.1).
            if let log, let packet = try? RTPPacket(parsing: bytes), packet.marker { try log.log(rtpTimestamp: packet.timestamp) }
            try dump?.append(bytes, offsetMilliseconds: UInt32(clamping: max(0, offset / 1_000_000)))
        }
        if let dump { try dump.sink.commit() }
        try log?.commit()
        return report
    }
}
