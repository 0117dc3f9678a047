#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport
import NALUIO
import NALUMedia
import NALUX264
import NALUX265

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
    var pixelFormat: PixelFormatOption?

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
        let (startTime, endTime) = try timeRange()
        if let endTime, endTime <= startTime { throw ValidationError("--end must be after --start.") }
        try range.check(frames: frames, testPattern: testPattern, openGOP: openGOP)
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
        if outputArgument == "-" { return .annexb }
        if let framing = Naming.framing(forExtensionOf: outputArgument) { return framing }
        if let transportStream = Naming.transportStream(outputArgument) { return transportStream == .m2ts ? .m2ts : .ts }
        // A device or FIFO (/dev/null, a named pipe) takes the default.
        var info = stat()
        if stat(outputArgument, &info) == 0, info.st_mode & S_IFMT != S_IFREG { return .annexb }
        return nil
    }

    var resolvedCodec: Codec {
        if let codec { return codec.codec }
        if let encoder = encoderChoice.encoder { return encoder.codec }
        return outputArgument.flatMap(Naming.codec(forExtensionOf:)) ?? .h264
    }

    /// The output path: -o, else next to an input file (named for it with the codec's
    /// extension), else standard output.
    var output: String {
        if let outputArgument { return outputArgument }
        guard let input, input != "-", !usesTestPattern else { return "-" }
        let codecExtension = range.partSuffix + (resolvedCodec == .hevc ? ".h265" : ".h264")
        switch framing ?? .annexb {
        case .annexb: return Naming.defaultOutput(forInput: input, extension: codecExtension)
        case .avcc: return Naming.defaultOutput(forInput: input, extension: codecExtension + ".lp")
        case .mp4: return Naming.defaultOutput(forInput: input, extension: range.partSuffix + ".mp4")
        case .ts: return Naming.defaultOutput(forInput: input, extension: range.partSuffix + ".ts")
        case .m2ts: return Naming.defaultOutput(forInput: input, extension: range.partSuffix + ".m2ts")
        }
    }

    /// Opens the input once: Y4M when it starts with `YUV4MPEG2 ` (or is named .y4m), else raw
    /// frames of --size or the size in the file name.
    private func openInput(_ path: String) throws -> (EncodeInput, EncodeSource) {
        let source = try EncodeSource(path: path)
        let subject = path == "-" ? "standard input" : path
        let magic = Array("YUV4MPEG2 ".utf8)
        let isY4M = try source.peek(magic.count) == magic || path.lowercased().hasSuffix(".y4m")
        if isY4M {
            let reader = try Y4MReader(source)
            // A file holding less than one frame after the header is refused before any frame
            // memory is taken (issue 32 item 8): the header alone decides the frame size.
            if let fileSize = source.regularFileSize, fileSize > reader.firstFrameOffset,
               fileSize - reader.firstFrameOffset < Int64(reader.buffer.byteCount) + 6 {
                throw EncoderError(.invalidInput, field: "Y4M header", byteOffset: 0,
                                   detail: "W\(reader.header.width) H\(reader.header.height) C\(reader.header.colourSpace) frames are \(reader.buffer.byteCount) bytes; the file holds \(fileSize - reader.firstFrameOffset) after the header, less than one frame")
            }
            if size != nil || pixelFormat != nil {
                Diagnostics.warning("\(subject): the Y4M header says \(reader.header.width)x\(reader.header.height) \(reader.header.pixelFormat); --size and --pix-fmt are ignored")
            }
            return (.y4m(reader), source)
        }
        // Without --size, a compressed input (MP4/MOV, TS, Annex-B, length-prefixed), told by its
        // content, is decoded: a WxH in its name (holiday_320x180.mp4) describes raw video only
        // (issue 40 item 8). A FIFO with a size in its name is raw video: probing would consume it.
        if size == nil, path != "-", source.regularFileSize != nil || Naming.frameSize(inName: path) == nil,
           CompressedInput.isCompressed(path) {
            if range.seek != nil { throw CLIError.usage("--seek", "a compressed input takes --start and --end (times) instead") }
            do {
                return (.decoded(try DecodedVideoInput(path: path, factory: decoder.factory, chunk: range.chunk.map { ($0.index, $0.count) }, pid: pid?.value,
                                                       warning: Diagnostics.libraryWarning)), source)
            } catch let error as DecoderError {
                throw error.cliError(input: path)
            }
        }
        if pid != nil { throw CLIError.usage("--pid", "chooses a program of an MPEG-TS input; \(path) is raw video") }
        guard let size = size ?? (path == "-" ? nil : Naming.frameSize(inName: path)) else {
            throw CLIError.usage(subject, "cannot tell the frame size of raw video; give --size WxH (or name the file like clip_640x360.yuv)")
        }
        let reader = try RawVideoReader(source, pixelFormat: pixelFormat?.pixelFormat ?? .i420, width: size.width, height: size.height)
        if let fileSize = source.regularFileSize, fileSize > 0, fileSize < Int64(reader.frameSize) {
            throw CLIError(subject, "holds \(fileSize) bytes, less than one \(size.width)x\(size.height) \(reader.buffer.pixelFormat) frame (\(reader.frameSize) bytes)",
                           hint: "check --size and --pix-fmt", status: ExitStatus.dataError)
        }
        return (.raw(reader, source), source)
    }

    func run() throws {
        Diagnostics.quiet = quiet
        Signals.finishOnSignal = true
        guard let framing else { throw Naming.unknownFraming(self.output, transportStream: true) }
        let output = self.output

        // Input.
        var source: EncodeInput
        var frameRate = fps?.rational ?? Rational(30, 1)
        var totalFrames: Int64? = frames.map(Int64.init)
        // Only --frames (or the pattern's default) stops reading early: a file's size is just an
        // estimate for the progress line.
        var limit = frames.map(Int64.init) ?? Int64.max
        var chunkRange: FrameRange?
        var decodedTimeBase: Rational?
        var decodedInput: DecodedVideoInput?
        // Compressed input with --start/--end: the pts kept.
        var keptRange: Range<Int64>?
        if usesTestPattern {
            if range.isSet { throw ValidationError("--chunk and --seek need an input file (raw or Y4M), not the test pattern.") }
            let size = size ?? FrameSize(width: 640, height: 360)
            source = .pattern(try TestPattern(pixelFormat: pixelFormat?.pixelFormat ?? .i420, width: size.width, height: size.height), next: 0)
            if totalFrames == nil { totalFrames = 150 }
            limit = totalFrames ?? 150
        } else {
            let (opened, file) = try openInput(input ?? "-")
            source = opened
            switch opened {
            case .raw(let reader, _):
                if scale != nil { throw CLIError.usage("--scale", "--scale needs a compressed input (MP4/MOV, TS, H.264/H.265)") }
                if start != nil || end != nil { throw CLIError.usage("--start", "--start and --end need a compressed input (MP4/MOV, TS, H.264/H.265); use --seek and --frames for raw or Y4M") }
                if totalFrames == nil, let bytes = file.regularFileSize { totalFrames = bytes / Int64(reader.frameSize) }
            case .y4m(let reader):
                if scale != nil { throw CLIError.usage("--scale", "--scale needs a compressed input (MP4/MOV, TS, H.264/H.265)") }
                frameRate = reader.header.frameRate
                if totalFrames == nil, let bytes = file.regularFileSize {
                    // An estimate: every frame behind a plain "FRAME\n" line.
                    totalFrames = bytes / Int64(reader.buffer.byteCount + 6)
                }
            case .pattern: break
            case .decoded(let decoded):
                // The source's own timing: each frame keeps its pts, in the container's time base.
                frameRate = fps?.rational ?? decoded.frameRate()
                decodedTimeBase = decoded.timeBase
                decodedInput = decoded
                if let scale {
                    do {
                        try decoded.scale(width: scale.width, height: scale.height)
                    } catch let error as ExportError where error.code == .invalidSettings {
                        throw CLIError.usage("--scale", error.message)
                    }
                }
                if start != nil || end != nil {
                    let (startTime, endTime) = try timeRange()
                    do {
                        keptRange = try decoded.presentedRange(start: startTime, end: endTime)
                    } catch let error as ExportError where error.code == .invalidSettings {
                        let option = error.subject == "end" ? "--end" : "--start"
                        throw CLIError.usage(option, "the input ends before \(option == "--end" ? end ?? "" : start ?? "0")")
                    }
                }
                if let chunk = decoded.chunkRange {
                    if start != nil || end != nil { throw CLIError.usage("--chunk", "use --chunk without --start and --end") }
                    // The chunk's pictures, within the ones the input shows.
                    let low = max(chunk.lowerBound, decoded.presentationOrigin)
                    let high = min(chunk.upperBound, try decoded.presentationEnd() ?? Int64.max)
                    guard low < high else { throw CLIError.usage("--chunk", "chunk \(range.chunk?.text ?? "") holds no picture") }
                    keptRange = low..<high
                }
            }
            if let decodedInput, totalFrames == nil {
                // The progress line's ETA: the MP4 track's pictures in the range.
                totalFrames = try decodedInput.pictureCount(in: keptRange)
            }
            let subject = input.map { $0 == "-" ? "standard input" : $0 } ?? "standard input"
            if decodedInput == nil, let selected = try range.select(&source, file: file, frames: frames, subject: subject) {
                chunkRange = selected
                totalFrames = selected.count
                limit = selected.count
            }
        }

        // Configuration.
        let codec = resolvedCodec
        var configuration = EncoderConfiguration(codec: codec, width: source.size.width, height: source.size.height)
        configuration.pixelFormat = source.pixelFormat
        configuration.frameRate = frameRate
        if let decodedTimeBase { configuration.timeBase = decodedTimeBase }
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
        configuration.outputFormat = framing.streamFormat
        configuration.expectedFrameCount = totalFrames.map { min($0, limit) }
        configuration.extraParameters = try encoderChoice.extraParameters(codec)
        if let decodedInput, encoderChoice.encoder != .openh264 {
            // The source's colour description and SAR go to x264/x265 (OpenH264 writes no VUI colour).
            configuration.extraParameters += decodedInput.signalParameters(except: Set(configuration.extraParameters.map(\.name)), x265: codec == .hevc)
        }
        configuration.computePSNR = qualityOptions.psnr
        configuration.computeSSIM = qualityOptions.ssim
        // A size the codec cannot code (smaller than one HEVC CTU) is one usage error, before any library is opened.
        do {
            try configuration.validate()
        } catch {
            guard error.context != "size" else { throw ValidationError("\(error)") }
            throw error
        }
        let factory = encoderChoice.factory(codec, quiet: quiet)
        // An interlaced input stays interlaced (issue 41 item 15), unless --progressive.
        configuration.interlace = try interlaceOptions.interlace(of: decodedInput?.source, pid: pid?.value, configuration: configuration,
                                                                 factory: factory, scaled: scale != nil)
        let session = try EncoderSession(configuration: configuration, factory: factory)

        // Output: an elementary stream, or MP4 muxed from the Annex-B access units.
        // A compressed input keeps each picture's pts (and its other tracks) unless -r forces a rate.
        if framing == .mp4 { try mp4.check(codec: codec) }
        let timedFile: TimedMP4Output? = if framing == .mp4, fps == nil, let decodedInput, let timeBase = decodedInput.timeBase {
            try TimedMP4Output(path: output, codec: codec, options: mp4.muxerOptions(frameRate: nil), source: decodedInput.source, timeBase: timeBase,
                               keptRange: keptRange, copyAudio: !noAudio, chunk: decodedInput.chunkRange == nil ? nil : decodedInput.chunkEnds)
        } else { nil }
        // MPEG-TS: the source's times and AAC kept, unless -r forces a rate.
        let tsFile: TimedTransportStreamOutput? = framing.isTransportStream
            ? try TimedTransportStreamOutput(path: output, codec: codec, timestamped: framing == .m2ts, maxAccessUnitSize: mp4.maxAccessUnitSize,
                                              frameRate: frameRate, timeBase: fps == nil ? decodedInput?.timeBase : nil,
                                              source: decodedInput?.source, keptRange: keptRange, copyAudio: !noAudio)
            : nil
        let mp4File = framing == .mp4 && timedFile == nil
            ? try MP4OutputFile(path: output, codec: codec, options: mp4, frameRate: frameRate) : nil
        let sink: FileSink? = timedFile != nil || tsFile != nil ? nil : try mp4File?.sink ?? FileSink(path: output)
        // Tracks of a compressed input the output leaves out are named: an elementary stream
        // holds the video only, and -r writes a constant-rate video track or stream only. Audio
        // left out without --no-audio gives exit status 2 once the output is written.
        let carried: Set<UInt32> = timedFile?.carried ?? (fps == nil ? tsFile?.carried : nil) ?? []
        let lost = decodedInput?.source.reportNotCarried(carried: carried, noAudio: noAudio, to: framing.outputFraming, input: input ?? "-",
                                                          reason: fps != nil && framing != .annexb && framing != .avcc ? "-r writes a constant-rate video only"
                                                              : framing.outputFraming.isTransportStream ? "encode's MPEG-TS output carries the video and one AAC stream" : nil)
        if let extradataOut {
            // avcc output: the avcC/hvcC record; Annex-B output: the parameter sets with start codes.
            try session.prepare()
            var bytes: [UInt8] = []
            if framing == .avcc, let record = try session.decoderConfigurationRecord() {
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
        let qualityMeter = QualityMeter(codec: codec)
        let write: (EncodedPacket) throws -> Void = { packet in
            qualityMeter.take(packet)
            if let timedFile {
                try timedFile.write(packet)
            } else if let tsFile {
                try tsFile.write(packet)
            } else if let mp4File {
                try packet.bytes.withUnsafeBytes { try mp4File.push(annexB: $0) }
            } else {
                try packet.bytes.withUnsafeBytes { try sink?.write($0) }
            }
        }
        var count: Int64 = 0
        // A chunk or --seek range starts with an IDR picture, whatever the library would choose.
        if chunkRange != nil || decodedInput?.chunkRange != nil { session.requestKeyframe() }
        var liveControl = LiveControl(live)
        // A stopping signal ends the reading; the frames so far are encoded and the output
        // completed, as x264 does.
        while count < limit, !Signals.stopRequested {
            guard let frame = try nextFrame(&source, count: count) else { break }
            if let keptRange {
                if frame.pts < keptRange.lowerBound { continue }
                if frame.pts >= keptRange.upperBound { decodedInput?.cancel(); break }
            }
            try liveControl.beforeFrame(count, session: session)
            try session.encode(frame, write)
            count += 1
            if showProgress { report.progress(session.statistics) }
        }
        // The same refusal whatever the output type (an MP4 cannot be empty; neither, then, is an elementary stream).
        guard count > 0 else {
            // A range no picture presents in (a transport stream's end is known only once read).
            if keptRange != nil, decodedInput?.chunkRange == nil, !Signals.stopRequested {
                throw CLIError.usage(start != nil ? "--start" : "--end", "no picture of the input presents from \(start ?? "0") to \(end ?? "its end")")
            }
            throw EncoderError(.truncatedInput, context: "input", detail: "no frames to encode", byteOffset: 0)
        }
        try session.flush(write)
        if let timedFile {
            for note in try timedFile.finish() { StandardError.write("nalu: note: \(note)\n") }
        } else if let tsFile {
            try tsFile.finish()
        } else if let mp4File {
            try mp4File.finish()
        } else {
            try sink?.commit()
        }
        if showProgress { report.endProgress() }

        let interrupted = Signals.received
        var summary = report.summary(session.statistics, output: output, codec: codec)
        if interrupted != 0 { summary.markInterrupted(signal: interrupted) }
        liveControl.annotate(&summary)
        for warning in liveControl.unreached(frames: count) { Diagnostics.warning(warning) }
        qualityMeter.annotate(&summary)
        if !quiet { StandardError.write(summary.line + "\n") }
        if let statsJSON {
            let file = try FileSink(path: statsJSON, bufferSize: 4096)
            var text = summary.object.prettyText + "\n"
            try text.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
            try file.commit()
        }
        if interrupted != 0 { exitProcess(Signals.exitStatus(interrupted)) }
        // Pictures the decoder could not give (damaged NAL units, failed decoders): exit 65.
        if let loss = decodedInput?.loss { throw loss }
        try lost?.fail()
    }
}

extension Encode {
    /// `--start` (default 0) and `--end`, as `nalu trim` parses them.
    func timeRange() throws -> (start: MediaTime, end: MediaTime?) {
        func parse(_ text: String?, _ option: String) throws -> MediaTime? {
            guard let text else { return nil }
            do {
                return try MediaTime(parsing: text, field: option)
            } catch {
                throw CLIError.usage(option, error.detail ?? "not a time", hint: "seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5, 1:00:00.040)")
            }
        }
        return (try parse(start, "--start") ?? .zero, try parse(end, "--end"))
    }

    /// The next frame, or `nil` at the end of the input, when a stopping signal cut the input
    /// short, or after a partial last frame of raw input (a warning with the bytes ignored).
    func nextFrame(_ source: inout EncodeInput, count: Int64) throws(EncoderError) -> Frame? {
        let frame: Frame?
        do {
            frame = try source.nextFrame()
        } catch {
            guard error.code == .truncatedInput else { throw error }
            if Signals.stopRequested { return nil }
            guard let ignored = source.trailingBytes(frames: count) else { throw error }
            Diagnostics.warning("\(input.map { $0 == "-" ? "standard input" : $0 } ?? "standard input"): the last frame is partial: \(ignored) bytes ignored after \(count) whole frames")
            return nil
        }
        return frame
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
        if framing == nil { throw Naming.unknownFraming(output, transportStream: true) }
    }
    var example: String { "nalu encode clip_640x360.yuv --codec hevc (writes clip_640x360.h265), or nalu encode --test-pattern -o demo.mp4" }
}
