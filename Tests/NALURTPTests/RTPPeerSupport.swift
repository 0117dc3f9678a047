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

    /// An even UDP port with its odd neighbour free on 127.0.0.1 (RTP and RTCP), found by binding.
    static func freePort() throws -> UInt16 {
        for _ in 0..<50 {
            let probe = try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: 0))
            guard let port = probe.localPort else { continue }
            let even = port & ~1
            guard even > 1024 else { continue }
            if (try? UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: even + (even == port ? 1 : 0)))) != nil,
               even == port || (try? UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: even))) != nil {
                return even
            }
        }
        throw RTPPeerError(description: "no free port pair")
    }

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
