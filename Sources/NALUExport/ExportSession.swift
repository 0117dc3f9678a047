import NALU
import NALUEncoder
import NALUIO

/// Exports a file: its video re-encoded (or copied), its audio copied, optionally a time range
/// of it — the `AVAssetExportSession` of nalu (issue 39).
///
/// ```swift
/// var settings = ExportSettings()
/// settings.video = .encode(VideoEncoding(codec: .hevc))
/// settings.start = try MediaTime(parsing: "10")
/// let session = ExportSession(input: "in.mp4", output: "out.mp4", settings: settings)
/// let watcher = Task { for await step in session.progress { print(step.fraction) } }
/// let report = try await session.export()
/// ```
///
/// - Re-encoding (``ExportSettings/Video/encode(_:)``): decode → encode → write, with at most
///   ``ExportSettings/framesInFlight`` pictures between decoding and encoding, so memory does
///   not grow with the input's length. Every picture keeps its presentation time; MP4/MOV
///   output copies the input's other tracks (audio, subtitles, timecode) interleaved, MPEG-TS
///   output (`.ts`, `.m2ts`) its AAC — the same bytes as `nalu encode IN -o OUT`.
/// - Passthrough (``ExportSettings/Video/passthrough``): the video copied; a time range is cut
///   frame-exactly by the smart cut (``NALUSmartCut/SmartTrimmer``). MP4/MOV output.
/// - The output is written under a temporary name and renamed into place only when complete
///   (``NALUIO/FileSink``): a failed or cancelled export leaves no output and no temporary file.
/// - Cancelling the task that awaits ``export()`` stops the work within about a picture's
///   encoding time (well under 100 ms): ``export()`` throws `CancellationError` and nothing is
///   committed. (Once the output is committed the export has succeeded.)
/// - Errors are ``ExportError``s, or the parser's ``NALU/NALUError`` for a malformed input.
///   Pictures that could not be decoded fail the export with
///   ``ExportError/Code/picturesLost`` after the output holding every decodable one is written.
public final class ExportSession: Sendable {
    /// The input path.
    public let input: String
    /// The output path: `.mp4`, `.m4v`, `.mov` (MP4/MOV), `.ts`, `.m2ts`, `.mts` (MPEG-TS).
    public let output: String
    /// What is written.
    public let settings: ExportSettings
    /// How far the export is: monotonic values, the last one 1.0 once the output is committed
    /// (the stream ends without it when the export fails or is cancelled). The newest values are
    /// kept for a slow reader.
    public let progress: AsyncStream<ExportProgress>
    private let continuation: AsyncStream<ExportProgress>.Continuation
    private let started = ExportOnce()

    public init(input: String, output: String, settings: ExportSettings = ExportSettings()) {
        self.input = input
        self.output = output
        self.settings = settings
        (progress, continuation) = AsyncStream.makeStream(of: ExportProgress.self, bufferingPolicy: .bufferingNewest(32))
    }

    /// Runs the export on a thread of its own and returns what it wrote; throws
    /// `CancellationError` when the calling task is cancelled (no output, no temporary file),
    /// otherwise an ``ExportError`` or the stream's `NALUError`. Runs once per session.
    /// Untyped (`any Error`): issue 39 item 3 asks for `CancellationError` on cancel, which
    /// `throws(ExportError)` could not carry as itself.
    public func export() async throws -> ExportReport {
        guard started.claim() else {
            throw ExportError(.invalidSettings, subject: output, "export() runs once per ExportSession")
        }
        let cancellation = ExportCancellation()
        let job = ExportJob(input: input, output: output, settings: settings, cancellation: cancellation,
                            meter: ProgressMeter(continuation))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<ExportReport, any Error>) in
                let box = UncheckedBox(job)
                guard DetachedThread.start({ waiter.resume(with: Result { try box.value.run() }) }) else {
                    job.meter.end()
                    waiter.resume(throwing: ExportError(.resources, subject: input, "cannot start the export's thread"))
                    return
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// What an export wrote.
public struct ExportReport: Sendable {
    /// The output path.
    public var output: String
    /// Pictures in the output.
    public var frames: Int
    /// The tracks copied beside the video (descriptions, e.g. `track 2 (soun)`).
    public var copiedTracks: [String] = []
    /// Tracks left out because ``ExportSettings/dropsTracksNotCarried`` allowed it.
    public var tracksLeftOut: [String] = []
    /// What was stepped over in the input (a transport stream's damage, an access unit the
    /// decoder rejected), as `path: text`; the first 100.
    public var warnings: [String] = []
    /// What the muxer did that a reader should know.
    public var notes: [String] = []
}

/// `export()`'s one run.
final class ExportOnce: @unchecked Sendable {
    private let lock = ThreadLock()
    private var claimed = false

    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}

/// The cancellation of one export, set from the awaiting task's cancellation handler and read
/// by the export's thread; hooks wake what that thread may be waiting on (the decoder's queue).
final class ExportCancellation: @unchecked Sendable {
    private let lock = ThreadLock()
    private var cancelled = false
    private var hooks: [@Sendable () -> Void] = []

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() {
        let hooks: [@Sendable () -> Void] = lock.withLock {
            cancelled = true
            defer { self.hooks = [] }
            return self.hooks
        }
        for hook in hooks { hook() }
    }

    /// Runs `hook` on cancellation (now, if cancelled already).
    func onCancel(_ hook: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if cancelled { return true }
            hooks.append(hook)
            return false
        }
        if now { hook() }
    }

    /// Throws `CancellationError` once cancelled.
    func check() throws {
        if isCancelled { throw CancellationError() }
    }
}

/// Warnings gathered from any thread (the first 100).
final class WarningList: @unchecked Sendable {
    private let lock = ThreadLock()
    private var items: [String] = []

    func add(_ text: String) { lock.withLock { if items.count < 100 { items.append(text) } } }
    var all: [String] { lock.withLock { items } }
}
