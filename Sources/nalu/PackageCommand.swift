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
        Renditions whose keyframes do not align stop the run (exit 65) unless --no-align-check.
        """
    )

    @Argument(help: ArgumentHelp("Input MP4/MOV files, one per rendition.", valueName: "inputs"))
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

    @Option(help: ArgumentHelp("LL-HLS part duration in seconds (not supported yet).", valueName: "seconds"))
    var partDuration: Double?

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
        if partDuration != nil { throw CLIError.usage("--part-duration", "low-latency HLS parts are not supported yet") }
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
        Failure.inputSubject = inputs.first
        let summary = try Packager(directory: output, options: options).package(inputs)
        for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
    }
}
