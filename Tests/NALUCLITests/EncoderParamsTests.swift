import Foundation
import Testing

/// `--x264-params` / `--x265-params` (issue 17): passed through the libraries' own parsers after
/// nalu's settings (ffprobe sees the result), and an unknown name or bad value is a usage error
/// (64) naming it, before any output is written.
@Suite struct EncoderParamsTests {
    /// ffprobe's key flag and picture type of every frame of `path`.
    static func frames(_ path: String) throws -> (keyframes: [Int], types: [String]) {
        let probe = try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=key_frame,pict_type", "-of", "default=nw=1", path])
        #expect(probe.status == 0)
        let lines = probe.stdout.split(separator: "\n")
        let keys = lines.filter { $0.hasPrefix("key_frame=") }.map { $0 == "key_frame=1" }
        let types = lines.filter { $0.hasPrefix("pict_type=") }.map { String($0.dropFirst("pict_type=".count)) }
        return (keys.enumerated().filter(\.element).map(\.offset), types)
    }

    @Test(arguments: [("--x264-params", "h264"), ("--x265-params", "h265")])
    func keyintAndBframesReachTheLibrary(_ option: String, _ fileExtension: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.\(fileExtension)").path
        // nalu's own settings say a GOP of 100 with 3 B-frames; the library parameters win.
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x96", "--frames", "35", "--preset", "ultrafast",
                                        "--gop", "100", "--bframes", "3", option, "keyint=10:bframes=0", "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let (keyframes, types) = try Self.frames(output)
        #expect(types.count == 35)
        #expect(keyframes == [0, 10, 20, 30])
        #expect(!types.contains("B"))
    }

    @Test(arguments: [
        (["--x264-params", "keyint=10:nosuchoption=1"], "nalu: error: --x264-params: unknown option \"nosuchoption\"\n"),
        (["--x264-params", "keyint=ten"], "nalu: error: --x264-params: bad value \"ten\" for \"keyint\"\n"),
        (["--codec", "hevc", "--x265-params", "nosuchoption=1"], "nalu: error: --x265-params: unknown option \"nosuchoption\"\n"),
        (["--codec", "hevc", "--x265-params", "bframes=many"], "nalu: error: --x265-params: bad value \"many\" for \"bframes\"\n"),
        (["--x265-params", "bframes=0"], "nalu: error: --x265-params goes with the x265 encoder, not x264.\n"),
        (["--encoder", "openh264", "--x264-params", "bframes=0"], "nalu: error: --x264-params goes with the x264 encoder, not openh264.\n"),
    ])
    func badParametersAreUsageErrors(_ extra: [String], _ message: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.bin").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x96", "--frames", "3", "--preset", "ultrafast",
                                        "--to", "annexb", "-o", output] + extra)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
