import Foundation
import Testing

/// `--psnr` / `--ssim` (issue 17): the numbers the encoder library measures, within 0.3 dB of
/// what the x264 and x265 CLIs print for the same Y4M and settings.
@Suite struct QualityMetricsTests {
    /// 40 frames of ffmpeg's testsrc2 at 320x240 as Y4M.
    static func source(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("src.y4m").path
        let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "40",
                                          "-pix_fmt", "yuv420p", path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// The numbers after `label` in `text` (e.g. "Y:" → 45.095), in order of appearance.
    static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "." }
        return Double(digits)
    }

    static func statsJSON(_ arguments: [String], directory: URL) throws -> (json: [String: Any], stderr: String) {
        let stats = directory.appendingPathComponent("stats.json").path
        let result = try CLIRunner.run(["encode"] + arguments + ["--psnr", "--ssim", "--stats-json", stats])
        #expect(result.status == 0, "\(result.stderr)")
        return (try jsonObject(String(decoding: try Data(contentsOf: URL(fileURLWithPath: stats)), as: UTF8.self)), result.stderr)
    }

    @Test func x264MatchesTheX264CLI() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(in: directory)
        let cli = try runTool("x264", ["--psnr", "--ssim", "--preset", "ultrafast", "--crf", "28", "--threads", "1",
                                       "-o", directory.appendingPathComponent("x.h264").path, source])
        #expect(cli.status == 0)
        // "x264 [info]: PSNR Mean Y:45.095 U:41.765 V:41.772 Avg:43.683 Global:43.653 kb/s:520.86"
        let psnrLine = try #require(cli.stderr.split(separator: "\n").first { $0.contains("x264 [info]: PSNR Mean") }).description
        let ssimLine = try #require(cli.stderr.split(separator: "\n").first { $0.contains("x264 [info]: SSIM Mean") }).description
        let (json, stderr) = try Self.statsJSON([source, "--preset", "ultrafast", "--crf", "28", "--threads", "1",
                                                 "-o", directory.appendingPathComponent("n.h264").path], directory: directory)
        let psnr = try #require(json["psnr"] as? [String: Double])
        for (key, label) in [("y", "Y:"), ("u", "U:"), ("v", "V:"), ("average", "Avg:"), ("global", "Global:")] {
            let expected = try #require(Self.number(after: label, in: psnrLine))
            let ours = try #require(psnr[key])
            #expect(abs(ours - expected) <= 0.3, "\(key): nalu \(ours), x264 \(expected)")
        }
        let ssim = try #require(json["ssim"] as? [String: Double])
        let expectedSSIM = try #require(Self.number(after: "Y:", in: ssimLine))
        let expectedDB = try #require(Self.number(after: "(", in: ssimLine))
        #expect(abs(try #require(ssim["all"]) - expectedSSIM) < 0.001)
        #expect(abs(try #require(ssim["db"]) - expectedDB) <= 0.3)
        #expect(stderr.contains("; PSNR Mean Y:"))
        #expect(stderr.contains("; SSIM Mean Y:0."))
    }

    @Test func x265MatchesTheX265CLI() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(in: directory)
        let cli = try runTool("x265", ["--psnr", "--ssim", "--preset", "ultrafast", "--crf", "28",
                                       "-o", directory.appendingPathComponent("x.h265").path, source])
        #expect(cli.status == 0)
        // "encoded 40 frames in 0.13s (301.91 fps), 217.45 kb/s, Avg QP:34.60, Global PSNR: 35.309, SSIM Mean Y: 0.9540117 (13.374 dB)"
        let line = try #require(cli.stderr.split(separator: "\n").first { $0.hasPrefix("encoded ") && $0.contains("Global PSNR") }).description
        let (json, _) = try Self.statsJSON([source, "--preset", "ultrafast", "--crf", "28",
                                            "-o", directory.appendingPathComponent("n.h265").path], directory: directory)
        let psnr = try #require(json["psnr"] as? [String: Double])
        let expectedGlobal = try #require(Self.number(after: "Global PSNR:", in: line))
        #expect(abs(try #require(psnr["global"]) - expectedGlobal) <= 0.3, "nalu \(psnr), x265 \(expectedGlobal)")
        #expect(abs(try #require(psnr["average"]) - expectedGlobal) <= 0.3)
        let ssim = try #require(json["ssim"] as? [String: Double])
        #expect(abs(try #require(ssim["all"]) - (try #require(Self.number(after: "SSIM Mean Y:", in: line)))) < 0.001)
        #expect(abs(try #require(ssim["db"]) - (try #require(Self.number(after: "(", in: line.components(separatedBy: "SSIM")[1])))) <= 0.3)
        // Y, U, V: each within the range the x265 CLI prints per slice type.
        let perType = cli.stderr.split(separator: "\n").filter { $0.contains("PSNR Mean: Y:") }.map(String.init)
        #expect(!perType.isEmpty)
        for (key, label) in [("y", "Y:"), ("u", "U:"), ("v", "V:")] {
            let values = perType.compactMap { Self.number(after: label, in: $0.components(separatedBy: "PSNR Mean:")[1]) }
            let ours = try #require(psnr[key])
            #expect(ours >= (values.min() ?? 0) - 0.3 && ours <= (values.max() ?? 0) + 0.3, "\(key): nalu \(ours), x265 per type \(values)")
        }
    }

    @Test func openH264RefusesQualityMetrics() throws {
        let directory = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "96x64", "--frames", "2", "--encoder", "openh264", "--psnr",
                                        "-o", directory.appendingPathComponent("o.h264").path])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: --psnr: OpenH264 does not measure PSNR or SSIM\n"), "\(result.stderr)")
    }
}
