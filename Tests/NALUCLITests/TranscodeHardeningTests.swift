import Foundation
import Testing

/// Issue 40 items 1 and 2: `nalu encode IN` from a compressed input, scaled to narrow sizes and
/// fed damaged 10-bit pictures, through the built binary.
@Suite struct TranscodeHardeningTests {
    static let valgrind: String? = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `ffprobe`'s width, height and frame count of a stream.
    static func probe(_ path: String) throws -> String {
        try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Item 1: libswscale's writes stay in memory it may write

    /// Narrow and odd sizes, 8 and 10 bits: every one encodes the frames at the size asked.
    /// Before: glibc "corrupted size vs. prev_size" or SIGSEGV on several of them.
    @Test(arguments: ["avc_main.h264", "avc_high10.h264"], ["2x144", "2x1000", "34x1000", "2x16384"])
    func narrowScalesEncode(fixture: String, size: String) throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        let result = try CLIRunner.run(["encode", CLIRunner.fixture(fixture), "--scale", size, "--frames", "2", "--preset", "ultrafast", "-o", output])
        #expect(!result.signalled)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.probe(output) == size.replacingOccurrences(of: "x", with: ",") + ",2")
    }

    /// x265 at 64 samples wide from a 10-bit source, and below 50 refused up front: libx265
    /// corrupts its own heap there (found with this test: 34x1000 aborted in free()).
    @Test func narrowScalesForX265() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h265")
        let result = try CLIRunner.run(["encode", CLIRunner.fixture("avc_high10.h264"), "--codec", "hevc", "--scale", "64x1000", "--frames", "2",
                                        "--preset", "ultrafast", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.probe(output) == "64,1000,2")
        let narrow = try CLIRunner.run(["encode", CLIRunner.fixture("avc_high10.h264"), "--codec", "hevc", "--scale", "34x1000", "--frames", "2",
                                        "--preset", "ultrafast", "-o", scratch.file("narrow.h265")])
        #expect(!narrow.signalled)
        #expect(narrow.status == 64, "\(narrow.stderr)")
        #expect(narrow.stderr.contains("at least 50"), "\(narrow.stderr)")
        #expect(try scratch.names() == ["out.h265"])
    }

    /// Under valgrind (memory errors only: the Swift runtime's uninitialised-value reports are
    /// noise here): no invalid read or write in the scaler, 8 and 10 bits, two frames each.
    /// Before: "Invalid write of size 8 … 0 bytes after a block of size 432".
    @Test(.enabled(if: valgrind != nil, "valgrind is not installed: the memory check of --scale is skipped"),
          arguments: ["avc_main.h264", "avc_high10.h264"])
    func scalingIsCleanUnderValgrind(fixture: String) throws {
        let scratch = try Scratch()
        let log = scratch.file("valgrind.log")
        let result = try runTool(try #require(Self.valgrind), ["--error-exitcode=99", "--undef-value-errors=no", "-q", "--log-file=\(log)",
                                                             CLIRunner.executable.path, "encode", CLIRunner.fixture(fixture), "--scale", "2x144",
                                                             "--frames", "2", "--preset", "ultrafast", "-o", scratch.file("out.h264")])
        let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(result.stderr)\n\(report)")
        #expect(!report.contains("Invalid write") && !report.contains("Invalid read"), "\(report)")
        #expect(try Self.probe(scratch.file("out.h264")) == "2,144,2")
    }

    // MARK: - Item 2: samples above the bit depth

    /// A High 10 stream with 16 bytes of its IDR slice data inverted decodes (concealed) to
    /// samples up to 65532; `nalu encode` clamps them to 1023 and encodes every picture, with
    /// a warning. Before: libx264's `cost >= 0` assertion, SIGABRT, a `.nalu-tmp` left.
    @Test func outOfRangeSamplesAreClamped() throws {
        let scratch = try Scratch()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_high10.h264"))))
        // Bytes 800…815 lie in the slice data of the IDR picture (its NAL unit starts at 731).
        for index in 800..<816 { bytes[index] ^= 0xFF }
        try scratch.write("damaged.h264", Data(bytes))
        // The damage does what the test needs: samples above 1023 come out of the decoder.
        let decoded = try CLIRunner.run(["decode", scratch.file("damaged.h264"), "-o", scratch.file("raw.yuv")])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let raw = try scratch.read("raw.yuv")
        let maximum = raw.withUnsafeBytes { buffer in
            stride(from: 0, to: buffer.count - 1, by: 2).map { UInt16(buffer[$0]) | UInt16(buffer[$0 + 1]) << 8 }.max() ?? 0
        }
        try #require(maximum > 1023, "the damage gives no out-of-range sample (max \(maximum))")
        try FileManager.default.removeItem(atPath: scratch.file("raw.yuv"))

        let result = try CLIRunner.run(["encode", scratch.file("damaged.h264"), "--preset", "ultrafast", "-o", scratch.file("out.h264")])
        #expect(!result.signalled, "\(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("clamped"), "\(result.stderr)")
        #expect(try Self.probe(scratch.file("out.h264")) == "176,144,12")
        #expect(try scratch.names() == ["damaged.h264", "out.h264"])
    }
}
