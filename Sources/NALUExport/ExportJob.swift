import NALU
import NALUDecoder
import NALUEncoder
import NALUIO
import NALUMP4
import NALUMedia
import NALUSmartCut
import NALUX264
import NALUX265

/// The container an export writes, from the output's extension.
enum ExportContainer: Equatable {
    case mp4
    case transportStream(timestamped: Bool)

    init(path: String) throws {
        let lower = path.lowercased()
        if [".mp4", ".m4v", ".mov"].contains(where: lower.hasSuffix) {
            self = .mp4
        } else if lower.hasSuffix(".ts") {
            self = .transportStream(timestamped: false)
        } else if lower.hasSuffix(".m2ts") || lower.hasSuffix(".mts") {
            self = .transportStream(timestamped: true)
        } else {
            throw ExportError(.invalidSettings, subject: path, "the output's extension names no container an export writes (.mp4, .m4v, .mov, .ts, .m2ts, .mts)")
        }
    }

    var target: CarriageTarget { self == .mp4 ? .mp4 : .transportStream }
}

/// One export, run on its own thread (``ExportSession/export()``): checks ``cancellation``
/// between pictures, and abandons its output (no file, no temporary file) when it is set or
/// anything fails.
final class ExportJob {
    let input: String
    let output: String
    let settings: ExportSettings
    let cancellation: ExportCancellation
    let meter: ProgressMeter
    private let warnings = WarningList()

    init(input: String, output: String, settings: ExportSettings, cancellation: ExportCancellation, meter: ProgressMeter) {
        self.input = input
        self.output = output
        self.settings = settings
        self.cancellation = cancellation
        self.meter = meter
    }

    func run() throws -> ExportReport {
        do {
            try cancellation.check()
            let container = try ExportContainer(path: output)
            let report: ExportReport
            switch settings.video {
            case .encode(let encoding): report = try reencode(encoding, container: container)
            case .passthrough: report = try passthrough(container: container)
            }
            return report
        } catch {
            meter.end()
            throw Self.typed(error, input: input)
        }
    }

    /// The stages' errors as ``ExportError``s (cancellation and the parser's errors as they are;
    /// a stage's typed error, ``ExportError/init(stage:)``, by the cause it carries).
    static func typed(_ error: any Error, input: String) -> any Error {
        let error = ExportError.cause(of: error)
        return switch error {
        case is CancellationError, is ExportError, is NALUError: error
        case let error as DecoderError: ExportError(.decodeFailed, subject: input, error.description, underlying: error)
        case let error as EncoderError: ExportError(.encodeFailed, subject: error.field, error.description, underlying: error)
        default: ExportError(.invalidInput, subject: input, "\(error)")
        }
    }

    // MARK: Re-encoding

    private func reencode(_ encoding: VideoEncoding, container: ExportContainer) throws -> ExportReport {
        let warnings = self.warnings
        let decoded = try DecodedVideoInput(path: input, factory: settings.decoder, framesInFlight: settings.framesInFlight,
                                            decoderThreads: settings.decoderThreads,
                                            warning: { warnings.add($0) })
        cancellation.onCancel(decoded.canceller)
        defer { decoded.cancel() }
        if encoding.width != nil || encoding.height != nil {
            try decoded.scale(width: encoding.width, height: encoding.height)
        }
        let keptRange = try self.keptRange(decoded)
        let total = try decoded.pictureCount(in: keptRange)
        meter.total = total.flatMap { Int(exactly: $0) }

        // The encoder, configured as `nalu encode IN` configures it.
        let codec = encoding.codec
        var configuration = EncoderConfiguration(codec: codec, width: decoded.width, height: decoded.height)
        configuration.pixelFormat = decoded.pixelFormat
        configuration.frameRate = decoded.frameRate()
        if let timeBase = decoded.timeBase { configuration.timeBase = timeBase }
        if let rateControl = encoding.rateControl { configuration.rateControl = rateControl }
        configuration.gopLength = encoding.gopLength
        configuration.preset = encoding.preset
        configuration.outputFormat = .annexB
        configuration.expectedFrameCount = total
        let factory = encoding.encoder ?? (codec == .h264 ? X264BackendFactory() as any EncoderBackendFactory : X265BackendFactory())
        configuration.extraParameters = encoding.parameters
        if factory.name != "openh264" {
            // The source's colour description, SAR and HDR metadata go to x264/x265.
            configuration.extraParameters += decoded.signalParameters(except: Set(encoding.parameters.map(\.name)), x265: codec == .hevc)
        }
        // An interlaced input stays interlaced (issue 41 item 15), unless progressive is asked for.
        do {
            configuration.interlace = try InterlaceChoice.interlace(
                of: decoded.source, pid: nil, configuration: configuration, factory: factory,
                scaled: encoding.width != nil || encoding.height != nil, progressive: encoding.progressive)
        } catch {
            guard let refusal = error.stageError as? InterlaceRefusal else { throw error }
            throw ExportError(.invalidSettings, subject: refusal.field, refusal.message,
                              hint: "VideoEncoding.progressive encodes the decoded pictures as progressive ones on purpose")
        }
        let session = try EncoderSession(configuration: configuration, factory: factory)

        // The output: the source's times kept, its other tracks carried.
        let framing: EncodeOutputFraming = switch container {
        case .mp4: .mp4
        case .transportStream(let timestamped): timestamped ? .m2ts : .ts
        }
        let output = try EncodedOutput(path: self.output, framing: framing, codec: codec, mp4Options: MP4MuxerOptions(),
                                       maxAccessUnitSize: AccessUnitLimit.defaultMaxBytes, frameRate: configuration.frameRate,
                                       keepsTimes: true, decoded: decoded, keptRange: keptRange, copyAudio: settings.audio == .passthrough)
        let leftOut: [String]
        do {
            leftOut = try checkCarriage(decoded.source, carried: output.carried, target: container.target)
        } catch {
            output.discard()
            throw error
        }

        let pipeline = EncodePipeline(session: session, output: output)
        let meter = self.meter
        let cancellation = self.cancellation
        pipeline.checkpoint = { try cancellation.check() }
        pipeline.onPacket = { meter.picture() }
        pipeline.keptRange = keptRange
        pipeline.onRangeEnd = { decoded.cancel() }
        let count = try pipeline.encode { _ in try decoded.nextFrame() }
        guard count > 0 else {
            output.discard()
            if keptRange != nil {
                throw ExportError(.invalidSettings, subject: "start", "no picture of \(input) presents from \(settings.start?.description ?? "0") to \(settings.end?.description ?? "its end")")
            }
            throw ExportError(.invalidInput, subject: input, "no picture to encode")
        }
        let notes = try pipeline.finish()
        var report = ExportReport(output: self.output, frames: meter.frames)
        report.notes = notes
        report.copiedTracks = output.copiedTracks
        report.tracksLeftOut = leftOut
        report.warnings = warnings.all
        meter.finish(frames: report.frames)
        // Pictures that could not be decoded: the output holds every other one, and the
        // export says what is missing (nothing is lost silently).
        if let loss = decoded.loss { throw loss }
        return report
    }

