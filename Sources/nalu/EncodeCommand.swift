import ArgumentParser
import NALU
import NALUEncoder
import NALUIO
import NALUX264
import NALUX265

/// `nalu encode`: raw video, Y4M or the built-in test pattern to an H.264 or H.265 elementary
/// stream through x264 or x265, driven by an `EncoderSession`.
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode raw video, Y4M or a moving test pattern to H.264 (x264) or H.265 (x265).",
        discussion: """
        Input: a Y4M file or stream (size, frame rate and colour space from its header), raw planar \
        frames when --size is given (--pix-fmt, --fps), - for standard input, or the moving test \
        pattern (--test-pattern, the default without input: 640x360, 150 frames).

        Defaults follow a mobile capture pipeline: 30 fps, a keyframe every 5 s, B-frames on, 5 Mbit/s, \
        H.264 High / HEVC Main (High 10 / Main 10 for 10-bit input), Annex-B with parameter sets \
        before every keyframe. A progress line goes to standard error when it is a terminal, and a \
        summary at the end (--quiet silences both).
        """
    )

    @Argument(help: ArgumentHelp("Y4M or raw input file, or - for standard input. Omit for the test pattern.", valueName: "input"))
    var input: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Output elementary stream, or - for standard output; .mp4/.mov/.m4v: an MP4 file.", valueName: "file"))
    var output: String

    @Option(help: "h264 (x264) or hevc (x265); from the output's extension when omitted (.h265/.265/.hevc: hevc), else h264.")
    var codec: CodecOption?

    @Flag(help: "Encode the built-in moving test pattern.")
    var testPattern = false

    @Option(help: ArgumentHelp("Frame size of raw input (or of the test pattern).", valueName: "WxH"))
    var size: FrameSize?

    @Option(name: .customLong("pix-fmt"), help: "Raw input layout: i420, nv12 or yuv420p10le (default i420).")
    var pixelFormat: PixelFormatOption?

    @Option(help: ArgumentHelp("Frame rate of raw input, e.g. 30, 29.97, 30000/1001 (default 30; Y4M: from the header).", valueName: "rate"))
    var fps: FrameRate?

    @Option(help: "Encode at most this many frames (test pattern default: 150).")
    var frames: Int?

    @Option(help: ArgumentHelp("Average bitrate, e.g. 2500k or 5M (default 5M).", valueName: "rate"))
    var bitrate: BitRate?

    @Option(help: "Constant rate factor instead of a bitrate (0–51).")
    var crf: Double?

    @Option(help: "Constant quantiser instead of a bitrate (0–51).")
    var qp: Int?

    @Option(name: .customLong("vbv-maxrate"), help: ArgumentHelp("VBV maximum rate, e.g. 6M (with --vbv-bufsize).", valueName: "rate"))
    var vbvMaxrate: BitRate?

    @Option(name: .customLong("vbv-bufsize"), help: ArgumentHelp("VBV buffer size in bits, e.g. 10M (with --vbv-maxrate).", valueName: "size"))
    var vbvBufsize: BitRate?

    @Option(help: "Keyframe interval in frames (default: 5 seconds of frames).")
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

    @Option(help: "Profile: baseline, main, high, high10 (H.264); main, main10 (HEVC).")
    var profile: String?

    @Option(help: ArgumentHelp("Level, e.g. 4.1.", valueName: "level"))
    var level: String?

    @Option(help: "Preset: ultrafast, superfast, veryfast, faster, fast, medium (default), slow, slower, veryslow, placebo.")
    var preset: String?

    @Option(help: "Tune, e.g. zerolatency, film, psnr, ssim, fastdecode.")
    var tune: String?

    @Option(help: "Encoder threads (default: the library's choice).")
    var threads: Int?

    @Option(name: .customLong("output-format"), help: "annexb (start codes) or avcc (4-byte lengths).")
    var outputFormat: EncodeOutputFormat = .annexb

    @Option(name: .customLong("extradata-out"), help: ArgumentHelp("Also write the extradata: the avcC/hvcC record with --output-format avcc, else the parameter sets with start codes.", valueName: "file"))
    var extradataOut: String?

    @OptionGroup var mp4: MP4OutputOptions

    @OptionGroup(title: "Live changes") var live: LiveControlOptions

    @Flag(help: "No progress line and no summary.")
    var quiet = false

    @Option(name: .customLong("stats-json"), help: ArgumentHelp("Write the summary as JSON to this file.", valueName: "file"))
    var statsJSON: String?

    func validate() throws {
        if [bitrate != nil, crf != nil, qp != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Use only one of --bitrate, --crf and --qp.")
        }
        if noBframes && bframes != nil { throw ValidationError("Use either --bframes or --no-bframes.") }
        if testPattern && input != nil { throw ValidationError("--test-pattern takes no input file.") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1.") }
        if (vbvMaxrate == nil) != (vbvBufsize == nil) { throw ValidationError("Give --vbv-maxrate and --vbv-bufsize together.") }
        if MP4OutputOptions.isMP4Path(output) && outputFormat == .avcc {
            throw ValidationError("MP4 output (\(output)) takes no --output-format: its samples are length-prefixed already.")
        }
        if !MP4OutputOptions.isMP4Path(output) && mp4.isSet {
            throw ValidationError("--faststart, --fragmented and --sample-entry go with an .mp4/.mov/.m4v output.")
        }
        if input != nil && !testPattern && size == nil && (pixelFormat != nil || fps != nil) {
            throw ValidationError("--pix-fmt and --fps describe raw input, which needs --size; Y4M input carries its own.")
        }
    }

    /// Opens Y4M input; a stream that is not Y4M gets a hint about raw input.
    static func openY4M(_ file: FileSource) throws(EncoderError) -> Y4MReader<FileSource> {
        do {
            return try Y4MReader(file)
        } catch {
            guard error.context == "Y4M header", error.code == .invalidInput else { throw error }
            throw EncoderError(error.code, context: error.context,
                               detail: (error.detail ?? "") + "; for raw frames give --size WxH", byteOffset: error.byteOffset)
        }
    }

    var resolvedCodec: Codec {
        if let codec { return codec.codec }
        let lower = output.lowercased()
        return [".h265", ".265", ".hevc"].contains(where: lower.hasSuffix) ? .hevc : .h264
    }

    func run() throws {
        // Input.
        var source: EncodeInput
        var frameRate = fps?.rational ?? Rational(30, 1)
        var totalFrames: Int64? = frames.map(Int64.init)
        // Only --frames (or the pattern's default) stops reading early: a file's size is just an
        // estimate for the progress line, so a truncated last frame is still reported.
        var limit = frames.map(Int64.init) ?? Int64.max
        if input == nil || testPattern {
            let size = size ?? FrameSize(width: 640, height: 360)
            source = .pattern(try TestPattern(pixelFormat: pixelFormat?.pixelFormat ?? .i420, width: size.width, height: size.height), next: 0)
            if totalFrames == nil { totalFrames = 150 }
            limit = totalFrames ?? 150
        } else if let input, let size {
            let file = try FileSource(path: input)
            let reader = try RawVideoReader(file, pixelFormat: pixelFormat?.pixelFormat ?? .i420, width: size.width, height: size.height)
            if totalFrames == nil, let bytes = file.regularFileSize { totalFrames = bytes / Int64(reader.frameSize) }
            source = .raw(reader)
        } else if let input {
            let file = try FileSource(path: input)
            let reader = try Self.openY4M(file)
            frameRate = reader.header.frameRate
            if totalFrames == nil, let bytes = file.regularFileSize {
                // An estimate: every frame behind a plain "FRAME\n" line.
                totalFrames = bytes / Int64(reader.buffer.bytes.count + 6)
            }
            source = .y4m(reader)
        } else {
            throw ValidationError("No input.")
        }

        // Configuration.
        let codec = resolvedCodec
        var configuration = EncoderConfiguration(codec: codec, width: source.size.width, height: source.size.height)
        configuration.pixelFormat = source.pixelFormat
        configuration.frameRate = frameRate
        if let bitrate { configuration.rateControl = .bitrate(bitrate.bitsPerSecond) }
        if let crf { configuration.rateControl = .crf(crf) }
        if let qp { configuration.rateControl = .qp(qp) }
        configuration.vbvMaxBitrate = vbvMaxrate?.bitsPerSecond
        configuration.vbvBufferSize = vbvBufsize?.bitsPerSecond
        configuration.gopLength = gop
        configuration.maxKeyframeIntervalSeconds = keyintSec
        configuration.bFrames = noBframes ? 0 : bframes
        configuration.sceneCutDetection = !noScenecut
        configuration.openGOP = openGOP
        configuration.profile = profile
        configuration.level = level
        configuration.preset = preset
        configuration.tune = tune
        configuration.threads = threads
        configuration.outputFormat = outputFormat.streamFormat
        configuration.expectedFrameCount = totalFrames.map { Int(clamping: min($0, limit)) }
        let factory = LiveControl.factory(codec, quiet: quiet)
        let session = try EncoderSession(configuration: configuration, factory: factory)

        // Output: an elementary stream, or MP4 muxed from the Annex-B access units.
        let mp4File = MP4OutputOptions.isMP4Path(output)
            ? try MP4OutputFile(path: output, codec: codec, options: mp4, frameRate: frameRate) : nil
        let sink = try mp4File?.sink ?? FileSink(path: output)
        if let extradataOut {
            // avcc output: the avcC/hvcC record; Annex-B output: the parameter sets with start codes.
            try session.prepare()
            var bytes: [UInt8] = []
            if outputFormat == .avcc, let record = try session.decoderConfigurationRecord() {
                bytes = record.bytes
            } else {
                for set in session.parameterSets { bytes += [0, 0, 0, 1] + set }
            }
            let extradata = try FileSink(path: extradataOut, bufferSize: 4096)
            try bytes.withUnsafeBytes { try extradata.write($0) }
            try extradata.commit()
        }

        var report = EncodeReport(frameRate: frameRate, totalFrames: totalFrames)
        let showProgress = !quiet && StandardError.isTerminal
        let write: (EncodedPacket) throws -> Void = { packet in
            if let mp4File {
                try packet.bytes.withUnsafeBytes { try mp4File.push(annexB: $0) }
            } else {
                try packet.bytes.withUnsafeBytes { try sink.write($0) }
            }
        }
        var count: Int64 = 0
        var liveControl = LiveControl(live)
        while count < limit, let frame = try source.nextFrame() {
            try liveControl.beforeFrame(count, session: session)
            try session.encode(frame, write)
            count += 1
            if showProgress { report.progress(session.statistics) }
        }
        try session.flush(write)
        if let mp4File { try mp4File.finish() } else { try sink.commit() }
        if showProgress { report.endProgress() }

        var summary = report.summary(session.statistics, output: output, codec: codec)
        liveControl.annotate(&summary)
        if !quiet { StandardError.write(summary.line + "\n") }
        if let statsJSON {
            let file = try FileSink(path: statsJSON, bufferSize: 4096)
            var text = summary.object.prettyText + "\n"
            try text.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
            try file.commit()
        }
    }
}
