import ArgumentParser
import NALU
import NALUEncoder
import NALUExport
import NALUIO
import NALUMedia

/// `nalu encode`: raw video, Y4M or the built-in test pattern to an H.264 or H.265 elementary
/// stream through x264 or x265, driven by an `EncoderSession`.
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode raw video, Y4M or a moving test pattern to H.264 (x264) or H.265 (x265).",
        discussion: """
        Input: a Y4M file or stream (recognised by its YUV4MPEG2 signature; size, frame rate and \
        colour space from its header), raw planar frames of --size or of the last WxH in the file \
        name (clip_640x360.yuv; --pix-fmt, --fps), - or a pipe for standard input, or the moving \
        test pattern (--test-pattern, also the default with no input in a terminal: 640x360, 150 \
        frames). Without -o the output sits next to the input, named for it (raw.yuv → raw.h264, \
        raw.h265 with --codec hevc), or goes to standard output when that is a pipe. A compressed \
        input (MP4/MOV, MPEG-TS, H.264/H.265) is decoded and transcoded: into MP4 or MPEG-TS each \
        picture keeps its time and the audio is copied in sync; colour, SAR and HDR10 mastering \
        display and content light level SEI go to the encoder.

        Defaults follow a mobile capture pipeline: 30 fps, a keyframe every 5 s, B-frames on, 5 Mbit/s, \
        H.264 High / HEVC Main (or the profile the pixel format needs: High 10, High 4:2:2, High 4:4:4 \
        Predictive; Main 10, Main 4:2:2 10, Main 4:4:4), Annex-B with parameter sets \
        before every keyframe. A progress line goes to standard error when it is a terminal, and a \
        summary at the end (--quiet silences both).
        """
    )

    @Argument(help: ArgumentHelp("Y4M or raw input file, or - for standard input (the default when it is a pipe).", valueName: "input"))
    var input: String?
    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("Output file, or - for standard output. Default: next to the input, named for it (raw.yuv → raw.h264), or standard output when it is a pipe.", valueName: "file"))
    var outputArgument: String?
    @Option(help: "h264 (also avc, x264) or h265 (also hevc, x265); from the output's extension when omitted, else h264.")
    var codec: CodecOption?
    @Flag(help: "Encode the built-in moving test pattern.")
    var testPattern = false
    @Option(name: [.customLong("size"), .customLong("input-res")],
            help: ArgumentHelp("Frame size of raw input (or of the test pattern). Default: the last WxH in the file name, as x264 reads it (clip_640x360.yuv).", valueName: "WxH"))
    var size: FrameSize?
    @Option(name: .customLong("pix-fmt"), help: "Raw input layout: yuv420p (also i420), nv12, yuv422p, yuv444p, yuv420p10le, yuv422p10le, yuv444p10le or p010le (default yuv420p).")
    var pixelFormat: PixelFormat?
    @Option(name: [.customLong("fps"), .customShort("r")],
            help: ArgumentHelp("Frame rate of raw input, e.g. 30, 29.97, 30000/1001 (default 30; Y4M: from the header).", valueName: "rate"))
    var fps: FrameRate?
    @Option(help: "Encode at most this many frames (test pattern default: 150).")
    var frames: Int?
    @OptionGroup(title: "Frame range") var range: FrameRangeOptions
    @Option(help: ArgumentHelp("Average bitrate in kbit/s as in x264 (5000 = 5 Mbit/s), or with a unit: 2500k, 5M (default 5M).", valueName: "rate"))
    var bitrate: BitRate?
    @Option(help: "Constant rate factor instead of a bitrate (0–51).")
    var crf: Double?
    @Option(help: "Constant quantiser instead of a bitrate (0–51).")
    var qp: Int?
    @Option(name: .customLong("vbv-maxrate"), help: ArgumentHelp("VBV maximum rate in kbit/s, or 6M (with --vbv-bufsize).", valueName: "rate"))
    var vbvMaxrate: BitRate?
    @Option(name: .customLong("vbv-bufsize"), help: ArgumentHelp("VBV buffer size in kbit, or 10M (with --vbv-maxrate).", valueName: "size"))
    var vbvBufsize: BitRate?
    @Option(name: [.customLong("gop"), .customLong("keyint")], help: "Keyframe interval in frames (default: 5 seconds of frames).")
    var gop: Int?
    @Option(name: .customLong("keyint-sec"), help: ArgumentHelp("Maximum keyframe interval in seconds.", valueName: "seconds"))
    var keyintSec: Double?
    @Option(help: "Consecutive B-frames (default: the preset's).")
    var bframes: Int?
    @Flag(name: .customLong("no-bframes"), help: "Turn B-frames off.")
    var noBframes = false
    @Flag(name: .customLong("no-scenecut"), help: "No extra keyframes at scene cuts: keyframes exactly every --gop frames.")
    var noScenecut = false
    @Flag(name: .customLong("open-gop"), help: "Open GOPs (x264 recovery points, x265 CRA) instead of IDR keyframes.")
    var openGOP = false
    @Option(help: "Profile: baseline, main, high, high10, high422, high444 (H.264); main, main10, main422-10, main444-8, main444-10 (HEVC). Default: the smallest that carries the input's pixel format.")
    var profile: String?
    @Option(help: ArgumentHelp("Level, e.g. 4.1.", valueName: "level"))
    var level: String?
    @Option(help: "Preset: ultrafast, superfast, veryfast, faster, fast, medium (default), slow, slower, veryslow, placebo.")
    var preset: String?
    @Option(help: "Tune, e.g. zerolatency, film, psnr, ssim, fastdecode.")
    var tune: String?
    @Option(help: "Encoder threads (default: the library's choice).")
    var threads: Int?
    @Option(name: .customLong("to"),
            help: "Output framing: annexb (start codes), avcc (4-byte lengths), mp4, ts or m2ts (MPEG-TS; a compressed input's times and AAC kept). Default: from the output's extension (.h264 .264 .avc .h265 .265 .hevc: annexb; .mp4 .m4v .mov: mp4; .ts: ts; .m2ts .mts: m2ts).")
    var toOption: EncodeOutputFormat?
    @Option(name: .customLong("output-format"), help: .hidden)
    var outputFormatAlias: EncodeOutputFormat?
    @Option(name: .customLong("extradata-out"), help: ArgumentHelp("Also write the extradata: the avcC/hvcC record with --to avcc, else the parameter sets with start codes.", valueName: "file"))
    var extradataOut: String?
    @OptionGroup var mp4: MP4OutputOptions
    @OptionGroup var encoderChoice: EncoderChoice

    @OptionGroup var interlaceOptions: InterlaceOptions
    @Option(help: "Decoder library for a compressed input (MP4/MOV, TS, H.264/H.265 streams): avcodec (default) or de265.")
    var decoder: DecoderName = .avcodec
    @OptionGroup var qualityOptions: QualityOptions
    @Option(help: ArgumentHelp("MPEG-TS input: the PID of the video stream to decode (decimal or 0x hex), which chooses its program and its audio, as info, convert and trim take it.", valueName: "pid"))
    var pid: PIDOption?
    @Option(help: ArgumentHelp("Compressed input: encode the pictures shown from this time on (seconds, or [HH:]MM:SS[.fff], as nalu trim reads it); the audio is cut to match.", valueName: "time"))
    var start: String?
    @Option(help: ArgumentHelp("Compressed input: encode the pictures shown before this time.", valueName: "time"))
    var end: String?
    @Option(help: ArgumentHelp("Compressed input: resize to WxH through libswscale (bicubic); -1 for one side keeps the display aspect ratio, rounded to the chroma grid (1280x-1).", valueName: "WxH"))
    var scale: ScaleSize?
    @Flag(name: .customLong("no-audio"), help: "Compressed input: leave the audio out (copied unchanged into MP4 or MPEG-TS otherwise; audio an output cannot hold, as an elementary stream or an -r output, gives exit status 2).")
    var noAudio = false
    @OptionGroup var otherTracks: OtherTracksOption
    @OptionGroup(title: "Live changes") var live: LiveControlOptions
    @Flag(help: "No progress line, no summary and no warnings (the encoder libraries' included).")
    var quiet = false
    @Option(name: .customLong("stats-json"), help: ArgumentHelp("Write the summary as JSON to this file.", valueName: "file"))
    var statsJSON: String?

    func validate() throws {
        if [bitrate != nil, crf != nil, qp != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Use only one of --bitrate, --crf and --qp.")
        }
        if noBframes && bframes != nil { throw ValidationError("Use either --bframes or --no-bframes.") }
        try encoderChoice.check(codec: codec)
        if testPattern && input != nil { throw ValidationError("--test-pattern takes no input file.") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1.") }
        try commandLine(input: input ?? "-") { try inputOptions().validate(testPattern: testPattern, openGOP: openGOP) }
        if (vbvMaxrate == nil) != (vbvBufsize == nil) { throw ValidationError("Give --vbv-maxrate and --vbv-bufsize together.") }
        if let toOption, let outputFormatAlias, toOption != outputFormatAlias {
            throw ValidationError("--to \(toOption.rawValue) and --output-format \(outputFormatAlias.rawValue) disagree.")
        }
        if framing != .mp4 && mp4.isSet {
            throw ValidationError("--faststart, --fragmented and --sample-entry go with MP4 output (--to mp4, or an .mp4/.mov/.m4v output).")
        }
    }

    /// The output framing: --to (or --output-format), else from the output's extension; `nil`
    /// when neither says (a usage error at run time).
    var framing: EncodeOutputFormat? {
        if let chosen = toOption ?? outputFormatAlias { return chosen }
        guard let outputArgument else { return .annexb }
        return EncodeOutputFormat(outputPath: outputArgument)
    }

    var resolvedCodec: Codec {
        if let codec { return codec.codec }
        if let encoder = encoderChoice.encoder { return encoder.codec }
        return outputArgument.flatMap(Codec.init(outputName:)) ?? .h264
    }

    /// The output path: -o, else next to an input file (named for it with the codec's
    /// extension), else standard output.
    var output: String {
        if let outputArgument { return outputArgument }
        guard let input, input != "-", !usesTestPattern else { return "-" }
        return (framing ?? .annexb).defaultOutputPath(forInput: input, codec: resolvedCodec, suffix: range.partSuffix)
    }

    func run() throws {
        Diagnostics.quiet = quiet
        Signals.finishOnSignal = true
        guard let framing else { throw Naming.unknownFraming(self.output) }
        let output = self.output
        let options = try inputOptions()
        let plan = try commandLine(input: options.path ?? "-") { try EncodeInputPlan(options) }

        // The encoder, configured from the options and the input.
        let codec = resolvedCodec
        // The source's colour description and SAR go to x264/x265 (OpenH264 writes no VUI colour).
        var configuration = plan.configuration(codec: codec, extraParameters: try encoderChoice.extraParameters(codec),
                                               carriesSignal: encoderChoice.encoder != .openh264)
        if let bitrate { configuration.rateControl = .bitrate(bitrate.bitsPerSecond) }
        if let crf { configuration.rateControl = .crf(crf) }
        if let qp { configuration.rateControl = .qp(qp) }
        (configuration.vbvMaxBitrate, configuration.vbvBufferSize) = (vbvMaxrate?.bitsPerSecond, vbvBufsize?.bitsPerSecond)
        (configuration.gopLength, configuration.maxKeyframeIntervalSeconds) = (gop, keyintSec)
        (configuration.bFrames, configuration.sceneCutDetection, configuration.openGOP) = (noBframes ? 0 : bframes, !noScenecut, openGOP)
        (configuration.profile, configuration.level, configuration.preset, configuration.tune) = (profile, level, preset, tune)
        (configuration.threads, configuration.outputFormat) = (threads, framing.streamFormat)
        (configuration.computePSNR, configuration.computeSSIM) = (qualityOptions.psnr, qualityOptions.ssim)
        // A size the codec cannot code (smaller than one HEVC CTU) is one usage error, before any library is opened.
        do {
            try configuration.validate()
        } catch {
            guard error.context != "size" else { throw ValidationError("\(error)") }
            throw error
        }
        let factory = encoderChoice.factory(codec, quiet: quiet)
        // An interlaced input stays interlaced (issue 41 item 15), unless --progressive.
        configuration.interlace = try interlaceOptions.interlace(of: plan.decoded?.source, pid: options.pid, configuration: configuration,
                                                                 factory: factory, scaled: options.scale != nil)
        let session = try EncoderSession(configuration: configuration, factory: factory)

        // The output: a compressed input keeps each picture's pts (and its other tracks) unless -r forces a rate.
        if framing == .mp4 { try mp4.check(codec: codec) }
        let file = try EncodedOutput(path: output, framing: framing, codec: codec, mp4Options: mp4.muxerOptions(frameRate: nil),
                                     maxAccessUnitSize: mp4.maxAccessUnitSize, frameRate: plan.frameRate, keepsTimes: fps == nil,
                                     decoded: plan.decoded, keptRange: plan.keptRange, copyAudio: !noAudio)
        // Tracks of a compressed input the output leaves out are named: an elementary stream
        // holds the video only, and -r writes a constant-rate video track or stream only. Audio
        // left out without --no-audio gives exit status 2 once the output is written.
        let lost = plan.decoded?.source.carriageLoss(carried: file.carried, noAudio: noAudio, to: framing.conversionFormat.carriageTarget, input: input ?? "-",
                                                          reason: fps != nil && framing != .annexb && framing != .avcc ? "-r writes a constant-rate video only"
                                                              : nil)
        if let extradataOut { try EncodedOutput.writeExtradata(of: session, to: extradataOut, lengthPrefixed: framing == .avcc) }

        var progress = EncodeProgressLine(frameRate: plan.frameRate, totalFrames: plan.totalFrames)
        let pipeline = EncodePipeline(session: session, output: file, plan: plan)
        pipeline.liveChanges = live.changes
        // A stopping signal ends the reading; the frames so far are encoded and the output completed, as x264 does.
        pipeline.shouldStop = { Signals.stopRequested }
        if !quiet && StandardError.isTerminal { pipeline.onFrame = { if let text = progress.text($0) { StandardError.write(text) } } }
        let count = try pipeline.encode { try plan.nextFrame(count: $0) }
        // The same refusal whatever the output type (an MP4 cannot be empty; neither, then, is an elementary stream).
        guard count > 0 else {
            file.discard()
            throw plan.nothingEncoded(stopped: Signals.stopRequested)
        }
        for note in try pipeline.finish() { StandardError.write("nalu: note: \(note)\n") }
        if progress.drawn { StandardError.write("\n") }

        let interrupted = Signals.received
        let summary = pipeline.summary(elapsed: progress.elapsed, frameRate: plan.frameRate, output: output, interruptedBy: interrupted)
        let unreached = pipeline.liveChanges.unreached(frames: count)
        for option in unreached.bitrates.map({ "--bitrate-at \($0)" }) + unreached.keyframes.map({ "--idr-at \($0)" }) {
            Diagnostics.warning("\(option): the input ended after \(count) frame\(count == 1 ? "" : "s"); not applied")
        }
        if !quiet { StandardError.write(summary.line + "\n") }
        if let statsJSON { try summary.writeJSON(to: statsJSON) }
        if interrupted != 0 { exitProcess(Signals.exitStatus(interrupted)) }
        // Pictures the decoder could not give (damaged NAL units, failed decoders): exit 65.
        if let loss = plan.decoded?.loss { throw loss }
        try lost?.fail(noOtherTracks: otherTracks.noOtherTracks)
    }
}

