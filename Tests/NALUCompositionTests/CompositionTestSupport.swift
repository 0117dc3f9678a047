import Foundation
import NALUTestSupport
import Testing

/// Paths, child processes, ffprobe, A/V sync and peak memory for the composition tests.
enum CompositionTestSupport: ProcessTestSupport {
    static let scratchPrefix = "nalu-composition"

    /// `ffprobe -v error ARGS` standard output, or a recorded issue.
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/env", ["ffprobe", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The presentation times (s) of the pictures ffprobe shows from the first video stream
    /// (edit lists applied), sorted.
    static func pictureTimes(_ path: String) throws -> [Double] {
        let text = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        return text.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }.sorted()
    }

    /// A stream's `codec_name` (`v:0`, `a:0`).
    static func codecName(_ path: String, stream: String) throws -> String {
        try ffprobe(["-select_streams", stream, "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A stream's duration in seconds (`stream=duration`).
    static func streamDuration(_ path: String, stream: String) throws -> Double? {
        Double(try ffprobe(["-select_streams", stream, "-show_entries", "stream=duration", "-of", "csv=p=0", path])
            .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `Scripts/avsync.py SOURCE OUTPUT --at T --json`: the A/V shift of OUTPUT in milliseconds.
    static func avShift(source: String, output: String, at seconds: Double) throws -> Double? {
        let script = repositoryRoot.appendingPathComponent("Scripts/avsync.py").path
        let result = try run("/usr/bin/env", ["python3", script, source, output, "--at", String(seconds), "--json"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return nil }
        return (object["shift_ms"] as? NSNumber)?.doubleValue
    }

    /// Runs `path ARGS` under GNU time (`/usr/bin/time`: its `wait4` sees the child's own peak,
    /// which a `posix_spawn` child of this process does not report): exit status and peak RSS in bytes.
    static func peakRSS(_ path: String, _ arguments: [String]) throws -> (status: Int32, bytes: Int, stderr: String) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let usage = directory.appendingPathComponent("usage").path
        let result = try run("/usr/bin/time", ["-f", "%M", "-o", usage, path] + arguments)
        let kib = Int((try String(contentsOfFile: usage, encoding: .utf8)).split(separator: "\n").last ?? "") ?? Int.max / 1024
        return (result.status, kib * 1024, result.stderr)
    }
}

/// A task executor with one thread of its own, outside the cooperative pool: a task that must
/// react while the export runs (cancel it after N pictures) is not queued behind other suites'
/// blocking waits.
@available(macOS 15.0, iOS 18.0, *)
final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        let thread = Thread { [unowned self] in self.run() }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

@available(macOS 15.0, iOS 18.0, *)
extension CompositionTestSupport {
    /// The thread the cancellation tests' watchers run on.
    static let watcherThread = ThreadTaskExecutor()
}
