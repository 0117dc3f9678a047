#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUMedia

/// `nalu package`: CMAF segments with HLS playlists and a DASH MPD (``Packager``).
struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Package inputs for streaming: CMAF (fMP4) segments with HLS playlists and a DASH manifest.",
        discussion: """
        Each input is one video rendition (v0, v1, …) of one presentation; the first input's AAC \
        audio is the audio rendition (a0). Segments are cut at keyframes only: at the first sync \
        sample at or after each multiple of --segment-duration. Samples keep their source's bytes \
        and times (variable frame rate included); each init segment keeps its track's edit list. \
        Writes <v>_init.mp4, <v>_00001.m4s, …, <v>.m3u8 and master.m3u8 (--hls), manifest.mpd \
        (--dash) into the output folder, each file under a temporary name renamed when complete. \
        Renditions whose keyframes do not align stop the run (exit 65) unless --no-align-check. \
        --part-duration adds low-latency HLS parts (<v>_00001.p1.m4s, …: EXT-X-PART, EXT-X-PART-INF, \
        EXT-X-SERVER-CONTROL); --single-file writes one <v>.mp4 per track addressed by byte ranges \
        (and a sidx for DASH). --live reads one MPEG-TS or Annex-B stream from a pipe ('-'), writes \
        each segment and part as it completes, keeps the last --window segments in the playlists \
        (older ones are deleted), writes a dynamic MPD, and ends the playlists (EXT-X-ENDLIST) when \
        the input ends or on SIGINT/SIGTERM.
        """
    )

    @Argument(help: ArgumentHelp("Input MP4/MOV files, one per rendition; with --live one stream ('-': standard input).", valueName: "inputs"))
    var inputs: [String] = []

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output folder (created if missing).", valueName: "dir"))
    var output: String

    @Flag(help: "Write HLS playlists (the media playlists and master.m3u8).")
    var hls = false

    @Flag(help: "Write a static DASH manifest (manifest.mpd) over the same segments.")
    var dash = false

    @Option(help: ArgumentHelp("Target segment duration in seconds (segments end at the first keyframe after it).", valueName: "seconds"))
    var segmentDuration: Double = 4

    @Option(help: ArgumentHelp("Segment format: fmp4 (CMAF) or ts (MPEG-TS with the audio in the same program; HLS only).", valueName: "fmp4|ts"))
    var segmentType: String = "fmp4"

    @Option(help: ArgumentHelp("Low-latency HLS: cut segments into parts of at most this many seconds (EXT-X-PART; fmp4 only).", valueName: "seconds"))
    var partDuration: Double?

    @Flag(help: "One media file per track, segments addressed by byte ranges (HLS EXT-X-BYTERANGE, DASH SegmentBase with a sidx).")
    var singleFile = false

    @Flag(help: "Live: read one MPEG-TS stream (a pipe, '-') and write each segment as it completes, with a sliding-window playlist; EXT-X-ENDLIST when it ends or on SIGINT/SIGTERM.")
    var live = false

    @Option(help: ArgumentHelp("Live: segments listed in the playlists (older ones are deleted).", valueName: "segments"))
    var window: Int = 6

    @Flag(help: "Package renditions whose keyframes do not align.")
    var noAlignCheck = false

    @Flag(help: "Leave the audio out.")
    var noAudio = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give the inputs to package, one per rendition.") }
        if !hls && !dash { throw ValidationError("Give --hls, --dash or both.") }
        guard segmentDuration.isFinite, segmentDuration >= 0.1, segmentDuration <= 3600 else {
            throw ValidationError("--segment-duration must be between 0.1 and 3600 seconds.")
        }
        guard SegmentType(rawValue: segmentType) != nil else { throw ValidationError("--segment-type must be fmp4 or ts.") }
        if segmentType == "ts" && dash { throw ValidationError("--dash needs fmp4 segments (--segment-type fmp4).") }
        if let partDuration {
            guard partDuration.isFinite, partDuration >= 0.05, partDuration <= segmentDuration else {
                throw ValidationError("--part-duration must be between 0.05 s and --segment-duration.")
            }
            if segmentType == "ts" { throw ValidationError("--part-duration needs fmp4 segments (--segment-type fmp4).") }
        }
        if live {
            if inputs.count != 1 { throw ValidationError("--live reads one input (a pipe: '-').") }
            if singleFile { throw ValidationError("--single-file goes with files, not --live.") }
            if segmentType == "ts" { throw ValidationError("--live writes fmp4 segments (--segment-type fmp4).") }
            guard window >= 1 && window <= 10_000 else { throw ValidationError("--window must be between 1 and 10000 segments.") }
        }
    }

    func run() throws {
        for input in inputs where input != "-" && access(input, F_OK) != 0 {
            throw CLIError(input, Failure.errnoText(errno), status: ExitStatus.noInput)
        }
        if mkdir(output, 0o777) != 0 && errno != EEXIST {
            throw NALUError(.cannotCreate, field: output, detail: Failure.errnoText(errno))
        }
        let options = PackagerOptions(segmentDuration: Rational(Int64((segmentDuration * 1000).rounded()), 1000),
                                      segmentType: SegmentType(rawValue: segmentType) ?? .fmp4, hls: hls, dash: dash,
                                      checksAlignment: !noAlignCheck, dropsAudio: noAudio)
        var packaging = options
        packaging.partDuration = partDuration.map { Rational(Int64(($0 * 1000).rounded()), 1000) }
        packaging.singleFile = singleFile
        packaging.window = window
        Failure.inputSubject = inputs.first
        if live { return try runLive(packaging) }
        let summary = try Packager(directory: output, options: packaging).package(inputs)
        for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
    }

    /// `--live`: packages the stream as it comes; the first SIGINT/SIGTERM ends it like the end
    /// of the input (the last segment completed, `EXT-X-ENDLIST`), then exits 128 + the signal.
    private func runLive(_ options: PackagerOptions) throws {
        Signals.finishOnSignal = true
        let input = try LiveInput(path: inputs[0]) { Signals.stopRequested }
        let summary = try LivePackager(directory: output, options: options).package(input)
        for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }
}
