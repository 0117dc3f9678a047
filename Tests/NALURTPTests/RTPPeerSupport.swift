import Foundation
import Testing
import NALU
import NALUMedia
import NALURTP

/// Running real peers (ffmpeg, GStreamer) and `nalu` on loopback for the interop tests: every
/// process is waited for with a deadline and stopped by its own id.
enum RTPPeers {
    /// The `nalu` binary beside the test bundle.
    static let nalu: String = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("nalu")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return RTPTestSupport.repositoryRoot.appendingPathComponent(".build/debug/nalu").path
    }()

    static func tool(_ name: String) -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// A scratch folder, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-rtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// An even UDP port whose block of four (video RTP and RTCP, audio RTP and RTCP) is free on
    /// 127.0.0.1, found by binding. The ports come from below the kernel's ephemeral range
    /// (32768–60999 on Linux), so no socket bound to port 0 — ffmpeg's or GStreamer's own RTCP
    /// sockets, a DNS lookup — can take one between this check and the test's bind, and each
    /// block is handed out once per process, so tests running side by side never share one.
    static func freePort() throws -> UInt16 {
        for _ in 0..<200 {
            let port = nextBlock.withLock { next -> UInt16 in
                defer { next = next + 4 >= 32_000 ? 20_000 : next + 4 }
                return next
            }
            let free = (0..<4).allSatisfy { offset in
                (try? UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: port + UInt16(offset)))) != nil
            }
            if free { return port }
        }
        throw RTPPeerError(description: "no free block of four ports in 20000–31999")
    }

    /// The next block `freePort()` tries: a random start in 20000–31999 so that two test
    /// processes rarely walk the same ports.
    private static let nextBlock = LockedValue(UInt16(20_000 + 4 * Int.random(in: 0..<3_000)))

    struct RTPPeerError: Error, CustomStringConvertible { let description: String }

    /// Waits until some process has bound UDP `port` (Linux: /proc/net/udp), at most `seconds`;
    /// then a moment more for the receiver to start reading.
    static func waitUntilBound(port: UInt16, seconds: Double = 30) throws {
        let needle = String(format: ":%04X ", port)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
            let bound = table.split(separator: "\n").dropFirst().contains { line in
                line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map { ($0 + " ").hasSuffix(needle) } ?? false
            }
            if bound {
                Thread.sleep(forTimeInterval: 0.5)
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw RTPPeerError(description: "nothing bound port \(port) within \(seconds) s")
    }

    /// A started process whose output goes to files in `folder`.
    final class Running {
        let process = Process()
        let name: String
        let log: URL

        init(_ executable: String, _ arguments: [String], folder: URL, name: String) throws {
            self.name = name
            log = folder.appendingPathComponent("\(name).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Waits at most `seconds` for the process to end; then SIGINT, then SIGTERM, then SIGKILL
        /// (to this process only). Returns its status.
        @discardableResult
        func wait(seconds: Double, interrupt: Bool = false) -> Int32 {
            if interrupt && process.isRunning { process.interrupt() }
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                process.interrupt()
                Thread.sleep(forTimeInterval: 1)
            }
            if process.isRunning {
                process.terminate()
                Thread.sleep(forTimeInterval: 0.5)
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }

        var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    }

    /// Runs to the end (at most `seconds`).
    static func run(_ executable: String, _ arguments: [String], folder: URL, name: String, seconds: Double = 60) throws -> (status: Int32, output: String) {
        let running = try Running(executable, arguments, folder: folder, name: name)
        let status = running.wait(seconds: seconds)
        return (status, running.output)
    }

    /// The VCL NAL units (slices) of a file nalu reads, in decoding order.
    static func slices(_ path: String) throws -> [[UInt8]] {
        let reader = try MediaReader(path: path, options: MediaReaderOptions(readsOtherTracks: false))
        var slices: [[UInt8]] = []
        while let unit = try reader.nextAccessUnit() {
            for nal in unit.nalUnits {
                if let header = try? NALUnitHeader(nal, codec: reader.codec), header.isVCL { slices.append(nal) }
            }
        }
        return slices
    }

    /// The frames' MD5s ffmpeg decodes from `path` (framemd5's hash column).
    static func frameHashes(_ path: String, folder: URL) throws -> [String] {
        guard let ffmpeg = tool("ffmpeg") else { return [] }
        let out = folder.appendingPathComponent("\(UUID().uuidString).framemd5").path
        let result = try run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", out], folder: folder, name: "framemd5")
        guard result.status == 0 else { throw RTPPeerError(description: "framemd5 of \(path): \(result.output)") }
        let text = try String(contentsOfFile: out, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// An SDP of one stream with no parameter sets (a GStreamer sender puts them in band).
    static func writeSDP(codec: Codec, port: UInt16, to url: URL) throws {
        let description = SessionDescription(address: "127.0.0.1", video: RTPVideoDescription(codec: codec, port: port, payloadType: 96))
        try description.text.write(to: url, atomically: true, encoding: .utf8)
    }
}

/// A value behind a lock, for the static state the tests share across threads.
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
