import Foundation
import Testing

/// `nalu encode` for every pixel format × codec (issue 17): ffprobe reports the profile and
/// `pix_fmt` the input needs, and the decode matches the source (ffmpeg's psnr filter).
///
/// The PSNR bound: at `--qp 20` the 8-bit quantiser step is 0.625 · 2^(20/6) ≈ 6.3; a uniform
/// quantisation error of variance 6.3² / 12 ≈ 3.3 gives 10 · log10(255² / 3.3) ≈ 43 dB for
/// busy content, more where testsrc2 is flat. Measured (x264/x265 defaults, 10 frames): 43.7 dB
/// (x265 4:4:4, the lowest, its chroma planes at full resolution) to 50.0 dB (x264 4:2:0), so
/// ≥ 40 dB holds with 3.7 dB to spare. For 10-bit input x265 reads `--qp 20` on the same scale
/// (43.8–47.7 dB against a peak of 1023), x264 on the 10-bit scale that includes QpBdOffset 12
/// (QP 8 in 8-bit terms: 55.7–61.2 dB).
@Suite struct PixelFormatEncodeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pixelFormat: String
        var codec: String
        /// ffprobe's `profile`.
        var profile: String
        /// Y4M input (raw with --pix-fmt and --size otherwise).
        var y4m = true
        var testDescription: String { "\(pixelFormat) \(codec)\(y4m ? "" : " raw")" }
    }

    static let cases: [Case] = [
        Case(pixelFormat: "yuv420p", codec: "h264", profile: "High"),
        Case(pixelFormat: "yuv420p", codec: "hevc", profile: "Main"),
        Case(pixelFormat: "yuv422p", codec: "h264", profile: "High 4:2:2"),
        Case(pixelFormat: "yuv422p", codec: "hevc", profile: "Rext"),
        Case(pixelFormat: "yuv444p", codec: "h264", profile: "High 4:4:4 Predictive"),
        Case(pixelFormat: "yuv444p", codec: "hevc", profile: "Rext"),
        Case(pixelFormat: "yuv420p10le", codec: "h264", profile: "High 10"),
        Case(pixelFormat: "yuv420p10le", codec: "hevc", profile: "Main 10"),
        Case(pixelFormat: "yuv422p10le", codec: "h264", profile: "High 4:2:2"),
        Case(pixelFormat: "yuv422p10le", codec: "hevc", profile: "Rext"),
        Case(pixelFormat: "yuv444p10le", codec: "h264", profile: "High 4:4:4 Predictive"),
        Case(pixelFormat: "yuv444p10le", codec: "hevc", profile: "Rext"),
        // NV12 has no Y4M tag: raw only. Raw input of the other layouts works the same.
        Case(pixelFormat: "nv12", codec: "h264", profile: "High", y4m: false),
        Case(pixelFormat: "nv12", codec: "hevc", profile: "Main", y4m: false),
        Case(pixelFormat: "yuv422p", codec: "h264", profile: "High 4:2:2", y4m: false),
        Case(pixelFormat: "yuv422p", codec: "hevc", profile: "Rext", y4m: false),
        Case(pixelFormat: "yuv444p10le", codec: "hevc", profile: "Rext", y4m: false),
        // P010 (raw only): converted to planar 10-bit for the libraries.
        Case(pixelFormat: "p010le", codec: "h264", profile: "High 10", y4m: false),
        Case(pixelFormat: "p010le", codec: "hevc", profile: "Main 10", y4m: false),
    ]

    /// 10 frames of testsrc2 at 176x144 in `pixelFormat`, as Y4M (`-strict -1` lets ffmpeg
    /// write the 10-bit tags) or raw.
    static func source(_ pixelFormat: String, y4m: Bool, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(y4m ? "src.y4m" : "src_176x144.yuv").path
        let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "10",
                                          "-pix_fmt", pixelFormat, "-strict", "-1"] + (y4m ? [] : ["-f", "rawvideo"]) + [path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// ffprobe's `profile` and `pix_fmt` of the first video stream.
    static func probe(_ path: String) throws -> (profile: String, pixelFormat: String) {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,pix_fmt", "-of", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try #require(try jsonObject(result.stdout)["streams"] as? [[String: Any]])
        let stream = try #require(streams.first)
        return (try #require(stream["profile"] as? String), try #require(stream["pix_fmt"] as? String))
    }

    /// The average PSNR ffmpeg's psnr filter measures between `decoded` and `source` (all
    /// frames, all planes), and the number of frames compared.
    static func psnr(_ decoded: String, against source: [String]) throws -> Double {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "info", "-i", decoded] + source + ["-lavfi", "psnr", "-f", "null", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        // "[Parsed_psnr_0 @ 0x…] PSNR y:48.565647 u:44.974883 v:44.813087 average:46.972596 min:… max:…"
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("PSNR y:") })
        let value = try #require(line.components(separatedBy: "average:").last?.split(separator: " ").first)
        return value == "inf" ? .infinity : try #require(Double(value))
    }

    @Test(arguments: cases)
    func encodesWithTheProfileTheInputNeeds(_ testCase: Case) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(testCase.pixelFormat, y4m: testCase.y4m, in: directory)
        let output = directory.appendingPathComponent(testCase.codec == "hevc" ? "out.h265" : "out.h264").path
        let raw = testCase.y4m ? [] : ["--pix-fmt", testCase.pixelFormat, "--size", "176x144", "--fps", "25"]
        let result = try CLIRunner.run(["encode", source, "--codec", testCase.codec, "--qp", "20", "--threads", "1", "-o", output, "--quiet"] + raw)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let probed = try Self.probe(output)
        #expect(probed.profile == testCase.profile)
        // ffmpeg decodes a 4:2:0 stream as planar yuv420p / yuv420p10le whatever the input's layout.
        let decoded = ["nv12": "yuv420p", "p010le": "yuv420p10le"][testCase.pixelFormat] ?? testCase.pixelFormat
        #expect(probed.pixelFormat == decoded)
        let sourceArguments = testCase.y4m ? ["-i", source]
            : ["-f", "rawvideo", "-pix_fmt", testCase.pixelFormat, "-s", "176x144", "-r", "25", "-i", source]
        let psnr = try Self.psnr(output, against: sourceArguments)
        #expect(psnr >= 40, "PSNR \(psnr) dB")
        #expect(try ffmpegDecode(output).frames == 10)
    }

    /// `--psnr` with 4:2:2 and 4:4:4 input: the per-plane means agree with ffmpeg's psnr filter
    /// (the mean of its per-frame `psnr_y`, `psnr_u`, `psnr_v`). libx265 divides chroma error by
    /// a 4:2:0 plane's samples whatever the format (3.01 dB low for 4:2:2, 6.02 dB for 4:4:4);
    /// nalu corrects that, so both libraries land within 0.1 dB.
    @Test(arguments: ["yuv422p", "yuv444p", "yuv444p10le"], ["h264", "hevc"])
    func psnrPerPlaneMatchesFFmpeg(_ pixelFormat: String, _ codec: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(pixelFormat, y4m: true, in: directory)
        let output = directory.appendingPathComponent(codec == "hevc" ? "out.h265" : "out.h264").path
        let stats = directory.appendingPathComponent("stats.json").path
        let result = try CLIRunner.run(["encode", source, "--codec", codec, "--qp", "20", "--threads", "1", "--psnr",
                                        "-o", output, "--stats-json", stats, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try jsonObject(String(decoding: try Data(contentsOf: URL(fileURLWithPath: stats)), as: UTF8.self))
        let ours = try #require(json["psnr"] as? [String: Double])
        let frameLog = directory.appendingPathComponent("psnr.log").path
        let measured = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-i", source, "-lavfi", "psnr=stats_file=\(frameLog)", "-f", "null", "-"])
        #expect(measured.status == 0, "\(measured.stderr)")
        // "n:1 mse_avg:0.92 mse_y:0.23 mse_u:1.21 mse_v:1.31 psnr_avg:48.51 psnr_y:54.43 psnr_u:47.31 psnr_v:46.97"
        let frames = try String(contentsOfFile: frameLog, encoding: .utf8).split(separator: "\n").map { line in
            Dictionary(line.split(separator: " ").compactMap { field -> (String, Double)? in
                let parts = field.split(separator: ":")
                guard parts.count == 2, let value = Double(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { first, _ in first })
        }
        #expect(frames.count == 10)
        for plane in ["y", "u", "v"] {
            let mean = frames.compactMap { $0["psnr_" + plane] }.reduce(0, +) / Double(frames.count)
            let value = try #require(ours[plane])
            #expect(abs(value - mean) < 0.1, "\(plane): nalu \(value), ffmpeg \(mean)")
        }
    }

    /// High 4:4:4 Predictive is the H.264 profile with lossless coding: `--qp 0` decodes to the
    /// source exactly (PSNR infinite); with any other profile it is refused.
    @Test func losslessWithHigh444() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source("yuv444p", y4m: true, in: directory)
        let output = directory.appendingPathComponent("lossless.h264").path
        let result = try CLIRunner.run(["encode", source, "--qp", "0", "--profile", "high444", "--threads", "1", "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.probe(output).profile == "High 4:4:4 Predictive")
        #expect(try Self.psnr(output, against: ["-i", source]) == .infinity)
        let refused = try CLIRunner.run(["encode", source, "--qp", "0", "--profile", "high", "-o", output, "--quiet"])
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("nalu: error: --profile: high cannot carry yuv444p input (4:4:4 8-bit); use high444\n"))
    }

    @Test(arguments: [
        ("yuv422p", ["--profile", "main"], "--profile: main cannot carry yuv422p input (4:2:2 8-bit); use high422"),
        ("yuv420p10le", ["--profile", "high"], "--profile: high cannot carry yuv420p10le input (4:2:0 10-bit); use high10"),
        ("yuv444p", ["--codec", "hevc", "--profile", "main422-10"], "--profile: main422-10 cannot carry yuv444p input (4:4:4 8-bit); use main444-8"),
        ("yuv422p10le", ["--codec", "hevc", "--profile", "main10"], "--profile: main10 cannot carry yuv422p10le input (4:2:2 10-bit); use main422-10"),
        ("yuv444p", ["--encoder", "openh264"], "--pix-fmt: OpenH264 encodes 8-bit 4:2:0 only, not yuv444p"),
        ("yuv422p", ["--encoder", "openh264"], "--pix-fmt: OpenH264 encodes 8-bit 4:2:0 only, not yuv422p"),
    ])
    func profileThatCannotCarryTheInputIsAUsageError(_ pixelFormat: String, _ arguments: [String], _ message: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(pixelFormat, y4m: true, in: directory)
        let output = directory.appendingPathComponent("out.bin").path
        let result = try CLIRunner.run(["encode", source, "--to", "annexb", "-o", output] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: \(message)\nUsage: nalu encode "), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// 4:4:4 has no chroma subsampling, so any size codes (H.264 and H.265 Table 6-1); 4:2:2
    /// needs an even width.
    @Test(arguments: ["h264", "hevc"])
    func oddSizesWith444(_ codec: String) throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent(codec == "hevc" ? "odd.h265" : "odd.h264").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--pix-fmt", "yuv444p", "--size", "175x143", "--frames", "5",
                                        "--codec", codec, "--threads", "1", "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let probed = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,pix_fmt", "-of", "csv=p=0", output])
        #expect(probed.stdout == "175,143,yuv444p\n")
        #expect(try ffmpegDecode(output).frames == 5)
        let refused = try CLIRunner.run(["encode", "--test-pattern", "--pix-fmt", "yuv422p", "--size", "175x144", "--frames", "5",
                                         "--codec", codec, "-o", output])
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("nalu: error: --size: 175x144 is not a positive 4:2:2 size (even width) up to 16384x16384\n"))
    }

    @Test func unknownPixelFormatListsTheChoices() throws {
        let result = try CLIRunner.run(["encode", "x_176x144.yuv", "--pix-fmt", "yuv444p16le"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("yuv420p\n  - nv12\n  - yuv420p10le\n  - yuv422p\n  - yuv444p\n  - yuv422p10le\n  - yuv444p10le\n  - p010le\n"), "\(result.stderr)")
    }
}
