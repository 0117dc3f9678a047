import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40 (hardening), the command-line part: what the name says never beats what the content
/// is, times never wrap, a file size limit is an I/O error, and a data problem never exits 1.
/// Every test runs the built `nalu`.
@Suite struct HardeningCLITests {
    /// Frames ffprobe counts in the first video stream of `path`.
    static func frameCount(_ path: String) throws -> Int? {
        let result = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                             "-of", "csv=p=0", path])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Item 8: `holiday_320x180.mp4` is an MP4 by its content: it is decoded (30 pictures in the
    /// first second), not read as 320x180 raw frames (3 frames of noise and a partial one).
    @Test func sizeInTheNameDoesNotBeatTheContent() throws {
        let scratch = try Scratch()
        let input = scratch.file("holiday_320x180.mp4")
        try FileManager.default.copyItem(atPath: CLIRunner.fixture("realworld/phone.mp4"), toPath: input)
        let output = scratch.file("out.h264")
        let result = try CLIRunner.run(["encode", input, "-o", output, "--end", "1", "--no-audio", "--preset", "ultrafast", "--crf", "40", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.frameCount(output) == 30)
        // Raw video with the size in its name is still read as raw video.
        let raw = scratch.file("clip_64x48.yuv")
        try Data(repeating: 0x80, count: 64 * 48 * 3 / 2 * 4).write(to: URL(fileURLWithPath: raw))
        let rawOutput = scratch.file("raw.h264")
        let rawResult = try CLIRunner.run(["encode", raw, "-o", rawOutput, "--preset", "ultrafast", "--quiet"])
        #expect(rawResult.status == 0, "\(rawResult.stderr)")
        #expect(try Self.frameCount(rawOutput) == 4)
    }

    /// Item 9: a `--start` whose ticks pass 64 bits is past the input's end (64), as
    /// `--start 1000000.5` is, instead of wrapping to before the first picture and encoding it all.
    @Test func startPastSixtyFourBitsIsAUsageError() throws {
        let scratch = try Scratch()
        let phone = CLIRunner.fixture("realworld/phone.mp4")
        // A 1 GHz track timescale: 10.000000001 s is 10^10 + 1 ticks, 10^19 before the division.
        let fine = scratch.file("fine.mp4")
        let remux = try runTool("ffmpeg", ["-v", "error", "-i", phone, "-map", "0:v", "-c", "copy", "-video_track_timescale", "1000000000", fine])
        #expect(remux.status == 0, "\(remux.stderr)")
        let cases: [(String, String)] = [(phone, "1000000.000000001"), (phone, "1000000.5"), (fine, "10.000000001"), (fine, "1000000.000000001"),
                                         (CLIRunner.fixture("realworld/phone.ts"), "1000000.5")]
        for (input, start) in cases {
            let output = scratch.file("out.mp4")
            let result = try CLIRunner.run(["encode", input, "--start", start, "-o", output, "--preset", "ultrafast", "--crf", "40", "--quiet"])
            #expect(result.status == 64, "\(input) --start \(start): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--start"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// Item 22: `concat --smart 'c.mp4@0-1e300'` is a range error (64) naming the argument, not a
    /// missing file (66).
    @Test func concatRangeThatIsNoTimeIsAUsageError() throws {
        let scratch = try Scratch()
        let input = scratch.file("c.mp4")
        try FileManager.default.copyItem(atPath: CLIRunner.fixture("avc_main.mp4"), toPath: input)
        for smart in [true, false] {
            let result = try CLIRunner.run(["concat"] + (smart ? ["--smart"] : []) + [input + "@0-1e300", "-o", scratch.file("out.mp4")])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("c.mp4@0-1e300") && !result.stderr.contains("No such file"), "\(result.stderr)")
        }
    }

    /// Item 22: an input whose pictures change size is a data error (65) suggesting `--scale`,
    /// not exit 1 "frame mismatch"; with `--scale` it encodes.
    @Test func sizeChangeSuggestsScale() throws {
        let scratch = try Scratch()
        let joined = scratch.file("joined.h264")
        let concat = try CLIRunner.run(["concat", CLIRunner.fixture("avc_main.h264"), CLIRunner.fixture("avc_odd_174x98.h264"), "-o", joined])
        #expect(concat.status == 0, "\(concat.stderr)")
        let output = scratch.file("out.h264")
        let refused = try CLIRunner.run(["encode", joined, "-o", output, "--preset", "ultrafast", "--quiet"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("--scale") && refused.stderr.contains("174x98"), "\(refused.stderr)")
        let scaled = try CLIRunner.run(["encode", joined, "-o", output, "--scale", "176x144", "--preset", "ultrafast", "--quiet"])
        #expect(scaled.status == 0, "\(scaled.stderr)")
    }

    /// Item 15: past `ulimit -f`, `convert` and `decode` exit 74 (EFBIG, as for a full disk) and leaves no
    /// temporary file, instead of SIGXFSZ killing it (153) with its `.nalu-tmp` left behind.
    @Test func fileSizeLimitIsAnIOError() throws {
        let scratch = try Scratch()
        let input = scratch.file("big.h264")
        // ~400 KB of Annex-B: more than the 100 blocks (51,200 bytes) the limit allows.
        var stream = Data()
        let unit = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        while stream.count < 400_000 { stream.append(unit) }
        try stream.write(to: URL(fileURLWithPath: input))
        // `ulimit -f 100` with SIGXFSZ at its default action: a test runner may hand down the
        // signal ignored (an ignored signal stays ignored across exec, and sh cannot reset it).
        let launcher = """
            import os, resource, signal, sys
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 512, 100 * 512))
            os.execv(sys.argv[1], sys.argv[1:])
            """
        for (command, name) in [("convert", "out.mp4"), ("decode", "out.yuv")] {
            let result = try runTool("python3", ["-c", launcher, CLIRunner.executable.path, command, input, "-o", scratch.file(name)])
            #expect(result.status == 74, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("nalu: error:") && result.stderr.contains("File too large"), "\(result.stderr)")
            #expect(try scratch.names() == ["big.h264"])
        }
    }

    /// Item 22: damaged time stamps in a transport stream (the 11th picture's PTS set back 10
    /// frames, `Scripts/make-ts-damage.py`): `convert` copies it (0); `encode`, which cannot keep
    /// a time that goes backwards, is a data error (65) naming the times, not exit 1.
    @Test func damagedTransportStreamTimesAreADataError() throws {
        let scratch = try Scratch()
        let input = CLIRunner.fixture("ts_pts_backwards.ts")
        let converted = try CLIRunner.run(["convert", input, "-o", scratch.file("copy.h264")])
        #expect(converted.status == 0, "\(converted.stderr)")
        let encoded = try CLIRunner.run(["encode", input, "-o", scratch.file("out.mp4"), "--preset", "ultrafast", "--quiet"])
        #expect(encoded.status == 65, "\(encoded.stderr)")
        #expect(encoded.stderr.contains("ts_pts_backwards.ts") && encoded.stderr.contains("non-monotonic"), "\(encoded.stderr)")
        #expect(!(try scratch.names()).contains("out.mp4"))
    }

    /// Item 22: a picture libavcodec refuses inside `trim --smart` and `trim --keep` is a data
    /// error (65) naming the access unit, not exit 1. The stream: avc_main.h264 with six bytes of
    /// the IDR's and of the first P picture's slice data overwritten. The smart cut decodes on one
    /// thread (``ShortSegmentEncoding``), so the error names the access unit that holds the damaged
    /// P picture's slice (1, at byte 3328); libavcodec's frame threads reported it two later.
    @Test func decodeFailureInSmartTrimIsADataError() throws {
        let scratch = try Scratch()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))))
        bytes.replaceSubrange(731..<737, with: [0x1C, 0x2E, 0x2B, 0xB8, 0x56, 0x9D])
        bytes.replaceSubrange(3337..<3343, with: [0x80, 0x6C, 0x12, 0x51, 0xDC, 0xC9])
        let input = scratch.file("damaged.h264")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let smart = try CLIRunner.run(["trim", input, "--start", "0.1", "--end", "0.5", "--smart", "-o", scratch.file("cut.h264")])
        #expect(smart.status == 65, "\(smart.stderr)")
        #expect(smart.stderr.contains("access unit 1 at byte 3328"), "\(smart.stderr)")
        let mp4 = scratch.file("damaged.mp4")
        #expect(try CLIRunner.run(["convert", input, "-o", mp4]).status == 0)
        let keep = try CLIRunner.run(["trim", mp4, "--keep", "0.1-0.3,0.4-0.5", "-o", scratch.file("kept.mp4")])
        #expect(keep.status == 65, "\(keep.stderr)")
        #expect(keep.stderr.contains("access unit 1 at byte 3334"), "\(keep.stderr)")
    }

    /// A 20 s, 96x64, 30 fps H.264 MP4 with a keyframe every 12 pictures (ffmpeg's test source),
    /// in `scratch`: ranges of one picture each re-encode a head, as long cut lists do.
    static func smallLongInput(in scratch: Scratch) throws -> String {
        let path = scratch.file("small.mp4")
        let made = try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30", "-frames:v", "600",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-bf", "0", path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// `--keep` ranges, one picture each: every `step`-th picture of the first `count` · `step`.
    static func ranges(_ count: Int, step: Int) -> String {
        (0..<count).map { index in
            let start = Double(1 + index * step) / 30 - 0.001
            return String(format: "%.4f-%.4f", start, start + 0.01)
        }.joined(separator: ",")
    }

    /// Item 16: a cut list of 300 ranges interrupted by SIGINT leaves no `nalu-piece-*` file in
    /// its temporary folder (the registry had 64 slots: the pieces past them stayed).
    @Test func manyPiecesAreRemovedOnSIGINT() throws {
        let scratch = try Scratch()
        let input = try Self.smallLongInput(in: scratch)
        let temporary = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["trim", input, "--keep", Self.ranges(300, step: 2), "--preset", "ultrafast", "-o", scratch.file("kept.h264")]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary]) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        var pieces = 0
        for _ in 0..<3000 where process.isRunning {
            pieces = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("nalu-piece-") }.count
            if pieces >= 100 { break }
            usleep(10_000)
        }
        #expect(pieces >= 100, "the run ended before it had 100 pieces")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(left.isEmpty, "\(left.count) files left, \(left.prefix(3))")
        #expect(!(try scratch.names()).contains { $0.contains("nalu-tmp") })
    }

    /// Item 16: the memory of a cut list does not grow with its ranges: peak RSS for 500 ranges
    /// within 8 MiB of that for 50 (before: +23 MiB, glibc's heap fragmented by each piece's
    /// decoder and encoder buffers; 170 KB a range).
    @Test func keepMemoryStaysFlat() throws {
        guard ResourceRunner.available else { return }
        let scratch = try Scratch()
        let input = try Self.smallLongInput(in: scratch)
        var peaks: [Int] = []
        for (count, step) in [(50, 10), (500, 1)] {
            let result = try ResourceRunner.run(["trim", input, "--keep", Self.ranges(count, step: step), "--preset", "ultrafast",
                                                 "-o", scratch.file("kept-\(count).h264")])
            #expect(result.status == 0, "\(result.stderr)")
            peaks.append(result.peakRSS)
        }
        #expect(peaks[1] - peaks[0] < 8 << 20, "peak RSS \(peaks[0] >> 10) KiB for 50 ranges, \(peaks[1] >> 10) KiB for 500")
    }

    /// Item 16: joining the pieces' audio opens one piece at a time: 100 ranges of phone.mp4
    /// (video and AAC) into MP4 under `ulimit -n 64` (before: every piece's sound track stayed
    /// open for the join, exit 74 "Too many open files"); the audio lasts as the video does.
    @Test func keepWithAudioOpensOnePieceAtATime() throws {
        guard ResourceRunner.available else { return }
        let scratch = try Scratch()
        let output = scratch.file("kept.mp4")
        let result = try ResourceRunner.run(["trim", CLIRunner.fixture("realworld/phone.mp4"), "--keep", Self.ranges(100, step: 3),
                                             "--preset", "ultrafast", "-o", output], openFiles: 64)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0", output])
        let durations = probe.stdout.split(separator: "\n").map { $0.split(separator: ",") }
        #expect(durations.count == 2, "\(probe.stdout)")
        let video = durations.first { $0.first == "video" }.flatMap { Double($0[1]) } ?? 0
        let audio = durations.first { $0.first == "audio" }.flatMap { Double($0[1]) } ?? 0
        #expect(abs(video - 100.0 / 30) < 0.05 && abs(audio - video) < 0.05, "\(probe.stdout)")
    }
}