    /// The source pts kept for ``ExportSettings/start`` and ``ExportSettings/end`` (as
    /// `nalu encode --start --end` keeps them), or `nil` for everything.
    private func keptRange(_ decoded: DecodedVideoInput) throws -> Range<Int64>? {
        guard settings.start != nil || settings.end != nil else { return nil }
        return try decoded.presentedRange(start: settings.start ?? .zero, end: settings.end)
    }

    /// Refuses, before anything is written, an export that would leave a track out unasked.
    private func checkCarriage(_ source: MediaSource, carried: Set<UInt32>, target: CarriageTarget) throws -> [String] {
        let left = source.tracksLeftOut(carried: carried, noAudio: settings.audio == .none, to: target)
        var lost = left.audio + left.programs
        if !settings.dropsTracksNotCarried { lost += left.tracks }
        guard lost.isEmpty else {
            throw ExportError(.tracksNotCarried, subject: input, "\(lost.joined(separator: ", ")) would not be carried: \(left.why)")
        }
        return left.tracks
    }

    // MARK: Passthrough

    /// The video copied, cut frame-exactly by the smart cut when a range is asked for.
    private func passthrough(container: ExportContainer) throws -> ExportReport {
        guard container == .mp4 else {
            throw ExportError(.invalidSettings, subject: output, "a passthrough export writes MP4/MOV")
        }
        let probe = try MediaSource(path: input, options: MediaSourceOptions())
        let encoder: any EncoderBackendFactory = probe.codec == .h264 ? X264BackendFactory() : X265BackendFactory()
        let trimmer = try SmartTrimmer(path: input, decoder: settings.decoder, encoder: encoder)
        let cancellation = self.cancellation
        trimmer.isCancelled = { cancellation.isCancelled }
        // What the cut carries: the video and the audio (MP4 sound tracks, a transport stream's AAC).
        var carried = Set<UInt32>()
        let sink = try FileSink(path: output)
        defer { sink.discard() }
        var options = MP4MuxerOptions()
        options.metadata = try outputMetadata(from: trimmer.source, output: output)
        let result = try SmartCutError.unwrapping {
            try trimmer.writeMP4(start: settings.start ?? .zero, end: settings.end, output: sink, options: options, audio: settings.audio == .passthrough)
        }
        carried.formUnion(result.audioTrackIDs)
        let leftOut = try checkCarriage(trimmer.source, carried: carried, target: .cutMP4)
        try cancellation.check()
        try sink.commit()
        let frames = result.headPictures + result.copiedAccessUnits + result.tailPictures
        meter.finish(frames: frames)
        var report = ExportReport(output: output, frames: frames)
        report.notes = result.sink.notes
        report.tracksLeftOut = leftOut
        report.copiedTracks = result.audioTrackIDs.map { $0 > 0xFFFF ? "AAC PID \($0 & 0xFFFF)" : "track \($0)" }
        report.warnings = warnings.all
        return report
    }
}
