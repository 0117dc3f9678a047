public import Foundation

/// What the test targets that run the package's executables share (the export, composition and
/// samples tests): the repository's paths, built executables, scratch directories and child
/// processes whose output goes through files (no pipe fills up). A suite's support enum adopts
/// it and names its scratch prefix.
public protocol ProcessTestSupport {
    /// The start of the names of this target's scratch directories (`nalu-export`).
    static var scratchPrefix: String { get }
}

/// A finished child process.
public struct ProcessRun: Sendable {
    public var status: Int32
    /// Standard output as bytes.
    public var data: Data
    public var stderr: String
    /// Standard output as text.
    public var stdout: String { String(decoding: data, as: UTF8.self) }
    /// Standard output as text (the samples' tests' name).
    public var text: String { stdout }
}

/// A started child process; ``result()`` reads its output once it has ended.
public final class ProcessChild: @unchecked Sendable {
    public let process: Process
    let out: URL
    let err: URL

    init(process: Process, out: URL, err: URL) {
        self.process = process
        self.out = out
        self.err = err
    }

    public func result() -> ProcessRun {
        let stdout = (try? Data(contentsOf: out)) ?? Data()
        let stderr = (try? Data(contentsOf: err)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
        return ProcessRun(status: process.terminationStatus, data: stdout, stderr: stderr)
    }
}

extension ProcessTestSupport {
    public typealias Run = ProcessRun
    public typealias Child = ProcessChild

    /// The repository (this file is Tests/Support/ProcessTestSupport.swift).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public static func fixture(_ name: String) -> String { repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)").path }

    /// A built executable of the package (`nalu`, `transcode-sample`) next to the test bundle.
    public static func executable(_ name: String) -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// A new empty directory, removed by the caller.
    public static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(scratchPrefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The names in `directory`, sorted.
    public static func contents(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// Runs `path` with `arguments` (and `environment` over this process's) to the end.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRun {
        let child = try start(path, arguments, environment: environment)
        child.process.waitUntilExit()
        return child.result()
    }

    /// Starts `path` with `arguments`; standard input is /dev/null.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessChild {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("\(scratchPrefix)-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("\(scratchPrefix)-err-\(UUID().uuidString)")
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
        return ProcessChild(process: process, out: out, err: err)
    }
}
