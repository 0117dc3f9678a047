import Foundation
import Testing

/// The streaming subcommands added after issue 18 (MPEG-TS in and out, `trim`, `concat`, `edit`,
/// `doctor`) under the same bounds as its rows: a real stream repeated 40 and 400 times, run
/// through the built `nalu` under `ulimit -v`/`ulimit -t`: no signal, exit 0, peak RSS ≤ 64 MiB
/// whatever the input size, and CPU time growing at most 15× for 10× the input.
@Suite(.serialized, .enabled(if: ResourceRunner.available, "needs GNU time (/usr/bin/time)"))
struct StreamingResourceTests {
    static let mib = 1 << 20
    static let maxRSS = 64 * mib

    /// Scratch files for one test, removed at the end.
    final class Files {
        let folder: URL
        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-streaming-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    }

    /// `avc_main.h264` (20 pictures, an IDR and its parameter sets first) `copies` times over: at
    /// 20 fps, one second per copy.
    static func repeated(_ copies: Int, in files: Files, name: String) throws -> String {
        let stream = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        var data = Data(capacity: stream.count * copies)
        for _ in 0..<copies { data.append(stream) }
        let path = files.path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `arguments(small)` and `arguments(large)`; checks the bounds; returns both results.
    @discardableResult
    static func runBoth(_ name: String, small: String, large: String,
                        _ arguments: (String) -> [String]) throws -> [ResourceRunner.Result] {
        var results: [ResourceRunner.Result] = []
        for input in [small, large] {
            let result = try ResourceRunner.run(arguments(input))
            #expect(result.signal == nil, "\(name): ended by signal \(result.signal ?? 0); \(result.stderr)")
            #expect(result.status == 0, "\(name): exit \(result.status); \(result.stderr)")
            #expect(result.peakRSS <= maxRSS, "\(name): peak RSS \(result.peakRSS / mib) MiB")
            results.append(result)
        }
        print("streaming \(name): \(results[0].peakRSS / 1024) KiB, \(results[0].cpuSeconds) s → "
              + "\(results[1].peakRSS / 1024) KiB, \(results[1].cpuSeconds) s")
        #expect(results[1].cpuSeconds < 15 * max(results[0].cpuSeconds, 0.05),
                "\(name): \(results[0].cpuSeconds) s → \(results[1].cpuSeconds) s for 10× the input")
        return results
    }

    /// Both sizes of the repeated stream, converted by `nalu convert … arguments` (to MP4 or TS).
    static func converted(_ files: Files, _ suffix: String, _ arguments: [String]) throws -> (String, String) {
        var paths: [String] = []
        for copies in [40, 400] {
            let input = try repeated(copies, in: files, name: "in-\(copies).h264")
            let output = files.path("in-\(copies).\(suffix)")
            let result = try CLIRunner.run(["convert", input, "-o", output] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            paths.append(output)
        }
        return (paths[0], paths[1])
    }

    @Test func transportStreamInAndOut() throws {
        let files = try Files()
        let small = try Self.repeated(40, in: files, name: "small.h264")
        let large = try Self.repeated(400, in: files, name: "large.h264")
        try Self.runBoth("annexb→ts", small: small, large: large) { ["convert", $0, "--to", "ts", "--fps", "20", "-o", files.path("out.ts")] }
        let (smallTS, largeTS) = try Self.converted(files, "ts", ["--to", "ts", "--fps", "20"])
        let results = try Self.runBoth("ts→annexb", small: smallTS, large: largeTS) { ["convert", $0, "--to", "annexb", "-o", files.path("out.h264")] }
        // The demultiplexed stream is the elementary stream muxed, with an AUD per access unit.
        let info = try CLIRunner.run(["info", files.path("out.h264"), "--json"])
        #expect(info.status == 0 && results.count == 2)
        #expect(info.stdout.contains("\"access_units\": 8000,"))
    }

    @Test func trimOfALongMP4() throws {
        let files = try Files()
        let (small, large) = try Self.converted(files, "mp4", ["--to", "mp4", "--fps", "20"])
        // The last second but one of each: the index is walked once, the cut copied once.
        try Self.runBoth("trim mp4", small: small, large: large) { input in
            let seconds = input == small ? 40 : 400
            return ["trim", input, "--start", String(seconds - 2), "--end", String(seconds - 1), "-o", files.path("cut.mp4")]
        }
        try Self.runBoth("trim annexb", small: small, large: large) { input in
            let seconds = input == small ? 40 : 400
            return ["trim", input, "--start", String(seconds - 2), "--end", String(seconds - 1), "--to", "annexb", "-o", files.path("cut.h264")]
        }
        // The cut is one copy of the clip (it starts at an IDR): 20 pictures, in both outputs.
        for cut in ["cut.mp4", "cut.h264"] {
            let info = try CLIRunner.run(["info", files.path(cut), "--json"])
            #expect(info.stdout.contains("\"access_units\": 20,"), "\(cut)")
        }
    }

    @Test func concatOfManyInputs() throws {
        let files = try Files()
        let clip = try Self.repeated(4, in: files, name: "clip.h264")
        // 10 and 100 inputs: per-input state must not accumulate.
        for to in ["annexb", "mp4"] {
            var results: [ResourceRunner.Result] = []
            for count in [10, 100] {
                let rate = to == "mp4" ? ["--fps", "20"] : []
                let result = try ResourceRunner.run(["concat"] + Array(repeating: clip, count: count) + ["--to", to, "-o", files.path("joined.\(to)")] + rate)
                #expect(result.signal == nil && result.status == 0, "\(to) × \(count): \(result.stderr)")
                #expect(result.peakRSS <= Self.maxRSS, "\(to) × \(count): \(result.peakRSS / Self.mib) MiB")
                results.append(result)
            }
            #expect(results[1].cpuSeconds < 15 * max(results[0].cpuSeconds, 0.05), "concat \(to): \(results.map(\.cpuSeconds))")
        }
    }

    @Test func editAndDoctorStream() throws {
        let files = try Files()
        let small = try Self.repeated(40, in: files, name: "small.h264")
        let large = try Self.repeated(400, in: files, name: "large.h264")
        try Self.runBoth("edit", small: small, large: large) { ["edit", $0, "--sar", "1:1", "--aud", "insert", "-o", files.path("edited.h264")] }
        try Self.runBoth("doctor", small: small, large: large) { ["doctor", $0, "--json"] }
        let (smallMP4, largeMP4) = try Self.converted(files, "mp4", ["--to", "mp4", "--fps", "20"])
        try Self.runBoth("edit mp4", small: smallMP4, large: largeMP4) { ["edit", $0, "--sar", "1:1", "-o", files.path("edited.mp4")] }
    }
}
