import Foundation
import Testing

/// `nalu encode` end to end: the binary's output read back with `nalu info`, exit codes and
/// error messages.
@Suite struct EncodeCommandTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-encode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func info(_ path: String, extra: [String] = []) throws -> [String: Any] {
        let result = try CLIRunner.run(["info", "--json"] + extra + [path])
        #expect(result.status == 0, "\(result.stderr)")
        return try jsonObject(result.stdout)
    }

    @Test func testPatternToH264WithStats() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.h264").path
        let stats = directory.appendingPathComponent("stats.json").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x96", "--frames", "20", "--preset", "ultrafast",
                                        "--no-bframes", "--gop", "10", "--no-scenecut", "--threads", "1", "-o", output,
                                        "--stats-json", stats, "--quiet"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let info = try Self.info(output)
        #expect(info["codec"] as? String == "h264")
        #expect(info["width"] as? Int == 160)
        #expect(info["height"] as? Int == 96)
        #expect(info["access_units"] as? Int == 20)
        #expect(info["keyframes"] as? Int == 2)
        // ultrafast without B-frames fits Constrained Baseline, and x264 signals the lowest fit.
        #expect(info["profile"] as? String == "Constrained Baseline")
        let summary = try jsonObject(String(decoding: try Data(contentsOf: URL(fileURLWithPath: stats)), as: UTF8.self))
        #expect(summary["frames"] as? Int == 20)
        #expect(summary["packets"] as? Int == 20)
        #expect(summary["keyframes"] as? Int == 2)
        #expect(summary["b_frames"] as? Int == 0)
        #expect(summary["codec"] as? String == "h264")
        #expect(summary["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int))
    }

    @Test func hevcFromTheOutputExtensionWithSummary() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("demo.h265").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x96", "--frames", "12", "--preset", "ultrafast", "-o", output])
        #expect(result.status == 0)
        #expect(result.stderr.contains("encoded 12 frames (1 keyframes, "))
        #expect(result.stderr.hasSuffix("bytes → \(output)\n"))
        let info = try Self.info(output)
        #expect(info["codec"] as? String == "hevc")
        #expect(info["profile"] as? String == "Main")
        #expect(info["access_units"] as? Int == 12)
    }

    static func y4m(width: Int, height: Int, frames: Int) -> Data {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F25:1 Ip C420jpeg\n".utf8)
        for index in 0..<frames {
            data.append(Data("FRAME\n".utf8))
            data.append(Data((0..<(width * height * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 / 7 + index * 3) }))
        }
        return data
    }

    @Test func y4mFromStandardInput() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["encode", "-", "-o", output, "--preset", "ultrafast", "--quiet"], stdin: Self.y4m(width: 64, height: 48, frames: 7))
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Self.info(output)
        #expect(info["width"] as? Int == 64)
        #expect(info["height"] as? Int == 48)
        #expect(info["access_units"] as? Int == 7)
    }

    @Test func lengthPrefixedOutputWithExtradata() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.avc").path
        let extradata = directory.appendingPathComponent("extradata.bin").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--codec", "h264", "--size", "64x48", "--frames", "9", "--preset", "ultrafast",
                                        "--output-format", "avcc", "--extradata-out", extradata, "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Self.info(output, extra: ["--length-size", "4", "--codec", "h264"])
        #expect(info["format"] as? String == "length-prefixed")
        #expect(info["access_units"] as? Int == 9)
        // The avcC record: version 1, profile/compat/level, lengthSizeMinusOne 3, one SPS.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: extradata)))
        #expect(bytes.first == 1)
        #expect(bytes.count > 7 ? bytes[4] == 0xFF && bytes[5] == 0xE1 : false)
        // nalu info reads the stream with that record as its extradata.
        let withRecord = try Self.info(output, extra: ["--extradata", extradata])
        #expect(withRecord["access_units"] as? Int == 9)
        #expect(withRecord["width"] as? Int == 64)
    }

    /// A partial last frame: the whole frames are encoded, a warning names the bytes ignored.
    @Test func partialLastRawFrameIsAWarning() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.yuv")
        try Data(repeating: 100, count: 64 * 48 * 3 / 2 * 2 + 1000).write(to: input)
        let output = directory.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["encode", input.path, "--size", "64x48", "-o", output, "--preset", "ultrafast"])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("nalu: warning: \(input.path): the last frame is partial: 1000 bytes ignored after 2 whole frames\n"))
        #expect(try Self.info(output)["access_units"] as? Int == 2)
        // --quiet silences the warning.
        let quiet = try CLIRunner.run(["encode", input.path, "--size", "64x48", "-o", output, "--preset", "ultrafast", "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr == "")
    }

    @Test func badSettingsAreErrorsBeforeAnyFrame() throws {
        let result = try CLIRunner.run(["encode", "--test-pattern", "--profile", "baseline", "--bframes", "2", "-o", "/nonexistent-dir/out.h264"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: --bframes: the Baseline profile does not allow B-frames\nUsage: nalu encode "))
        let preset = try CLIRunner.run(["encode", "--test-pattern", "--preset", "fastest", "-o", "/nonexistent-dir/out.h264"])
        #expect(preset.status == 64)
        #expect(preset.stderr.hasPrefix("nalu: error: --preset: unknown preset \"fastest\"\nhint: one of ultrafast, "))
        let odd = try CLIRunner.run(["encode", "--test-pattern", "--size", "161x96", "-o", "/nonexistent-dir/out.h265"])
        #expect(odd.status == 64)
        #expect(odd.stderr.hasPrefix("nalu: error: --size: "))
    }

    @Test func usageErrors() throws {
        let both = try CLIRunner.run(["encode", "--crf", "20", "--qp", "20", "-o", "x.h264"])
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("nalu: error: Use only one of --bitrate, --crf and --qp.\nUsage: nalu encode "))
        let rate = try CLIRunner.run(["encode", "--bitrate", "fast", "-o", "x.h264"])
        #expect(rate.status == 64)
        let missing = try CLIRunner.run(["encode", "/nonexistent/in.y4m", "--fps", "25", "-o", "x.h264"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "nalu: error: /nonexistent/in.y4m: No such file or directory\n")
        let hugeRate = try CLIRunner.run(["encode", "--fps", "999999999999999999.5", "-o", "x.h264"])
        #expect(hugeRate.status == 64)
        #expect(!hugeRate.signalled)
    }

    @Test func hugeSizesAreErrorsNotCrashes() throws {
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "100000x100000", "-o", "/nonexistent-dir/x.h264"])
        #expect(result.status == 64)
        #expect(!result.signalled)
        #expect(result.stderr.hasPrefix("nalu: error: --size: 100000x100000 is not a positive, even 4:2:0 size up to 16384x16384\n"))
    }
}
