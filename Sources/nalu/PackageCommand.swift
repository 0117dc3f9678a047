#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUMedia
import NALUPackager

/// `nalu package`: CMAF segments with HLS playlists and a DASH MPD (``Packager``).
struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Package inputs for streaming: CMAF (fMP4) segments with HLS playlists and a DASH manifest.",
        discussion: """
        Each input is one video rendition (v0, v1, …) of one presentation; each audio track of the \
        first input (AAC, AC-3, MPEG audio; an MPEG-TS input's audio streams) is an audio rendition \
        (a0, a1, …: EXT-X-MEDIA TYPE=AUDIO with LANGUAGE, a DASH AdaptationSet with lang). Subtitle \
        and timecode tracks are not packaged: the package is written and the exit status is 2 \
        naming them, unless --no-subtitles / --no-timecode leave them out on purpose (exit 0); \
        other tracks (data, metadata) always give exit status 2. MPEG-TS segments (--segment-type \
        ts) carry one audio track with v0, several each as a rendition of audio-only segments. Segments are cut at \
        keyframes only: at the first sync \
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
        the input ends or on SIGINT/SIGTERM; a transport stream's AAC is the audio rendition a0 \
        (EXT-X-MEDIA, an audio AdaptationSet), read in the same pass; other streams stop the run \
        unless --no-audio.
        """
    )

    @Argument(help: ArgumentHelp("Inputs, one per rendition: MP4/MOV, MPEG-TS (with its AAC), Annex-B or length-prefixed H.264/H.265 (told by content); with --live one MPEG-TS or Annex-B stream ('-': standard input).", valueName: "inputs"))
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

    @Flag(help: "Leave subtitle and closed-caption tracks out (a package has no subtitle renditions; without this flag they give exit status 2).")
    var noSubtitles = false

    @Flag(help: "Leave timecode tracks out (without this flag they give exit status 2).")
    var noTimecode = false

    @Option(help: ArgumentHelp("H.265 CRA picture with RASL pictures starting a segment: keep (a 'rap ' sample group, SAP type 3) or bla (rewritten as BLA, its RASL pictures dropped).", valueName: "keep|bla"))
    var openGOP: String = "keep"

    @Option(help: ArgumentHelp("Raw (Annex-B, length-prefixed) input: frames per second, e.g. 30, 29.97, 30000/1001 (default: the SPS VUI timing).", valueName: "rate"))
    var fps: FrameRate?

    @Option(help: "Raw input: codec (h264|hevc); detected from the NAL headers when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("MPEG-TS inputs: the PID of the video stream to read (decimal or 0x hex), which chooses its program, as info and convert take it; default the first H.264/H.265 stream of the PMT.", valueName: "pid"))
    var pid: PIDOption?

    @Option(help: ArgumentHelp("Length-prefixed input: bytes in each NAL length field (1|2|4).", valueName: "n"))
    var lengthSize: Int?

    @Option(name: .customLong("max-access-unit-size"),
            help: ArgumentHelp("Bytes of one access unit (or NAL unit) held in memory before giving up (default 64 MiB).", valueName: "bytes"))
    var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes

    @Option(help: ArgumentHelp("avcC/hvcC record with the parameter sets of length-prefixed input (implies that framing).", valueName: "file"))
    var extradata: String?

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give the inputs to package, one per rendition.") }
        if !hls && !dash { throw ValidationError("Give --hls, --dash or both.") }
        guard segmentDuration.isFinite, segmentDuration >= 0.1, segmentDuration <= 3600 else {
            throw ValidationError("--segment-duration must be between 0.1 and 3600 seconds.")
        }
        guard SegmentType(rawValue: segmentType) != nil else { throw ValidationError("--segment-type must be fmp4 or ts.") }
        if let partDuration, !partDuration.isFinite || partDuration < 0.05 || partDuration > segmentDuration {
            throw ValidationError("--part-duration must be between 0.05 s and --segment-duration.")
        }
        if live && inputs.count != 1 { throw ValidationError("--live reads one input (a pipe: '-').") }
        guard OpenGOPPolicy(rawValue: openGOP) != nil else { throw ValidationError("--open-gop must be keep or bla.") }
        if let lengthSize, ![1, 2, 4].contains(lengthSize) { throw ValidationError("--length-size must be 1, 2 or 4.") }
        do { try options().validate(live: live) } catch { throw ValidationError(error.detail ?? "\(error)") }
    }

    /// What the options ask of the packager.
    func options() -> PackagerOptions {
        var options = PackagerOptions(segmentDuration: Rational(Int64((segmentDuration * 1000).rounded()), 1000),
                                      segmentType: SegmentType(rawValue: segmentType) ?? .fmp4, hls: hls, dash: dash,
                                      checksAlignment: !noAlignCheck, dropsAudio: noAudio)
        options.partDuration = partDuration.map { Rational(Int64(($0 * 1000).rounded()), 1000) }
        (options.singleFile, options.window, options.frameRate) = (singleFile, window, fps?.rational)
        (options.openGOP, options.maxAccessUnitSize) = (OpenGOPPolicy(rawValue: openGOP) ?? .keep, maxAccessUnitSize)
        (options.otherInputs, options.dropsSubtitles, options.dropsTimecode) = (extradata.map { [$0] } ?? [], noSubtitles, noTimecode)
        return options
    }

    func run() throws {
        for input in inputs where input != "-" && access(input, F_OK) != 0 {
            throw CLIError(input, Failure.errnoText(errno), status: ExitStatus.noInput)
        }
        if mkdir(output, 0o777) != 0 && errno != EEXIST {
            throw NALUError(.cannotCreate, field: output, detail: Failure.errnoText(errno))
        }
        let options = options()
        Failure.inputSubject = inputs.first
        if live { return try runLive(options) }
        var sourceOptions = MediaSourceOptions(codec: codec?.codec, lengthSize: lengthSize,
                                               record: try extradata.map { try DecoderConfigurationRecord(contentsOf: $0, codec: codec?.codec) })
        sourceOptions.pid = pid?.value
        sourceOptions.onTransportStreamWarning = { warning in StandardError.write("nalu: warning: \(warning)\n") }
        let summary = try Packager(directory: output, options: options).package(inputs, sourceOptions: sourceOptions)
        for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
        // Tracks left out without an option asking for it: the package is written, exit status 2.
        if !summary.notCarried.isEmpty {
            throw CLIError(inputs.first ?? output, "\(summary.notCarried.joined(separator: "; ")) not packaged; the video and audio renditions were written",
                           hint: "give --no-subtitles / --no-timecode to leave subtitle and timecode tracks out on purpose, --no-audio the audio (exit 0)"
                               + (summary.notCarried.contains { $0.contains("MPEG-TS segments") } ? "; --segment-type fmp4 gives every audio track its rendition" : ""),
                           status: NotCarried.status)
        }
        // A transport stream's other programs, not read unless --pid chose one: exit status 2.
        if let first = summary.programsNotRead.first {
            try NotCarried(input: first.input, tracks: [], why: "", programs: first.programs).fail()
        }
    }

    /// `--live`: packages the stream as it comes; the first SIGINT/SIGTERM ends it like the end
    /// of the input (the last segment completed, `EXT-X-ENDLIST`), then exits 128 + the signal.
    /// A stop before anything could be packaged (before the first keyframe, in a FIFO's open)
    /// exits 128 + the signal too, not as a data or I/O error.
    private func runLive(_ options: PackagerOptions) throws {
        Signals.finishOnSignal = true
        do {
            let input = try LiveInput(path: inputs[0]) { Signals.stopRequested }
            let summary = try LivePackager(directory: output, options: options).package(input)
            for note in summary.notes { StandardError.write("nalu: note: \(note)\n") }
        } catch where Signals.stopRequested {
            throw ExitCode(Signals.exitStatus(Signals.received))
        }
        if Signals.stopRequested { throw ExitCode(Signals.exitStatus(Signals.received)) }
    }
}
