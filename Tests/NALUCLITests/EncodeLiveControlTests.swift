import Foundation
import Testing

/// Issue 14: `nalu encode --bitrate-at` and `--idr-at` go through the session's live API; the
/// rate before and after a change is measured with ffprobe's packet sizes, on both codecs.
@Suite struct EncodeLiveControlTests {
    static func tool(_ name: String) throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        Issue.record("\(name) not found on PATH (apt-get install ffmpeg)")
        throw CancellationError()
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// 240 frames of ffmpeg's testsrc2 with temporal noise (camera-like, so both encoders' rate
    /// control can reach the rates asked for), 320x192 at 30 fps, as Y4M.
    static func noisyInput(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("input.y4m").path
        let result = try run(try tool("ffmpeg"), ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=320x192:rate=30,noise=alls=24:allf=t",
                                                  "-frames:v", "240", "-pix_fmt", "yuv420p", "-y", path])
        try #require(result.status == 0)
        return path
    }

    /// Bits per second of the packets whose presentation time is in frames `range` (30 fps).
    static func bitrate(_ mp4: String, frames range: ClosedRange<Int>) throws -> Double {
        let result = try run(try tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,size",
                                                   "-of", "csv=p=0", mp4])
        var bytes = 0
        for line in result.output.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count == 2, let time = Double(fields[0]), let size = Int(fields[1]) else { continue }
            let frame = Int((time * 30).rounded())
            if range.contains(frame) { bytes += size }
        }
        return Double(bytes * 8) * 30 / Double(range.count)
    }

    @Test(arguments: [("h264", false), ("h264", true), ("hevc", false)])
    func bitrateAtChangesTheRateAndSaysHow(_ codec: String, _ vbv: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.noisyInput(in: directory)
        let output = directory.appendingPathComponent("out.mp4").path
        let stats = directory.appendingPathComponent("stats.json").path
        var arguments = ["encode", input, "-o", output, "--codec", codec, "--preset", "ultrafast", "--bitrate", "1000k",
                         "--gop", "50", "--no-scenecut", "--threads", "1", "--bitrate-at", "120:300k", "--idr-at", "60,200", "--stats-json", stats]
        if vbv { arguments += ["--vbv-maxrate", "1000k", "--vbv-bufsize", "1000k"] }
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let live = codec == "h264" && vbv
        #expect(result.stderr.contains("bitrate 300.0 kbit/s at frame 120 (\(live ? "live" : "rebuild"))"), "\(result.stderr)")
        #expect(result.stderr.contains("; IDR at frame 60;") && result.stderr.contains("; IDR at frame 200"), "\(result.stderr)")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
        let changes = try #require(json["live_changes"] as? [[String: Any]])
        #expect(changes.count == 3)
        #expect(changes.first { $0["kind"] as? String == "bitrate" }?["live"] as? Bool == live)
        #expect(changes.first { $0["kind"] as? String == "bitrate" }?["bitrate"] as? Int == 300_000)
        #expect(changes.filter { $0["kind"] as? String == "idr" }.compactMap { $0["frame"] as? Int } == [60, 200])

        let before = try Self.bitrate(output, frames: 30...119)
        let after = try Self.bitrate(output, frames: 150...239)
        #expect(abs(before - 1_000_000) <= 250_000, "\(codec): \(Int(before)) bit/s before the change")
        #expect(abs(after - 300_000) <= 75_000, "\(codec): \(Int(after)) bit/s after asking for 300k (before: \(Int(before)))")

        // The IDRs are there: keyframes at 0, 50, 60, 100, (120 when rebuilt), 150, 200.
        let frames = try Self.run(try Self.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                            "-of", "csv=p=0", output]).output
        let keyframes = frames.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: ",")
            guard fields.count == 2, fields[1].hasPrefix("K"), let time = Double(fields[0]) else { return nil }
            return Int((time * 30).rounded())
        }.sorted()
        #expect(keyframes.contains(60) && keyframes.contains(200), "\(keyframes)")
        #expect(keyframes.contains(120) == !live, "\(keyframes)")
    }

    @Test func quietSilencesTheEncoders() throws {
        // Level 1 is too small for 320x192: x264 warns at open, unless --quiet.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.h264").path
        let arguments = ["encode", "--test-pattern", "--size", "320x192", "--frames", "5", "--level", "1", "-o", output]
        let loud = try CLIRunner.run(arguments)
        #expect(loud.status == 0)
        #expect(loud.stderr.contains("x264 [warning]: "), "\(loud.stderr)")
        let quiet = try CLIRunner.run(arguments + ["--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        // x265 too (its level follows the logger; --quiet turns it off).
        let hevcQuiet = try CLIRunner.run(["encode", "--test-pattern", "--size", "320x192", "--frames", "5", "-o",
                                           directory.appendingPathComponent("out.h265").path, "--quiet"])
        #expect(hevcQuiet.status == 0)
        #expect(hevcQuiet.stderr.isEmpty, "\(hevcQuiet.stderr)")
    }
}
