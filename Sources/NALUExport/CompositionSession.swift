#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
public import NALUDecoder
public import NALUEncoder
import NALUIO
import NALUMP4
import NALUMedia
public import NALUSmartCut
import NALUX264
import NALUX265
import NALUTS

/// How a ``NALUSmartCut/Composition`` is exported (``CompositionSession``).
public struct CompositionSettings: Sendable {
    /// The clips' audio: joined (``ExportSettings/Audio/passthrough``), or left out.
    public var audio: ExportSettings.Audio = .passthrough
    /// How the re-encoded pictures spend bits (the smart cut's default, CRF 12).
    public var rateControl: RateControl = .crf(12)
    /// x264/x265 preset of the re-encoded pictures (`nil`: the library's default, `medium`).
    public var preset: String?
    /// Settings of short re-encodes (``NALUSmartCut/SmartTrimmer/shortSegmentEncoding``: one
    /// thread, no x264 MB-tree lookahead; `nil`: the libraries' own).
    public var shortSegmentEncoding: ShortSegmentEncoding? = ShortSegmentEncoding()
    /// The decoder of the pictures a cut re-encodes.
    public var decoder: any DecoderBackendFactory = ExportDefaults.decoder
    /// The encoder of the re-encoded pictures (`nil`: x264 for H.264 clips, x265 for HEVC).
    public var encoder: (any EncoderBackendFactory)?
    /// Whether tracks the output cannot carry (a clip's subtitles that do not join, audio that
    /// does not join) may be left out; otherwise the export fails with
    /// ``ExportError/Code/tracksNotCarried`` and writes nothing.
    public var dropsTracksNotCarried = false
    /// Where the clips are cut before the join (`nil`: `$TMPDIR`, else `/tmp`).
    public var temporaryDirectory: String?

    public init() {}
}

/// What a composition's export wrote.
public struct CompositionReport: Sendable {
    /// The output path.
    public var output: String
    /// Pictures in the output.
    public var frames: Int
    /// Each clip's cut, in order (pictures shown, re-encoded, copied).
    public var clips: [CompositionWriter.ClipSummary]
    /// Audio samples joined, `nil` when the output has no audio.
    public var audioSamples: Int?
    /// Clips re-encoded whole because their codec differs from the first clip's.
    public var reencodedClips: [String] = []
    /// What a reader of the output should know (the muxer's notes, clips retimed).
    public var notes: [String] = []
    /// Tracks left out because ``CompositionSettings/dropsTracksNotCarried`` allowed it.
    public var tracksLeftOut: CarriageLoss?
}

/// Exports a ``NALUSmartCut/Composition``: the `AVAssetExportSession` of an
/// `AVMutableComposition` (issue 39 item 4).
///
/// ```swift
/// var composition = Composition()
/// composition.append("a.mp4")
/// try composition.append("b.mp4", seconds: 5, to: 12.5)
/// let session = CompositionSession(composition: composition, output: "joined.mp4")
/// let report = try await session.export()
/// ```
///
/// - Clips of the first clip's codec are joined by ``NALUSmartCut/CompositionWriter``: the
///   groups of pictures inside each range copied, only the pictures a cut needs decoded and
///   re-encoded, every boundary frame-exact, the audio cut and joined with the video.
/// - A clip of another codec is re-encoded whole into the first clip's codec (through
///   ``ExportSession``'s pipeline, its audio copied), then joined as the others are.
/// - Output: MP4/MOV (`.mp4`, `.m4v`, `.mov`) or MPEG-TS (`.ts`, `.m2ts`, `.mts`), written under a
///   temporary name and renamed into place only when complete.
/// - Cancelling the task that awaits ``export()`` stops the work within an access unit or a
///   re-encoded picture: ``export()`` throws `CancellationError`, nothing is committed, and no
///   temporary file (output or clip) is left.
/// - ``progress``: monotonic values over the pictures the output will show; the last is 1.0 once
///   the output is committed.
public final class CompositionSession: Sendable {
    /// The clips exported.
    public let composition: Composition
    /// The output path (its extension names the container).
    public let output: String
    /// How the clips are joined and what is written.
    public let settings: CompositionSettings
    /// How far the export is (as ``ExportSession/progress``).
    public let progress: AsyncStream<ExportProgress>
    private let continuation: AsyncStream<ExportProgress>.Continuation
    private let started = ExportOnce()

    /// A session exporting `composition` to `output` (nothing runs before ``export()``).
    public init(composition: Composition, output: String, settings: CompositionSettings = CompositionSettings()) {
        self.composition = composition
        self.output = output
        self.settings = settings
        (progress, continuation) = AsyncStream.makeStream(of: ExportProgress.self, bufferingPolicy: .bufferingNewest(32))
    }

