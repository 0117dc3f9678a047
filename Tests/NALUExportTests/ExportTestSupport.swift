import Foundation
import Testing

/// Paths, child processes and ffprobe for the export tests.
enum ExportTestSupport {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> String { repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)").path }

    /// A built executable of the package (`nalu`, `transcode-sample`) next to the test bundle.
    static func executable(_ name: String) -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// A new empty directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The names in `directory`.
    static func contents(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `path` with `arguments` to the end; output through files (no pipe fills up).
    @discardableResult
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = try start(path, arguments, environment: environment)
        process.process.waitUntilExit()
        return process.result()
    }

    final class Child {
        let process: Process
        let out: URL
        let err: URL

        init(process: Process, out: URL, err: URL) {
            self.process = process
            self.out = out
            self.err = err
        }

        func result() -> Run {
            let stdout = (try? Data(contentsOf: out)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let stderr = (try? Data(contentsOf: err)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
            return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
        }
    }

    static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Child {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-export-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-export-err-\(UUID().uuidString)")
        try Data().write(to: out)
        try Data().write(to: err)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Child(process: process, out: out, err: err)
    }

    /// `ffprobe -v error ARGS` standard output, or a recorded issue.
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/env", ["ffprobe", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The video pictures' presentation times as ffprobe shows them (edit lists applied), in
    /// presentation order.
    static func pictureTimes(_ path: String) throws -> [String] {
        let text = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        // One value a line (a frame with side data ends its line with a comma).
        let times = text.split(separator: "\n").compactMap { $0.split(separator: ",").first.map(String.init) }
        return times.sorted { (Double($0) ?? 0) < (Double($1) ?? 0) }
    }

    /// The first audio stream's packets: pts, duration, size and MD5 of the data (ffmpeg's
    /// framemd5 of a stream copy).
    static func audioPackets(_ path: String) throws -> [String] {
        let result = try run("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
        #expect(result.status == 0, "ffmpeg framemd5 \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The video stream's packet count (ffprobe -count_packets).
    static func videoPacketCount(_ path: String) throws -> Int {
        let text = try ffprobe(["-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        // A transport stream lists its streams once per program: the first line.
        return text.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// `Scripts/avsync.py SOURCE OUTPUT --at T --json`: the A/V shift of OUTPUT in milliseconds.
    static func avShift(source: String, output: String, at seconds: Double) throws -> Double? {
        let script = repositoryRoot.appendingPathComponent("Scripts/avsync.py").path
        let result = try run("/usr/bin/env", ["python3", script, source, output, "--at", String(seconds), "--json"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        guard let data = result.stdout.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (object["shift_ms"] as? Double) ?? (object["shift_ms"] as? NSNumber)?.doubleValue
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// x264's `asm` setting (`k=v` for `--x264-params`) for this machine's instruction sets up to
    /// AVX2, when it has AVX-512 (`nil` otherwise: nothing to leave out). libx264 build 164's
    /// AVX-512 code reads memory it never wrote, so its output varies from run to run there.
    static let x264WithoutAVX512: String? = {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
        let flags = Set(line.split(separator: " ").map(String.init))
        guard flags.contains("avx512f") else { return nil }
        // x264's names (common/cpu.c) and the kernel's for the same instruction sets.
        let names: [(x264: String, kernel: String)] = [
            ("MMX2", "sse"), ("SSE", "sse"), ("SSE2", "sse2"), ("SSE3", "pni"), ("SSSE3", "ssse3"),
            ("SSE4.1", "sse4_1"), ("SSE4.2", "sse4_2"), ("AVX", "avx"), ("LZCNT", "abm"), ("BMI1", "bmi1"),
            ("BMI2", "bmi2"), ("FMA3", "fma"), ("AVX2", "avx2"),
        ]
        return "asm=" + names.filter { flags.contains($0.kernel) }.map(\.x264).joined(separator: ",")
    }()
}
