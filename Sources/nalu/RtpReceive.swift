import ArgumentParser
import NALU
import NALUIO
import NALURTP
import NALURTPMedia

/// `--damaged drop|mark`.
enum DamagedOption: String, ExpressibleByArgument, CaseIterable {
    case drop, mark

    var policy: RTPDamagedAccessUnits { self == .drop ? .drop : .mark }
}

/// `nalu rtp receive --sdp FILE -o OUT [--duration S] [--rtpdump FILE]`.
struct RtpReceive: ParsableCommand, CommandIO {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive the H.264/H.265 RTP stream an SDP file describes and write its access units (Annex-B, or MP4 with their times).",
        discussion: """
        Listens on the SDP's address and port (--listen overrides the address), or replays an rtpdump file (--rtpdump). \
        SIGINT or SIGTERM ends the reception with the file written (exit status 128 + the signal). \
        Packets are reordered in a bounded buffer; duplicates are dropped; lost packets are reported. An access unit that \
        lost packets is dropped (--damaged drop, the default) or written with its cut-short NAL unit marked by \
        forbidden_zero_bit (--damaged mark). Anything lost, dropped or damaged makes the exit status 2 (the file is \
        written all the same).
        """
    )

    @Option(help: ArgumentHelp("SDP file describing the stream (m=video with H264 or H265).", valueName: "file"))
    var sdp: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Output: .mp4/.mov (times kept) or an Annex-B stream (any other name, - for standard output).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Stop this many seconds after the first packet (rtpdump: of recorded time).", valueName: "seconds"))
    var duration: Double?

    @Option(help: ArgumentHelp("Read the packets from this rtpdump file instead of the network.", valueName: "file"))
    var rtpdump: String?

    @Option(help: ArgumentHelp("Address to listen on instead of the SDP's (IPv4).", valueName: "address"))
    var listen: String?

    @Option(help: "What to do with an access unit that lost packets: drop, or mark (written with forbidden_zero_bit on its cut-short NAL unit).")
    var damaged: DamagedOption = .drop

    @Option(help: ArgumentHelp("Stop after this many seconds without a packet, once packets came.", valueName: "seconds"))
    var idle: Double = 3

    @Option(help: ArgumentHelp("Give up when no packet comes within this many seconds.", valueName: "seconds"))
    var wait: Double = 30

    @Option(name: .customLong("reorder-delay"), help: ArgumentHelp("Milliseconds a packet waits at most for earlier ones.", valueName: "ms"))
    var reorderDelay: Int = 200

    @Option(help: ArgumentHelp("Write when each access unit was complete (JSON lines: rtp_timestamp, monotonic_ns) to this file.", valueName: "file"))
    var timing: String?

    @Flag(help: "Print what was received to standard error.")
    var verbose = false

    @Flag(name: .customLong("no-rtcp"), help: "Send and read no RTCP (by default it runs on the SDP's a=rtcp port or the RTP port + 1).")
    var noRTCP = false

    var inputArgument: String? { nil }
    var inputIsOptional: Bool { false }
    var outputs: [(option: String, path: String)] { [("-o", output)] + (timing.map { [("--timing", $0)] } ?? []) }
    var writesBinary: Bool { true }
    var example: String { "nalu rtp receive --sdp in.sdp -o out.mp4 --duration 10" }
    var otherInputs: [String] { [sdp] + (rtpdump.map { [$0] } ?? []) }

    func validate() throws {
        for (name, value) in [("--duration", duration), ("--idle", idle), ("--wait", wait)] {
            if let value, !(value > 0 && value <= 86_400 * 7) { throw ValidationError("\(name) must be a positive number of seconds (at most a week).") }
        }
        if !(1...10_000).contains(reorderDelay) { throw ValidationError("--reorder-delay must be 1…10000 ms.") }
    }

    func run() throws {
        let description = try readDescription()
        let video = description.video
        let recorder = try RTPRecorder(video: video, path: output, reorderDelay: Int64(reorderDelay) * 1_000_000, damagedAccessUnits: damaged.policy)
        if let timing { recorder.timingLog = try RTPTimingLog(path: timing) }
        let durationNanoseconds = duration.flatMap { CheckedNumber.int64($0 * 1e9) }
        let report: RTPReceptionReport
        if let rtpdump {
            report = try recorder.replay(rtpdump: rtpdump, duration: durationNanoseconds)
        } else {
            let endpoint = UDPEndpoint(address: listen ?? description.address, port: video.port)
            Signals.finishOnSignal = true // SIGINT/SIGTERM end the reception: what came is written and the file committed.
            let limits = RTPReceptionLimits(duration: durationNanoseconds, idle: CheckedNumber.int64(idle * 1e9) ?? Int64.max,
                                            wait: CheckedNumber.int64(wait * 1e9) ?? Int64.max)
            if noRTCP {
                report = try recorder.receive(on: endpoint, limits: limits, shouldStop: { Signals.stopRequested })
            } else {
                let rtcp = try RTCPDescription(readingFile: sdp, video: video)
                let control = RTCPReceiverChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: endpoint.address, port: rtcp.port)),
                                                  session: RTCPReceiverSession(keyframeRequest: rtcp.keyframeRequest))
                report = try recorder.receive(on: endpoint, control: control, limits: limits, shouldStop: { Signals.stopRequested })
            }
            if report.end == .noPacket { throw CLIError("\(endpoint)", "no RTP packet came within \(wait) s", status: ExitStatus.noInput) }
        }
        try recorder.finish()
        // The AAC stream is not received: without RTCP sender reports (or RTSP's RTP-Info) the
        // offset between two RTP streams' time lines is unknown, so its place against the video is.
        let others = description.otherMedia.map { line in
            line.hasPrefix("m=audio ") && description.audio != nil
                ? line + " (AAC: its offset against the video is unknown without RTCP sender reports)" : line
        }
        let lost = recorder.losses(unparsed: report.unparsed, otherMedia: others)
        if verbose || !lost.isEmpty { StandardError.write("nalu: rtp receive: \(recorder.summary)\n") }
        for note in recorder.notes { StandardError.write("nalu: note: \(note)\n") }
        if !lost.isEmpty { throw CLIError(output, "written, but " + lost.joined(separator: ", "), status: 2) }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }

    private func readDescription() throws -> SessionDescription {
        do { return try SessionDescription(readingFile: sdp) } catch let error as NALUError where error.field == "SDP" {
            throw CLIError(sdp, error.detail ?? error.description, status: ExitStatus.dataError)
        }
    }
}