    /// Runs the export on a thread of its own and returns what it wrote; throws
    /// `CancellationError` when the calling task is cancelled (no output, no temporary file),
    /// ``ExportError`` or the stream's `NALUError` otherwise. Runs once per session. Untyped
    /// (`any Error`) for `CancellationError`, as ``ExportSession/export()`` is.
    public func export() async throws -> CompositionReport {
        guard started.claim() else {
            throw ExportError(.invalidSettings, subject: output, "export() runs once per CompositionSession")
        }
        let cancellation = ExportCancellation()
        let job = CompositionJob(composition: composition, output: output, settings: settings, cancellation: cancellation,
                                 meter: ProgressMeter(continuation))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<CompositionReport, any Error>) in
                let box = UncheckedBox(job)
                guard DetachedThread.start({ waiter.resume(with: Result { try box.value.run() }) }) else {
                    job.meter.end()
                    waiter.resume(throwing: ExportError(.resources, subject: output, "cannot start the export's thread"))
                    return
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// One composition export, on its own thread.
final class CompositionJob {
    let composition: Composition
    let output: String
    let settings: CompositionSettings
    let cancellation: ExportCancellation
    let meter: ProgressMeter

    init(composition: Composition, output: String, settings: CompositionSettings, cancellation: ExportCancellation, meter: ProgressMeter) {
        self.composition = composition
        self.output = output
        self.settings = settings
        self.cancellation = cancellation
        self.meter = meter
    }

    func run() throws -> CompositionReport {
        var scratch: [(path: String, slot: Int?)] = []
        defer { for file in scratch { OutputTarget.removeScratchFile(file) } }
        do {
            try cancellation.check()
            let format: CutOutputFormat = try ExportContainer(path: output) == .mp4 ? .mp4(MP4MuxerOptions()) : .transportStream(transportStreamOptions())
            guard let first = composition.clips.first else {
                throw ExportError(.invalidSettings, subject: "composition", "no clip to export")
            }
            let codec = try MediaSource(path: first.path, options: first.options).codec
            // Clips of another codec: re-encoded whole into this one, then joined as any clip.
            var clips = composition.clips
            var reencoded: [String] = []
            var codecs: [String: Codec] = [:]
            for (position, clip) in clips.enumerated() {
                if codecs[clip.path] == nil { codecs[clip.path] = try MediaSource(path: clip.path, options: clip.options).codec }
                guard codecs[clip.path] != codec else { continue }
                let file = try OutputTarget.createScratchFile(suffix: ".mp4", prefix: "nalu-clip-", in: temporaryDirectory)
                scratch.append(file)
                try reencode(clip, codec: codec, into: file.path)
                reencoded.append(clip.name)
                clips[position] = Composition.Clip(path: file.path)
            }
            try cancellation.check()
            let encoder = settings.encoder ?? (codec == .h264 ? X264BackendFactory() as any EncoderBackendFactory : X265BackendFactory())
            let writer = try CompositionWriter(Composition(clips: clips), decoder: settings.decoder, encoder: encoder)
            writer.rateControl = settings.rateControl
            writer.preset = settings.preset
            writer.shortSegmentEncoding = settings.shortSegmentEncoding
            writer.temporaryDirectory = settings.temporaryDirectory
            let cancellation = self.cancellation
            writer.isCancelled = { cancellation.isCancelled }
            let meter = self.meter
            meter.total = try writer.plannedPictures()
            writer.pictureWritten = { meter.picture() }
            let sink = try FileSink(path: output)
            defer { sink.discard() }
            let (result, written) = try writer.commit(to: sink, format: format, audio: settings.audio == .passthrough,
                                                      refusingLoss: !settings.dropsTracksNotCarried, isCancelled: { cancellation.isCancelled })
            meter.finish(frames: written.pictures)
            var report = CompositionReport(output: output, frames: written.pictures, clips: written.pieces, audioSamples: written.join.audioJoined)
            report.reencodedClips = reencoded
            report.notes = result.messages.map(\.text)
            report.tracksLeftOut = result.loss
            return report
        } catch {
            meter.end()
            // A stage's error carried whole (``ExportError/init(stage:)``): as the stage threw it.
            let error = ExportError.cause(of: error)
            if let loss = error as? CarriageLoss {
                throw ExportError(.tracksNotCarried, subject: loss.input, loss.message, underlying: loss)
            }
            throw ExportJob.typed(error, input: composition.clips.first?.path ?? output)
        }
    }

    /// ``CompositionSettings/temporaryDirectory``, else `$TMPDIR`, else `/tmp`.
    private var temporaryDirectory: String {
        if let directory = settings.temporaryDirectory, !directory.isEmpty { return directory }
        if let tmp = getenv("TMPDIR"), case let directory = String(cString: tmp), !directory.isEmpty { return directory }
        return "/tmp"
    }

    private func transportStreamOptions() throws -> TransportStreamMuxerOptions {
        var options = TransportStreamMuxerOptions()
        options.writer.timestampedPackets = try ExportContainer(path: output) == .transportStream(timestamped: true)
        return options
    }

    /// Re-encodes `clip` into `codec` as an MP4 at `path` (its audio copied), through the export
    /// pipeline.
    private func reencode(_ clip: Composition.Clip, codec: Codec, into path: String) throws {
        var settings = ExportSettings()
        var encoding = VideoEncoding(codec: codec)
        encoding.rateControl = self.settings.rateControl
        encoding.preset = self.settings.preset
        settings.video = .encode(encoding)
        settings.audio = self.settings.audio
        settings.start = clip.range.start
        settings.end = clip.range.end
        settings.decoder = self.settings.decoder
        settings.dropsTracksNotCarried = self.settings.dropsTracksNotCarried
        let (stream, continuation) = AsyncStream.makeStream(of: ExportProgress.self)
        _ = stream
        let job = ExportJob(input: clip.path, output: path, settings: settings, cancellation: cancellation, meter: ProgressMeter(continuation))
        _ = try job.run()
    }
}
