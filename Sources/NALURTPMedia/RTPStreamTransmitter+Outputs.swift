public import NALU
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
    /// is sent). `audioRTCP` does the same for the AAC stream (its RTCP port: the audio's + 1),
    /// its SRs on the same wall clock, so that a receiver lines the two streams up by them.
    /// `timing`: an ``RTPTimingLog`` of when each video access unit's last packet was sent.
    /// - Throws: ``NALU/NALUError``: the socket's, the files', the stream's.
    public func transmit(to destination: UDPEndpoint?, rtpdump: String? = nil, sdp: String? = nil, timing: String? = nil,
                         rtcp: RTCPSenderChannel? = nil, audioRTCP: RTCPSenderChannel? = nil) throws(NALUError) -> RTPTransmissionReport {
        do {
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
            let audioDestination = destination.map { UDPEndpoint(address: $0.address, port: $0.port &+ 2) }
            var clocksSet = false
            let report = try transmitStreams { bytes, offset, stream in
                if !clocksSet, rtcp != nil || audioRTCP != nil, let first = try? RTPPacket(parsing: bytes) {
                    // Both clocks from the first packet of either stream, at the instant it leaves.
                    let now = MonotonicClock.now()
                    let times = timestamps(at: first.timestamp, of: stream)
                    rtcp?.session.setClock(rtpTimestamp: times.video, at: now)
                    if let audio = times.audio { audioRTCP?.session.setClock(rtpTimestamp: audio, at: now) }
                    clocksSet = true
                }
                let channel = stream == .audio ? audioRTCP : rtcp
                if let channel, bytes.count >= RTPPacket.fixedHeaderSize {
                    channel.poll(now: MonotonicClock.now())
                    channel.session.packetSent(payloadBytes: bytes.count - RTPPacket.fixedHeaderSize)
                }
                if stream == .audio {
                    // The rtpdump file holds the video stream (one address and port).
                    if let socket, let audioDestination { try socket.send(bytes, to: audioDestination) }
                    return
                }
                if let socket, let destination { try socket.send(bytes, to: destination) }
                // The marker bit ends an access unit (RFC 6184 5.1, RFC 7798 4.1).
                if let log, let packet = try? RTPPacket(parsing: bytes), packet.marker { try log.log(rtpTimestamp: packet.timestamp) }
                try dump?.append(bytes, offsetMilliseconds: UInt32(clamping: max(0, offset / 1_000_000)))
            }
            rtcp?.finish(now: MonotonicClock.now())
            // The video's finish waited for the last packets to be read: the audio's BYE follows.
            audioRTCP?.goodbyeDelay = 0
            audioRTCP?.finish(now: MonotonicClock.now())
            if let dump { try dump.sink.commit() }
            try log?.commit()
            return report
        } catch {
            throw NALUError.converting(error, field: "RTP")
        }
    }
}
