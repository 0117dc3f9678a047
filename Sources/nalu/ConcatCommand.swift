import ArgumentParser
import NALU
import NALUIO
import NALUMP4
import NALUExport
import NALUMedia
import NALUTS

/// `nalu concat`: streams of one codec joined end to end (``Concatenator``).
struct Concat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat",
        abstract: "Join streams of one codec end to end without re-encoding.",
        discussion: """
        Inputs may mix Annex-B, length-prefixed (with --extradata, for every length-prefixed input) and MP4/MOV files. \
        Each input's parameter sets go in front of it: in band for Annex-B and length-prefixed output; for MP4 output \
        a new sample description where they change (size, profile), or in band with --sample-entry avc3/hev1. An end \
        of sequence NAL unit ends each input but the last. MP4/MOV inputs keep their own times in MP4 output, laid end \
        to end under one edit where no picture is hidden between inputs (and in MPEG-TS output when one edit would \
        show them all); other inputs, or --fps, are timed at one rate (--fps, else the first input's): timestamps \
        continue across the joins. H.264 and H.265 inputs are refused together (exit 65). MP4 output joins the audio \
        too when every input is MP4/MOV with one audio track alike in format, channels, sample rate and \
        AudioSpecificConfig (bitrate fields may differ): one continuous track with one edit, each input's audio \
        starting where the previous ones' ends within half a frame (its priming frame left out); otherwise the video \
        is written and the exit status is 2, saying why (--no-audio leaves the audio out, exit 0). MPEG-TS output \
        joins it the same way. Transport stream inputs get every audio stream joined (the k-th of each into the \
        k-th: AAC, AC-3, MPEG audio, with its language), each input's frames kept with its pictures. Movie metadata (rotation, creation time, udta) is the first input's; a \
        .mov output is branded qt.

        --smart joins ranges of the inputs frame-exactly: IN@START-END (either side optional, a.mp4@5- or b.mp4@-10; a \
        bare IN is the whole; a file that exists under the whole name is that file). Each range is cut as trim --smart \
        cuts it, and the pieces are joined on one continuous timeline with their audio, no edit list needed.
        """
    )

    @Argument(help: ArgumentHelp("Input streams or MP4/MOV files, in order (- for standard input, once); with --smart, IN@START-END keeps a range of IN.", valueName: "inputs"))
    var inputs: [String] = []
    @Option(name: .customLong("to"), help: "Output: annexb, avcc (length-prefixed), mp4, ts or m2ts (MPEG-TS); default from the output's extension.")
    var toOption: OutputFraming?
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file, or - for standard output (with --to).", valueName: "file"))
    var outputArgument: String?
    @Option(help: "Codec of the inputs (h264|hevc); detected when omitted.")
    var codec: CodecOption?
    @Option(help: ArgumentHelp("MPEG-TS inputs: the PID of the video stream to read (decimal or 0x hex), which chooses its program, as info and convert take it; default the first H.264/H.265 stream of the PMT.", valueName: "pid"))
    var pid: PIDOption?
    @Option(help: ArgumentHelp("avcC/hvcC record of the length-prefixed inputs.", valueName: "file"))
    var extradata: String?
    @Option(help: ArgumentHelp("MP4 and MPEG-TS output: time the join at this many frames per second (without it, inputs keep their own times; where they cannot, the first input's rate and exit 2 naming the inputs re-timed).", valueName: "rate"))
    var fps: FrameRate?
    @OptionGroup var mp4: MP4OutputOptions
    @Flag(help: "MP4 and MPEG-TS output: leave the audio out (it is joined when every input has as many matching audio tracks or streams).")
    var noAudio = false
    @OptionGroup var otherTracks: OtherTracksOption
    @OptionGroup var smartOptions: SmartTrimOptions
    @Flag(help: "Say what was joined on standard error.")
    var verbose = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give the inputs to join, in order.") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be given once.") }
        if to != .mp4 && mp4.isSet { throw ValidationError("--faststart, --fragmented and --sample-entry go with MP4 output.") }
        if fps != nil && ![.mp4, .ts, .m2ts].contains(to) { throw ValidationError("--fps goes with MP4 and MPEG-TS output.") }
        try smartOptions.check(smart: smartOptions.smart)
        if smartOptions.smart && (fps != nil || extradata != nil) {
            throw ValidationError("--fps and --extradata do not go with --smart (the pieces keep their own times).")
        }
    }

    func run() throws {
        if smartOptions.smart { return try runSmart() }
        var record: DecoderConfigurationRecord?
        if let extradata { record = try DecoderConfigurationRecord(contentsOf: extradata, codec: codec?.codec) }
        // The record applies to the inputs found to be length-prefixed (not MP4, not Annex-B).
        let joiner = try mappingOptionErrors(opening: true) {
            try Concatenator(paths: inputs, options: [MediaSourceOptions(codec: codec?.codec, pid: pid?.value)], lengthPrefixedRecord: record)
        }
        if to == .mp4 { try mp4.check(codec: joiner.codec) }
        // Audio or tracks not joined without --no-audio: exit status 2; retimed inputs said unless --fps chose the rate.
        try report(joiner.commit(to: FileSink(path: output), format: to.format(mp4, frameRate: fps?.rational), audio: !noAudio,
                                 frameRateGiven: fps != nil), verbose: verbose, noOtherTracks: otherTracks.noOtherTracks)
    }
}

extension Concat: CommandIO {
    var inputArgument: String? { inputPaths.first }
    var inputIsOptional: Bool { false }
    var output: String { outputArgument ?? "-" }
    var outputs: [(option: String, path: String)] { [("-o", output)] }
    var otherInputs: [String] { Array(inputPaths.dropFirst()) + (extradata.map { [$0] } ?? []) }
    var writesBinary: Bool { true }
    var example: String { "nalu concat a.mp4 b.h264 -o joined.mp4" }

    /// The output framing: --to, else from the output's extension.
    var to: OutputFraming { OutputFraming(chosen: toOption, outputPath: outputArgument) }

    /// Refuses an output whose framing nothing says, and an output that is one of the inputs
    /// (Preflight checks the first).
    func checkOptions() throws {
        try Naming.checkOutputFraming(toOption, output: outputArgument, example: "nalu concat a.h264 b.h264 --to annexb | ffplay -")
        try checkRanges()
        let key = OutputKey(output)
        for input in inputPaths.dropFirst() where input != "-" {
            if let identity = key.identity, identity.isRegularFile, identity == FileIdentity(path: input) {
                throw CLIError(output, "is an input file (\(input)); refusing to overwrite it",
                               hint: "write to another file, then rename it", status: ExitStatus.cannotCreate)
            }
        }
    }
}
