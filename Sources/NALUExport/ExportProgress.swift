#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far an export is (``ExportSession/progress``): every value's ``fraction`` and
/// ``frames`` are at least the previous one's; the last is `1.0` with ``frames`` the pictures
/// of the output.
public struct ExportProgress: Sendable, Hashable {
    /// 0…1: pictures written of those the range holds (when the input says, as an MP4/MOV
    /// sample table does), else 0 until the end; exactly 1 once the output is committed.
    public var fraction: Double
    /// Pictures written to the output so far.
    public var frames: Int
    /// The pictures the output will hold, when known before the end.
    public var totalFrames: Int?
    /// Pictures written per second of wall-clock time.
    public var framesPerSecond: Double
    /// Seconds left at that rate; `nil` when the total is not known, `0` at the end.
    public var estimatedSecondsRemaining: Double?

    public init(fraction: Double, frames: Int, totalFrames: Int?, framesPerSecond: Double, estimatedSecondsRemaining: Double?) {
        self.fraction = fraction
        self.frames = frames
        self.totalFrames = totalFrames
        self.framesPerSecond = framesPerSecond
        self.estimatedSecondsRemaining = estimatedSecondsRemaining
    }
}

/// Turns pictures written into monotonic ``ExportProgress`` values on a stream.
final class ProgressMeter {
    private let continuation: AsyncStream<ExportProgress>.Continuation
    private let start = ProgressMeter.now()
    private var last = 0.0
    /// The pictures the output will hold, when known.
    var total: Int?
    private(set) var frames = 0

    init(_ continuation: AsyncStream<ExportProgress>.Continuation) { self.continuation = continuation }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// One more picture written.
    func picture() {
        frames += 1
        let elapsed = Self.now() - start
        let rate = elapsed > 0 ? Double(frames) / elapsed : 0
        var fraction = last
        var remaining: Double?
        if let total, total > 0 {
            // Below 1 until the output is committed.
            fraction = max(last, min(0.999, Double(frames) / Double(total)))
            if rate > 0 { remaining = Double(max(0, total - frames)) / rate }
        }
        last = fraction
        continuation.yield(ExportProgress(fraction: fraction, frames: frames, totalFrames: total, framesPerSecond: rate,
                                          estimatedSecondsRemaining: remaining))
    }

    /// The output is committed with `frames` pictures: the last value, 1.0.
    func finish(frames: Int) {
        self.frames = frames
        let elapsed = Self.now() - start
        continuation.yield(ExportProgress(fraction: 1, frames: frames, totalFrames: frames,
                                          framesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0, estimatedSecondsRemaining: 0))
        continuation.finish()
    }

    /// The export failed or was cancelled: the stream ends without reaching 1.
    func end() { continuation.finish() }
}
