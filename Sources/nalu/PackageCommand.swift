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

    @Argument(help: ArgumentHelp("Inputs, one per rendition: MP4/MOV, MPEG-TS (with its AAC), Annex-B or length-prefixed H.264/H.265 (told by content).", valueName: "inputs"))
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

    @Option(help: ArgumentHelp("H.265 CRA picture with RASL pictures starting a segment: keep (a 'rap ' sample group, SAP type 3) or bla (rewritten as BLA, its RASL pictures dropped).", valueName: "keep|bla"))
    var openGOP: String = "keep"

    @Option(help: ArgumentHelp("Raw (Annex-B, length-prefixed) input: frames per second, e.g. 30, 29.97, 30000/1001 (default: the SPS VUI timing).", valueName: "rate"))
    var fps: FrameRate?

    @Option(help: "Raw input: codec (h264|hevc); detected from the NAL headers when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("Length-prefixed input: bytes in each NAL length field (1|2|4).", valueName: "n"))
    var lengthSize: Int?

    @Option(help: ArgumentHelp("avcC/hvcC record with the parameter sets of length-prefixed input (implies that framing).", valueName: "file"))
    var extradata: String?

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give the inputs to package, one per rendition.") }
        if !hls && !dash { throw ValidationError("Give --hls, --dash or both.") }
        guard segmentDuration.isFinite, segmentDuration >= 0.1, segmentDuration <= 3600 else {
            throw ValidationError("--segment-duration must be between 0.1 and 3600 seconds.")
        }
        guard SegmentType(rawValue: segmentType) != nil else { throw ValidationError("--segment-type must be fmp4 or ts.") }
        if segmentType == "ts" && dash { throw ValidationError("--dash needs fmp4 segments (--segment-type fmp4).") }
        guard OpenGOPPolicy(rawValue: openGOP) != nil else { throw ValidationError("--open-gop must be keep or bla.") }
        if let lengthSize, ![1, 2, 4].contains(lengthSize) { throw ValidationError("--length-size must be 1, 2 or 4.") }
        if partDuration != nil { throw CLIError.usage("--part-duration", "low-latency HLS parts are not supported yet") }
    }

    func run() throws {
        for input in inputs where input != "-" && access(input, F_OK) != 0 {
            throw CLIError(input, Failure.errnoText(errno), status: ExitStatus.noInput)
        }
        if mkdir(output, 0o777) != 0 && errno != EEXIST {
            throw NALUError(.cannotCreate, field: output, detail: Failure.errnoText(errno))
        }
        var options = PackagerOptions(segmentDuration: Rational(Int64((segmentDuration * 1000).rounded()), 1000),
                                      segmentType: SegmentType(rawValue: segmentType) ?? .fmp4, hls: hls, dash: dash,
                                      checksAlignment: !noAlignCheck, dropsAudio: noAudio)
        options.frameRate = fps?.rational
        options.openGOP = OpenGOPPolicy(rawValue: openGOP) ?? .keep
        var sourceOptions = MediaSourceOptions(codec: codec?.codec, lengthSize: lengthSize,
                                               record: try extradata.map { try loadDecoderConfigurationRecord($0, codec: codec?.codec) })
        sourceOptions.onTransportStreamWarning = { warning in StandardError.write("nalu: warning: \(warning)\n") }
        Failure.inputSubject = inputs.first
        let summary = try Packager(directory: output, options: options).package(inputs, sourceOptions: sourceOptions)
        for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
    }
}