extension Encode {
    /// What is read, as the library takes it.
    func inputOptions() throws -> EncodeInputOptions {
        let (startTime, endTime) = try timeRange()
        let path = usesTestPattern ? nil : input ?? "-"
        var options = EncodeInputOptions(path: path)
        (options.size, options.pixelFormat, options.frameRate, options.frames) = (size.map { (width: $0.width, height: $0.height) }, pixelFormat, fps?.rational, frames)
        options.sizeInName = path.flatMap { $0 == "-" ? nil : OutputNaming.frameSize(inName: $0) }
        (options.chunk, options.seek, options.pid) = (range.chunk.map { (index: $0.index, count: $0.count) }, range.seek, pid?.value)
        (options.start, options.end, options.startText, options.endText) = (start == nil ? nil : startTime, endTime, start, end)
        options.scale = scale.map { (width: $0.width, height: $0.height) }
        options.decoder = decoder.factory
        (options.warning, options.decoderWarning, options.isStopped) = (Diagnostics.warning, Diagnostics.libraryWarning, { Signals.stopRequested })
        return options
    }

    /// `--start` (default 0) and `--end`, as `nalu trim` parses them.
    func timeRange() throws -> (start: MediaTime, end: MediaTime?) {
        do {
            return try EncodeInputOptions.timeRange(start: start, end: end)
        } catch {
            throw CLIError.usage(error.field, error.detail ?? "not a time", hint: "seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5, 1:00:00.040)")
        }
    }
}

extension Encode: CommandIO {
    var inputArgument: String? { input }
    var inputIsOptional: Bool { !usesTestPattern }

    /// The test pattern: --test-pattern, or no input with standard input a terminal (nothing to
    /// read there); with a pipe on standard input, that is read.
    var usesTestPattern: Bool { testPattern || (input == nil && isTerminal(0)) }
    var outputs: [(option: String, path: String)] {
        [("-o", output)] + (extradataOut.map { [("--extradata-out", $0)] } ?? [])
            + (statsJSON.map { [("--stats-json", $0)] } ?? [])
    }
    var writesBinary: Bool { true }
    func checkOptions() throws {
        if framing == nil { throw Naming.unknownFraming(output) }
    }
    var example: String { "nalu encode clip_640x360.yuv --codec hevc (writes clip_640x360.h265), or nalu encode --test-pattern -o demo.mp4" }
}
