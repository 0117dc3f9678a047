import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder for one test, removed at the end.
final class Scratch {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names in the folder, hidden ones (temporary files) included.
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    func write(_ name: String, _ data: Data) throws { try data.write(to: url.appendingPathComponent(name)) }

    func read(_ name: String) throws -> Data { try Data(contentsOf: url.appendingPathComponent(name)) }
}

/// A `nalu` process started in the background (for signals and pipes).
final class RunningNalu {
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    private let folder: Scratch

    /// Starts `nalu arguments`; `stdin` defaults to an empty file.
    init(_ arguments: [String], stdin: Any? = nil, stdout: FileHandle? = nil, environment: [String: String] = [:]) throws {
        folder = try Scratch()
        stdoutURL = folder.url.appendingPathComponent("stdout")
        stderrURL = folder.url.appendingPathComponent("stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        try Data().write(to: folder.url.appendingPathComponent("stdin"))
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = try stdout ?? FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = try stdin ?? FileHandle(forReadingFrom: folder.url.appendingPathComponent("stdin"))
        try process.run()
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit; the status, or 128 + the signal when killed by one.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }
    var stdout: Data { (try? Data(contentsOf: stdoutURL)) ?? Data() }
}

/// Runs a tool (ffmpeg, ffprobe, mknod) and returns its status and standard error.
@discardableResult
func runProgram(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let folder = try Scratch()
    let out = folder.url.appendingPathComponent("out")
    let err = folder.url.appendingPathComponent("err")
    try Data().write(to: out)
    try Data().write(to: err)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
            String(decoding: try Data(contentsOf: err), as: UTF8.self))
}

let ffmpegPath = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// The frames ffmpeg decodes from `path`, and its error output (empty when the decode is clean).
func ffmpegDecode(_ path: String) throws -> (frames: Int, errors: String) {
    let ffmpeg = try #require(ffmpegPath, "ffmpeg is needed to check outputs are playable")
    let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-f", "framemd5", "-"])
    let frames = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    return (frames, result.status == 0 ? result.stderr : "exit \(result.status): " + result.stderr)
}

/// A pseudo-terminal: the controlling side's descriptor and a handle on the terminal side, so a
/// test can give `nalu` a terminal as standard input or output.
struct PseudoTerminal {
    let controller: Int32
    let terminal: FileHandle

    init?() {
        // posix_openpt and friends are not in the Glibc module map: look them up.
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Call = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let openSymbol = dlsym(nil, "posix_openpt"), let grantSymbol = dlsym(nil, "grantpt"),
              let unlockSymbol = dlsym(nil, "unlockpt"), let nameSymbol = dlsym(nil, "ptsname") else { return nil }
        let openpt = unsafeBitCast(openSymbol, to: Open.self)
        let grantpt = unsafeBitCast(grantSymbol, to: Call.self)
        let unlockpt = unsafeBitCast(unlockSymbol, to: Call.self)
        let ptsname = unsafeBitCast(nameSymbol, to: Name.self)
        let controller = openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0, grantpt(controller) == 0, unlockpt(controller) == 0, let name = ptsname(controller) else { return nil }
        let fd = open(name, O_RDWR | O_NOCTTY)
        guard fd >= 0 else { _ = Glibc.close(controller); return nil }
        self.controller = controller
        terminal = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    func close() { _ = Glibc.close(controller) }
}

/// File type bits of `path` (not following a link).
func fileType(_ path: String) -> mode_t {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return info.st_mode & S_IFMT
}

/// Starts a thread that opens the FIFO at `path` for reading and collects everything it receives.
func readFIFOInBackground(_ path: String) -> Locked<Data> {
    let received = Locked(Data())
    let reader = Thread {
        if let handle = FileHandle(forReadingAtPath: path) {
            received.update { $0 = handle.readDataToEndOfFile() }
        }
    }
    reader.start()
    return received
}

/// Writes `data` to `descriptor` with raw writes, ending quietly at the first failure (EPIPE
/// once the reading `nalu` is gone, with SIGPIPE ignored).
func writeRaw(_ data: Data, to descriptor: Int32) {
    data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if count <= 0 { return }
            offset += count
        }
    }
}
