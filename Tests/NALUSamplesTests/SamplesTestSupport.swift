import Foundation
import Testing

/// Paths and child processes for the samples' tests.
enum SamplesTestSupport {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> String { repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)").path }

    /// A built executable of the package next to the test bundle.
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `path` with `arguments` to the end; output through files (no pipe fills up).
    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws -> Run {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-samples-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-samples-err-\(UUID().uuidString)")
        try Data().write(to: out)
        try Data().write(to: err)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: (try? Data(contentsOf: out)) ?? Data(),
                   stderr: (try? Data(contentsOf: err)).map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// `ffprobe -v error ARGS` standard output as text.
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/env", ["ffprobe", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.text
    }

    /// `ffmpeg -v error ARGS` standard output (raw bytes).
    static func ffmpeg(_ arguments: [String]) throws -> Data {
        let result = try run("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffmpeg \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// PSNR in dB of two byte strings of the same length (8-bit samples); infinity when equal.
    static func psnr(_ a: Data, _ b: Data) -> Double {
        guard a.count == b.count, !a.isEmpty else { return -1 }
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
