import ArgumentParser
import NALU
import NALUIO
import NALUMedia
import NALURTP
import NALURTPMedia

/// `nalu rtp send IN --to ADDRESS:PORT [--sdp FILE] [--mtu N] [--payload-type N] [--realtime] [--rtpdump FILE]`.
struct RtpSend: ParsableCommand, CommandIO {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Packetize a stream's video (and AAC audio) into RTP and send it to one UDP address (and/or write the packets as rtpdump).",
        discussion: """
        Parameter sets go in the SDP (sprop-…) and in band before every keyframe that lacks them. The marker bit ends \
        each access unit; timestamps are the presentation times at 90 kHz. Without --realtime the packets are sent as \
        fast as the socket takes them. An MP4/MPEG-TS input's AAC track goes to the port after the video's RTCP port \
        (PORT + 2, RFC 3640 AAC-hbr, payload type + 1) and into the SDP; --video-only leaves it out.
        """
    )

    @Argument(help: ArgumentHelp("Input: Annex-B, length-prefixed, MP4/MOV or MPEG-TS (told by content).", valueName: "file"))
    var inputArgument: String?

    @Option(help: ArgumentHelp("Destination ADDRESS:PORT (IPv4), e.g. 127.0.0.1:5004.", valueName: "address:port"))
    var to: String?

    @Option(help: ArgumentHelp("Write the SDP description of the stream to this file (before sending).", valueName: "file"))
    var sdp: String?

    @Option(help: ArgumentHelp("Largest RTP packet in bytes, RTP header included (UDP/IP headers not).", valueName: "bytes"))
    var mtu: Int = 1400

    @Option(name: .customLong("payload-type"), help: ArgumentHelp("RTP payload type (96–127 are dynamic).", valueName: "n"))
    var payloadType: Int = 96

    @Option(help: ArgumentHelp("RTP SSRC (default a fixed value).", valueName: "n"))
    var ssrc: UInt32 = 0x4E41_4C55

    @Option(name: .customLong("packetization-mode"), help: ArgumentHelp("H.264 packetization mode: 0 (single NAL units), 1 (STAP-A, FU-A) or 2 (interleaved: STAP-B, FU-B with decoding order numbers).", valueName: "n"))
    var packetizationMode: Int = 1

    @Option(name: .customLong("max-don-diff"), help: ArgumentHelp("sprop-max-don-diff: H.265 packets carry decoding order numbers (DONL/DOND) when above 0; H.264 mode 2 declares it (and the interleaving depth). 0…32767.", valueName: "n"))
    var maxDonDiff: Int = 0

    @Flag(name: .customLong("no-aggregation"), help: "Send every NAL unit in packets of its own (no STAP-A / aggregation packets).")
    var noAggregation = false

    @Flag(help: "Send at the stream's pace (each access unit at its decoding time).")
    var realtime = false

    @Option(help: ArgumentHelp("Write every packet sent to this rtpdump file (with --to omitted: only write it).", valueName: "file"))
    var rtpdump: String?

    @Option(help: ArgumentHelp("Elementary stream input (no times): its frames per second, e.g. 25, 29.97, 30000/1001.", valueName: "rate"))
    var fps: FrameRate?

    @Option(help: ArgumentHelp("Write when each access unit's last packet was sent (JSON lines: rtp_timestamp, monotonic_ns) to this file.", valueName: "file"))
    var timing: String?

    @Flag(name: .customLong("video-only"), help: "Send the video although the input has other tracks (audio, subtitles), which are not sent.")
    var videoOnly = false

    @Flag(name: .customLong("no-rtcp"), help: "Send no RTCP (by default sender reports go to the port + 1 and receiver reports are read there).")
    var noRTCP = false

    @Flag(help: "Print what RTCP said (receiver reports, keyframe requests) to standard error.")
    var verbose = false

    var outputs: [(option: String, path: String)] {
        [("--sdp", sdp), ("--rtpdump", rtpdump), ("--timing", timing)].compactMap { item in item.1.map { (item.0, $0) } }
    }
    var writesBinary: Bool { false }
    var inputIsOptional: Bool { false }
    var example: String { "nalu rtp send in.mp4 --to 127.0.0.1:5004 --sdp out.sdp" }

    func validate() throws {
        if inputArgument == nil { throw ValidationError("Give the input to send.") }
        if to == nil && rtpdump == nil { throw ValidationError("Give --to ADDRESS:PORT, --rtpdump FILE, or both.") }
        if mtu < RTPPacketizerOptions.minimumMTU || mtu > RTPPacket.maxSize {
            throw ValidationError("--mtu must be \(RTPPacketizerOptions.minimumMTU)…\(RTPPacket.maxSize).")
        }
        if !(0...127).contains(payloadType) { throw ValidationError("--payload-type must be 0…127.") }
        if !(0...2).contains(packetizationMode) { throw ValidationError("--packetization-mode must be 0, 1 or 2.") }
        if !(0...32_767).contains(maxDonDiff) { throw ValidationError("--max-don-diff must be 0…32767.") }
        if let to {
            do { _ = try UDPEndpoint(parsing: to) } catch { throw ValidationError("--to: \(error.detail ?? "not ADDRESS:PORT")") }
        }
    }

    func run() throws {
        let input = resolvedInputPath(inputArgument)
        let reader = try MediaReader(path: input, options: MediaReaderOptions(readsOtherTracks: false))
        if reader.timescale == nil && fps == nil {
            throw CLIError(input, "an elementary stream has no times", hint: "give its frame rate with --fps, e.g. --fps 25", status: ExitStatus.usage)
        }
        let destination = try to.map { try UDPEndpoint(parsing: $0) }
        var packetizer = RTPPacketizerOptions(mtu: mtu, payloadType: UInt8(payloadType), ssrc: ssrc,
                                              packetizationMode: H264PacketizationMode(rawValue: packetizationMode) ?? .nonInterleaved,
                                              aggregates: !noAggregation)
        packetizer.maxDonDiff = maxDonDiff
        let transmitter: RTPStreamTransmitter
        do {
            transmitter = try RTPStreamTransmitter(reader: reader, options: RTPTransmitterOptions(packetizer: packetizer, realtime: realtime, frameRate: fps?.rational))
        } catch {
            // A `NALUError` (typed throws): `catch let … as … where` on it crashes Swift 6.3.1's SILGen.
            guard error.field == "access unit" else { throw error }
            throw CLIError(input, "no access unit to send", status: ExitStatus.dataError)
        }
        if !videoOnly {
            // The AAC track goes beside the video (RFC 3640, port + 2); any other track is not sent.
            let audio = try transmitter.firstPresentationTime.flatMap { try RTPAACSendSource.open(path: input, videoFirstPTS: $0) }
            let unsent = reader.unreadTracks.filter { track in audio.map { !track.hasPrefix($0.trackDescription) } ?? true }
            if !unsent.isEmpty {
                throw CLIError(input, "not sent: " + unsent.joined(separator: "; "),
                               hint: "nalu rtp send carries the video and one AAC track; --video-only sends the video without them", status: 2)
            }
            if let audio {
                if rtpdump != nil {
                    throw CLIError(input, "--rtpdump holds one stream: the AAC track would not be in it",
                                   hint: "--video-only writes the video alone", status: 2)
                }
                try transmitter.attachAudio(audio, options: RTPAACPacketizerOptions(
                    mtu: mtu, payloadType: UInt8(payloadType == 127 ? 126 : payloadType + 1), ssrc: ssrc ^ 1))
            }
        }
        let (rtcp, audioRTCP) = try destination.map { noRTCP ? (nil, nil) : try transmitter.senderChannels(to: $0, ssrc: ssrc) } ?? (nil, nil)
        let report = try transmitter.transmit(to: destination, rtpdump: rtpdump, sdp: sdp, timing: timing, rtcp: rtcp, audioRTCP: audioRTCP)
        if let rtcp { reportRTCP(rtcp) }
        if report.parameterSetChanges > 0 {
            StandardError.write("nalu: note: the parameter sets changed \(report.parameterSetChanges) time(s); the changes were sent in band, the SDP describes the first\n")
        }
    }

    /// RTCP on standard error: with --verbose what came back; keyframe requests always (a file
    /// cannot make a keyframe: they are not served).
    private func reportRTCP(_ rtcp: RTCPSenderChannel) {
        let counts = rtcp.session.counts
        if verbose {
            var line = "nalu: rtp send: RTCP: \(counts.senderReports) sender reports sent, \(counts.receptionReports) reception reports read, "
                + "\(counts.pictureLossIndications) PLI, \(counts.fullIntraRequests) FIR, \(counts.negativeAcknowledgements) NACK, \(counts.goodbyes) BYE"
            for (source, block) in rtcp.session.receptionReports.sorted(by: { $0.key < $1.key }) {
                let lost: Int32 = block.cumulativeLost
                line += "; receiver \(String(source, radix: 16)): fraction lost \(block.fractionLost)/256, cumulative lost \(lost), jitter \(block.jitter)"
                if let roundTrip = rtcp.session.roundTrips[source] { line += ", round trip \(roundTrip / 1000) µs" }
            }
            StandardError.write(line + "\n")
            for note in rtcp.notes { StandardError.write("nalu: note: \(note)\n") }
        }
        if rtcp.keyframeRequests > 0 {
            StandardError.write("nalu: note: \(rtcp.keyframeRequests) keyframe request(s) (PLI/FIR) came back; a file cannot make keyframes: "
                                + "the stream went on as it is\n")
        }
    }
}
