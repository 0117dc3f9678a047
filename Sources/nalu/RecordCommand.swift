import ArgumentParser
import NALU
import NALUPackager
import NALURTP
import NALURTPMedia

/// `--transport tcp|udp`.
enum TransportOption: String, ExpressibleByArgument, CaseIterable {
    case tcp, udp

    var transport: RTSPTransport { self == .tcp ? .tcp : .udp }
}

/// `nalu record rtsp://HOST[:PORT]/PATH -o OUT [--duration S] [--transport tcp|udp] [--video-only]`.
struct RecordCommand: ParsableCommand, CommandIO {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record an RTSP server's H.264/H.265 video and AAC audio (RFC 2326): MP4 or MPEG-TS with the access units' times, a live HLS package (--hls), or Annex-B.",
        discussion: """
        Credentials go in the URL (rtsp://USER:PASSWORD@HOST/PATH; Basic or Digest). SIGINT, SIGTERM or --duration end the \
        recording: TEARDOWN is sent and the file finished (exit 128 + the signal). Anything lost makes the exit status 2; \
        the AAC stream (RFC 3640) is recorded beside the video in MP4, placed by the PLAY response's RTP-Info; \
        an output that cannot hold it (Annex-B) or another stream not recorded is exit 2 unless --video-only.
        """
    )

    @Argument(help: ArgumentHelp("The stream: rtsp://[USER:PASSWORD@]HOST[:PORT]/PATH.", valueName: "url"))
    var url: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Output: .mp4/.mov or .ts/.m2ts (times kept, with the audio), a folder with --hls, or an Annex-B stream (any other name).", valueName: "file"))
    var output: String

    @Flag(help: "Write a live HLS package into the -o folder as the recording goes (fMP4 segments, a sliding-window playlist, EXT-X-ENDLIST at the end), as nalu package --live does.")
    var hls = false

    @Option(help: ArgumentHelp("--hls: target segment duration in seconds (segments end at the first keyframe after it).", valueName: "seconds"))
    var segmentDuration: Double = 4

    @Option(help: ArgumentHelp("--hls: low-latency HLS parts of at most this many seconds (EXT-X-PART).", valueName: "seconds"))
    var partDuration: Double?

    @Option(help: ArgumentHelp("--hls: segments listed in the playlists (older ones are deleted).", valueName: "segments"))
    var window: Int = 6

    @Option(help: ArgumentHelp("Stop this many seconds after the first packet.", valueName: "seconds"))
    var duration: Double?

    @Option(help: "How RTP comes: tcp (interleaved on the RTSP connection) or udp.")
    var transport: TransportOption = .tcp

    @Option(help: ArgumentHelp("Give up when no packet comes within this many seconds.", valueName: "seconds"))
    var wait: Double = 30

    @Flag(name: .customLong("video-only"), help: "Record the video alone: the session's other streams (audio) are not set up.")
    var videoOnly = false

    @Flag(help: "Print what was received to standard error.")
    var verbose = false

    var inputArgument: String? { nil }
    var inputIsOptional: Bool { false }
    // A live HLS package is a folder the packager creates and fills, not one file.
    var outputs: [(option: String, path: String)] { hls ? [] : [("-o", output)] }
    var writesBinary: Bool { true }
    var example: String { "nalu record rtsp://127.0.0.1:8554/test -o out.mp4 --duration 10" }

    func validate() throws {
        for (name, value) in [("--duration", duration), ("--wait", wait)] {
            if let value, !(value > 0 && value <= 86_400 * 7) { throw ValidationError("\(name) must be a positive number of seconds (at most a week).") }
        }
        do { _ = try RTSPURL(parsing: url) } catch { throw ValidationError("\(url): \(error)") }
        let lowered = output.lowercased()
        if [".m3u8", ".mpd"].contains(where: { lowered.hasSuffix($0) }) {
            throw ValidationError("-o \(output): a live HLS package is a folder: give -o DIR --hls.")
        }
        if !(segmentDuration > 0 && segmentDuration <= 3600) { throw ValidationError("--segment-duration must be a positive number of seconds (at most an hour).") }
        if let partDuration, !(partDuration > 0 && partDuration <= segmentDuration) {
            throw ValidationError("--part-duration must be positive and at most --segment-duration.")
        }
        if window < 1 || window > 100_000 { throw ValidationError("--window must be 1…100000 segments.") }
        if !hls && (partDuration != nil) { throw ValidationError("--part-duration goes with --hls.") }
    }

    func run() throws {
        let location = try RTSPURL(parsing: url)
        Signals.finishOnSignal = true
        let limits = RTPReceptionLimits(duration: duration.flatMap { CheckedNumber.int64($0 * 1e9) }, idle: 5_000_000_000,
                                        wait: CheckedNumber.int64(wait * 1e9) ?? Int64.max)
        var live: PackagerOptions?
        if hls {
            var options = PackagerOptions(segmentDuration: Rational(Int64((segmentDuration * 1000).rounded()), 1000), hls: true)
            options.partDuration = partDuration.map { Rational(Int64(($0 * 1000).rounded()), 1000) }
            options.window = window
            live = options
        }
        let result = try RTSPRecording.record(url: location, to: output, transport: transport.transport, limits: limits, videoOnly: videoOnly,
                                              liveHLS: live, shouldStop: { Signals.stopRequested })
        if verbose || !result.losses.isEmpty { StandardError.write("nalu: record: \(result.summary)\n") }
        if verbose { StandardError.write("nalu: record: ended by \(result.end)\n") }
        for note in result.notes { StandardError.write("nalu: note: \(note)\n") }
        if !result.losses.isEmpty {
            throw CLIError(output, "written, but " + result.losses.joined(separator: ", "),
                           hint: videoOnly ? nil : "--video-only records the video alone", status: 2)
        }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }
}
