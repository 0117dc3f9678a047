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
        abstract: "Receive the H.264/H.265 RTP stream an SDP file describes (and its AAC stream) and write its access units (Annex-B, or MP4/MPEG-TS with their times and the audio).",
        discussion: """
        Listens on the SDP's address and port (--listen overrides the address), or replays an rtpdump file (--rtpdump). \
        SIGINT or SIGTERM ends the reception with the file written (exit status 128 + the signal). \
        Packets are reordered in a bounded buffer; duplicates are dropped; lost packets are reported. An access unit that \
        lost packets is dropped (--damaged drop, the default) or written with its cut-short NAL unit marked by \
        forbidden_zero_bit (--damaged mark). Anything lost, dropped or damaged makes the exit status 2 (the file is \
        written all the same). An AAC stream (RFC 3640) in the SDP is received on its own port into MP4 or MPEG-TS, placed \
        against the video by both streams' RTCP sender reports; --video-only leaves it and other streams out.
        """
    )

    @Option(help: ArgumentHelp("SDP file describing the stream (m=video with H264 or H265; an m=audio AAC stream is received too).", valueName: "file"))
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

    @Flag(name: .customLong("video-only"), help: "Receive the video alone although the SDP has other streams (an AAC stream is otherwise received beside it).")
    var videoOnly = false

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
        // The AAC stream goes beside the video in MP4 and MPEG-TS, placed by both streams' RTCP sender reports.
        let audio = rtpdump == nil ? RTPRecorder.receivableAudio(description, videoOnly: videoOnly) : nil
        let recorder = try RTPRecorder(video: description.video, path: output, reorderDelay: Int64(reorderDelay) * 1_000_000,
                                       damagedAccessUnits: damaged.policy, audio: audio)
        if let timing { recorder.timingLog = try RTPTimingLog(path: timing) }
        let durationNanoseconds = duration.flatMap { CheckedNumber.int64($0 * 1e9) }
        let report: RTPReceptionReport
        if let rtpdump {
            report = try recorder.replay(rtpdump: rtpdump, duration: durationNanoseconds)
        } else {
            Signals.finishOnSignal = true // SIGINT/SIGTERM end the reception: what came is written and the file committed.
            let limits = RTPReceptionLimits(duration: durationNanoseconds, idle: CheckedNumber.int64(idle * 1e9) ?? Int64.max,
                                            wait: CheckedNumber.int64(wait * 1e9) ?? Int64.max)
            report = try recorder.receive(session: description, sdpFile: sdp, address: listen, rtcp: !noRTCP, limits: limits,
                                          shouldStop: { Signals.stopRequested })
            if report.end == .noPacket {
                throw CLIError("\(listen ?? description.address):\(description.video.port)", "no RTP packet came within \(wait) s",
                               status: ExitStatus.noInput)
            }
        }
        try recorder.finish()
        let others = videoOnly ? [] : RTPRecorder.mediaNotReceived(description, audio: audio).map {
            rtpdump != nil && $0.hasPrefix("m=audio ") ? $0 + " (an rtpdump file holds one stream: the video's)" : $0
        }
        let lost = recorder.losses(unparsed: report.unparsed, otherMedia: others)
        if verbose || !lost.isEmpty { StandardError.write("nalu: rtp receive: \(recorder.summary)\n") }
        for note in recorder.notes { StandardError.write("nalu: note: \(note)\n") }
        if !lost.isEmpty { throw CLIError(output, "written, but " + lost.joined(separator: ", "), status: 2) }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }

    private func readDescription() throws -> SessionDescription {
        do { return try SessionDescription(readingFile: sdp) } catch {
            // The error is a `NALUError` (typed throws); `catch let … as … where` on it crashes Swift 6.3.1's SILGen.
            guard error.field == "SDP" else { throw error }
            throw CLIError(sdp, error.detail ?? error.description, status: ExitStatus.dataError)
        }
    }
}
