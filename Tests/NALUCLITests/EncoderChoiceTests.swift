import Foundation
import Testing

/// `nalu encode --encoder openh264|x264|x265` (issue 17): OpenH264's output decodes with ffmpeg
/// with the exact frame count, and what it cannot honour is a usage error (64) naming the option.
@Suite struct EncoderChoiceTests {
    @Test func openH264FromY4MDecodesWithTheExactFrameCount() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.y4m")
        try EncodeCommandTests.y4m(width: 96, height: 64, frames: 23).write(to: input)
        let output = directory.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["encode", input.path, "--encoder", "openh264", "--gop", "10", "--no-scenecut",
                                        "--idr-at", "4", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("encoded 23 frames"))
        #expect(!result.stderr.contains("[warning]"), "\(result.stderr)")
        let probe = try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=profile,nb_read_frames,pix_fmt",
                                            "-of", "default=nw=1", output])
        #expect(probe.status == 0)
        #expect(probe.stdout == "profile=Constrained Baseline\npix_fmt=yuv420p\nnb_read_frames=23\n")
        let decode = try runTool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
        // IDR at 0, forced at 4, then every 10 frames from there.
        let keys = try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=key_frame", "-of", "csv=p=0", output])
        let keyIndices = keys.stdout.split(separator: "\n").enumerated().filter { $0.element == "1" }.map(\.offset)
        #expect(keyIndices == [0, 4, 14])
    }

    @Test(arguments: [
        (["--bframes", "2"], "nalu: error: --bframes: OpenH264 encodes Constrained Baseline, which has no B-frames; use 0\n"),
        (["--crf", "23"], "nalu: error: --crf: OpenH264 has no constant rate factor; use a bitrate or a constant QP\n"),
        (["--pix-fmt", "yuv420p10le"], "nalu: error: --pix-fmt: OpenH264 encodes 8-bit 4:2:0 only, not yuv420p10le\n"),
        (["--codec", "hevc"], "nalu: error: --encoder openh264 encodes h264, not --codec hevc.\n"),
    ])
    func openH264RefusesWhatItCannotHonour(_ extra: [String], _ message: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "96x64", "--frames", "3", "--encoder", "openh264", "-o", output] + extra)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func encoderImpliesTheCodec() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.bin").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "96x64", "--frames", "3", "--preset", "ultrafast",
                                        "--encoder", "x265", "--to", "annexb", "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "default=nw=1", output])
        #expect(probe.stdout == "codec_name=hevc\n")
    }
}

/// OpenH264's own limits are usage errors naming the option, before any encoder is opened.
@Suite struct OpenH264LimitTests {
    @Test(arguments: [
        (["--size", "8192x4320"], "nalu: error: --size: 8192x4320 is larger than OpenH264's 9437184 pixels (36864 macroblocks, level 5.2)\n"),
        (["--fps", "120"], "nalu: error: --fps: OpenH264's rate control plans with at most 60 fps, not 120/1; use a constant QP at this rate\n"),
    ])
    func limitsAreUsageErrors(_ extra: [String], _ message: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLIRunner.run(["encode", "--test-pattern", "--frames", "2", "--encoder", "openh264",
                                        "-o", directory.appendingPathComponent("o.h264").path] + extra)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
