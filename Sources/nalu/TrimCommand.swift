import ArgumentParser
import NALU
import NALUIO
import NALUMP4
import NALUExport
import NALUMedia
import NALUSmartCut

/// `nalu trim`: a time range of a stream, without re-encoding (``Trimmer``).
struct Trim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Cut a time range out of a stream without re-encoding.",
        discussion: """
        Times are seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5), as ffmpeg takes them. The cut starts at the keyframe \
        (IDR, CRA, BLA or recovery point) at or before --start, with the parameter sets in front; the keyframe's \
        leading pictures (H.265 RASL/RADL, an H.264 open GOP's leading B pictures) are dropped: they cannot decode \
        without what precedes the keyframe (a cut at an H.265 CRA decodes with no error). It ends with the access unit \
        that completes every picture presenting before --end.

        MP4 output (--to mp4, or an .mp4/.m4v/.mov name) is frame-exact in presentation time: an edit list shows \
        exactly the pictures presenting in [start, end), so ffmpeg, AVFoundation and browsers play that range and \
        nothing else; the input's audio tracks are cut to the same range, each with its own edit list (--no-audio \
        leaves them out). MPEG-TS output carries every AAC, AC-3 and MPEG audio track, cut the same way. Annex-B and \
        length-prefixed output carry the lead-in pictures from the keyframe; their count is noted on standard error. \
        The input is read twice (timing, then copy): an elementary stream must be a file; MP4 may come through a pipe. \
        Timing: an MP4's own; else the SPS VUI's, or --fps.

        --smart is frame-exact without an edit list (the partial GOPs at the ends re-encoded). --keep A-B,C-D keeps \
        several ranges, in order, and joins them; it implies --smart, so every boundary is frame-exact and the \
        timeline continuous, and the audio of each range is cut and joined with it (MP4, Annex-B and MPEG-TS output).
        """
    )

    @Argument(help: ArgumentHelp("Input stream or MP4/MOV file (- for standard input: MP4 only).", valueName: "input"))
    var inputArgument: String?
    @Option(help: ArgumentHelp("Start of the range: seconds (12.5) or [HH:]MM:SS[.fff] (default 0).", valueName: "time"))
    var start: String?
    @Option(help: ArgumentHelp("End of the range (exclusive), as --start (default: the end of the stream).", valueName: "time"))
    var end: String?
    @Option(help: ArgumentHelp("Length of the range, instead of --end.", valueName: "time"))
    var duration: String?
    @Option(name: .customLong("to"), help: "Output: annexb, avcc (length-prefixed), mp4, ts or m2ts (MPEG-TS); default from the output's extension.")
    var toOption: OutputFraming?
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file, or - for standard output (with --to).", valueName: "file"))
    var outputArgument: String?
    @Option(help: "Codec of the input (h264|hevc); detected when omitted.")
    var codec: CodecOption?
    @Option(help: ArgumentHelp("MPEG-TS input: the PID of the video stream to read (decimal or 0x hex), which chooses its program; default the first H.264/H.265 stream of the PMT.", valueName: "pid"))
    var pid: PIDOption?
    @Option(help: ArgumentHelp("avcC/hvcC record holding a length-prefixed input's parameter sets.", valueName: "file"))
    var extradata: String?
    @Option(help: ArgumentHelp("Frames per second of a stream without timing, e.g. 25, 29.97, 30000/1001 (default: the MP4's or the SPS VUI's).", valueName: "rate"))
    var fps: FrameRate?
    @OptionGroup var mp4: MP4OutputOptions
    @OptionGroup var smartOptions: SmartTrimOptions
    @Flag(help: "MP4 and MPEG-TS output: leave the audio out (MP4: every audio track, MPEG-TS: every AAC, AC-3 and MPEG audio track, cut to the same range otherwise).")
    var noAudio = false
    @OptionGroup var otherTracks: OtherTracksOption
    @Option(help: ArgumentHelp("Keep several ranges and join them, frame-exact at every boundary (implies --smart), the audio cut and joined with them: START-END,… each side as --start takes it, e.g. 0:10-0:20,1:05.5-1:30 (an open end, 5-, only last).", valueName: "ranges"))
    var keep: String?
    @Flag(help: "Say what was kept on standard error.")
    var verbose = false

    /// The parsed times: `--start`, and the end from `--end` or `--start` + `--duration` (`nil`:
    /// the end of the stream).
    func times() throws -> (start: MediaTime, end: MediaTime?) {
        do {
            let range = try SmartCutRange(start: start, end: end, duration: duration)
            return (range.start ?? .zero, range.end)
        } catch {
            let hint = error.code == .tooLarge ? nil : "seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5, 1:00:00.040)"
            throw CLIError.usage(error.field, error.detail ?? "not a time", hint: hint)
        }
    }

    func validate() throws {
        if end != nil && duration != nil { throw ValidationError("Give --end or --duration, not both.") }
        if keep != nil && (start != nil || end != nil || duration != nil) { throw ValidationError("Give --keep or --start/--end/--duration, not both.") }
        try smartOptions.check(smart: smartOptions.smart || keep != nil)
        if to != .mp4 && mp4.isSet { throw ValidationError("--faststart, --fragmented and --sample-entry go with MP4 output.") }
        _ = try times()
    }

    func run() throws {
        var record: DecoderConfigurationRecord?
        if let extradata { record = try DecoderConfigurationRecord(contentsOf: extradata, codec: codec?.codec) }
        let options = MediaSourceOptions(codec: codec?.codec, record: record, codecFromFileName: true, pid: pid?.value)
        if let keep { return try runKeep(keep, options: options) }
        let (start, end) = try times()
        if smartOptions.smart { return try runSmart(options: options, start: start, end: end) }
        let trimmer = try mappingOptionErrors(opening: true) { try Trimmer(path: input, options: options, frameRate: fps?.rational) }
        if input == "-" && !trimmer.source.container.isMP4 {
            throw CLIError.usage("standard input", "trim reads an elementary stream twice (timing, then copy)",
                                 hint: "give it as a file; MP4 may come through a pipe")
        }
        if to == .mp4 { try mp4.check(codec: trimmer.source.codec) }
        let plan = try mappingOptionErrors { try trimmer.plan(start: start, end: end) }
        // The other tracks cut along (the audio unless --no-audio); audio not carried: exit status 2.
        try report(trimmer.commit(plan, input: input, to: FileSink(path: output), format: to.format(mp4), audio: !noAudio), verbose: verbose,
                   noOtherTracks: otherTracks.noOtherTracks)
    }
}

extension Trim: CommandIO {
    var input: String { resolvedInputPath(inputArgument) }
    var output: String { outputArgument ?? "-" }
    var outputs: [(option: String, path: String)] { [("-o", output)] }
    var otherInputs: [String] { extradata.map { [$0] } ?? [] }
    var writesBinary: Bool { true }
    var example: String { "nalu trim clip.mp4 --start 1 --end 2 -o cut.mp4" }

    /// The output framing: --to, else from the output's extension.
    var to: OutputFraming { OutputFraming(chosen: toOption, outputPath: outputArgument) }

    func checkOptions() throws {
        try Naming.checkOutputFraming(toOption, output: outputArgument, example: "nalu trim clip.mp4 --start 1 --end 2 --to annexb | ffplay -")
    }
}
