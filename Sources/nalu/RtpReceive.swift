import ArgumentParser
import NALU
import NALUIO
import NALURTP

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

    @Flag(help: "Print what was received to standard error.")
    var verbose = false

    var inputArgument: String? { nil }
    var inputIsOptional: Bool { false }
    var outputs: [(option: String, path: String)] { [("-o", output)] }
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
        var receiver = RTPReceiver(options: RTPReceiverOptions(
            format: video.payloadFormat, payloadType: video.payloadType, maxReorderDelay: Int64(reorderDelay) * 1_000_000,
            damagedAccessUnits: damaged.policy))
        let sink = try ReceivedStreamOutput(path: output, codec: video.codec, parameterSets: video.parameterSets)
        var times = RTPDecodeTimes(codec: video.codec)
        var notes: [String] = []
        let handle = { (events: [RTPReceiverEvent]) throws in
            for event in events {
                switch event {
                case .accessUnit(let unit):
                    for timed in times.push(unit) { try sink.write(timed) }
                case .malformedPacket(let sequenceNumber, let error):
                    if notes.count < 20 { notes.append("packet \(sequenceNumber): \(error)") }
                case .gap, .droppedAccessUnit, .keyframeRequest:
                    continue
                }
            }
        }
        let durationNanoseconds = duration.flatMap { CheckedNumber.int64($0 * 1e9) }
        let report: RTPReceptionReport
        if let rtpdump {
            var reader = try RTPDumpReader(source: try FileSource(path: rtpdump))
            report = try RTPReception.replay(&reader, into: &receiver, duration: durationNanoseconds, handle: handle)
            if report.partialRecords > 0 { notes.append("\(report.partialRecords) rtpdump records hold less than their packet") }
        } else {
            let address = listen ?? description.address
            let socket = try UDPSocket(bindingTo: UDPEndpoint(address: address, port: video.port))
            // SIGINT/SIGTERM end the reception: what came is written and the file committed.
            Signals.finishOnSignal = true
            let limits = RTPReceptionLimits(duration: durationNanoseconds, idle: CheckedNumber.int64(idle * 1e9) ?? Int64.max,
                                            wait: CheckedNumber.int64(wait * 1e9) ?? Int64.max)
            report = try RTPReception.receive(from: socket, into: &receiver, limits: limits, shouldStop: { Signals.stopRequested }, handle: handle)
            if report.end == .noPacket {
                throw CLIError("\(address):\(video.port)", "no RTP packet came within \(wait) s", status: ExitStatus.noInput)
            }
        }
        let unparsed = report.unparsed
        for timed in times.finish() { try sink.write(timed) }
        try sink.finish()
        let statistics = receiver.statistics
        if verbose || !statistics.isLossless || unparsed > 0 || sink.skippedBeforeParameterSets > 0 {
            StandardError.write("nalu: rtp receive: \(statistics.accessUnits) access units from \(statistics.packets) packets; "
                                + "\(statistics.lost) lost in \(statistics.gaps) gaps, \(statistics.duplicates) duplicates, \(statistics.late) late, "
                                + "\(statistics.droppedAccessUnits) access units dropped, \(statistics.damagedAccessUnits) damaged, "
                                + "\(statistics.keyframeRequests) keyframe requests, \(statistics.skippedPACI) PACI skipped\n")
        }
        for note in notes { StandardError.write("nalu: note: \(note)\n") }
        var lost: [String] = []
        if statistics.lost > 0 || statistics.late > 0 { lost.append(count(statistics.lost + statistics.late, "packet") + " lost") }
        if statistics.droppedAccessUnits > 0 { lost.append(count(statistics.droppedAccessUnits, "access unit") + " dropped") }
        if statistics.damagedAccessUnits > statistics.droppedAccessUnits {
            lost.append(count(statistics.damagedAccessUnits - statistics.droppedAccessUnits, "access unit") + " written damaged")
        }
        if statistics.malformed + unparsed > 0 { lost.append(count(statistics.malformed + unparsed, "malformed packet")) }
        if statistics.fragmentsWithoutStart > 0 { lost.append(count(statistics.fragmentsWithoutStart, "fragment") + " without its start") }
        if statistics.otherPayloadType + statistics.otherSource > 0 {
            lost.append(count(statistics.otherPayloadType + statistics.otherSource, "packet") + " of another payload type or source")
        }
        if sink.skippedBeforeParameterSets > 0 { lost.append(count(sink.skippedBeforeParameterSets, "access unit") + " before the first parameter sets") }
        if !description.otherMedia.isEmpty { lost.append("not received: " + description.otherMedia.joined(separator: "; ")) }
        if !lost.isEmpty { throw CLIError(output, "written, but " + lost.joined(separator: ", "), status: 2) }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }

    /// `n thing` or `n things`.
    private func count(_ number: Int, _ thing: String) -> String { "\(number) \(thing)" + (number == 1 ? "" : "s") }

    private func readDescription() throws -> SessionDescription {
        let source = try FileSource(path: sdp)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= SessionDescription.maxSize else {
                throw CLIError(sdp, "larger than \(SessionDescription.maxSize) bytes: not an SDP description", status: ExitStatus.dataError)
            }
        }
        do {
            return try SessionDescription(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw CLIError(sdp, error.description, status: ExitStatus.dataError)
        }
    }
}
