import Foundation
import Testing

/// `nalu compare` (issue 33): PSNR and SSIM equal to ffmpeg's psnr and ssim filters within
/// 0.01 dB, frames matched in presentation order, any input.
@Suite struct CompareCommandTests {
    /// The numbers ffmpeg's filters print at the end: psnr y/u/v/average, ssim Y/All and dB.
    static func ffmpegMetrics(reference: String, distorted: String) throws -> [String: Double] {
        let result = try runTool("ffmpeg", ["-i", distorted, "-i", reference, "-lavfi", "[0:v][1:v]psnr;[0:v][1:v]ssim", "-f", "null", "-"])
        var values: [String: Double] = [:]
        for line in result.stderr.split(separator: "\n") {
            if line.contains("Parsed_psnr"), let range = line.range(of: "PSNR ") {
                for field in line[range.upperBound...].split(separator: " ") {
                    let parts = field.split(separator: ":")
                    if parts.count == 2, let value = Double(parts[1]) { values["psnr." + parts[0]] = value }
                }
            }
            if line.contains("Parsed_ssim"), let range = line.range(of: "SSIM ") {
                let text = line[range.upperBound...]
                if let y = text.range(of: "Y:") { values["ssim.y"] = Double(text[y.upperBound...].prefix { $0 != " " }) }
                if let all = text.range(of: "All:") {
                    let rest = text[all.upperBound...]
                    values["ssim.all"] = Double(rest.prefix { $0 != " " })
                    if let open = rest.firstIndex(of: "("), let close = rest.firstIndex(of: ")") {
                        values["ssim.db"] = Double(rest[rest.index(after: open)..<close])
                    }
                }
            }
        }
        return values
    }

    static func setUp(_ directory: URL, codec: [String], pixelFormat: String, name: String) throws -> (String, String) {
        let source = directory.appendingPathComponent("src-\(pixelFormat).y4m").path
        if !FileManager.default.fileExists(atPath: source) {
            let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "12",
                                              "-pix_fmt", pixelFormat, "-strict", "-1", source])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let encoded = directory.appendingPathComponent(name).path
        let made = try runTool("ffmpeg", ["-v", "error", "-i", source] + codec + [encoded])
        #expect(made.status == 0, "\(made.stderr)")
        return (source, encoded)
    }

    @Test func equalsFFmpegFilters() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [([String], String, String)] = [
            (["-c:v", "libx264", "-crf", "32", "-bf", "2"], "yuv420p", "x264.mp4"),
            (["-c:v", "libx265", "-crf", "30", "-x265-params", "log-level=error"], "yuv420p", "x265.h265"),
            (["-c:v", "libx265", "-crf", "28", "-x265-params", "log-level=error"], "yuv420p10le", "x265-10.mkv.h265"),
            (["-c:v", "libx264", "-crf", "30"], "yuv444p", "x264-444.ts"),
        ]
        for (codec, format, name) in cases {
            let (source, encoded) = try Self.setUp(directory, codec: codec, pixelFormat: format, name: name)
            let result = try CLIRunner.run(["compare", source, encoded, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(Set(json.keys) == ["psnr", "ssim", "frames"])
            let psnr = try #require(json["psnr"] as? [String: Double])
            let ssim = try #require(json["ssim"] as? [String: Double])
            #expect(Set(psnr.keys) == ["y", "u", "v", "average", "global"])
            #expect(Set(ssim.keys) == ["y", "all", "db"])
            let frames = try #require(json["frames"] as? [[String: Any]])
            #expect(frames.count == 12)
            let expected = try Self.ffmpegMetrics(reference: source, distorted: encoded)
            for key in ["y", "u", "v", "average"] {
                let theirs = try #require(expected["psnr." + key], "\(name) psnr.\(key)")
                #expect(abs((psnr[key] ?? 0) - theirs) < 0.01, "\(name) psnr.\(key): \(psnr[key] ?? 0) vs \(theirs)")
            }
            // Every frame has the same size: the global PSNR is the average's.
            #expect(abs((psnr["global"] ?? 0) - (psnr["average"] ?? 0)) < 0.01)
            #expect(abs((ssim["y"] ?? 0) - (expected["ssim.y"] ?? -1)) < 0.0001, "\(name) ssim.y")
            #expect(abs((ssim["all"] ?? 0) - (expected["ssim.all"] ?? -1)) < 0.0001, "\(name) ssim.all")
            #expect(abs((ssim["db"] ?? 0) - (expected["ssim.db"] ?? -1)) < 0.01, "\(name) ssim.db")
        }
    }

    @Test func identicalInputsHaveInfinitePSNR() throws {
        let path = CLIRunner.fixture("hevc_main.h265")
        let result = try CLIRunner.run(["compare", path, CLIRunner.fixture("hevc_main.mp4toannexb.h265"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let psnr = try #require(json["psnr"] as? [String: Any])
        #expect(psnr["y"] is NSNull)
        #expect((json["ssim"] as? [String: Any])?["all"] as? Double == 1)
        let text = try CLIRunner.run(["compare", path, path])
        #expect(text.stdout.hasPrefix("PSNR y:inf u:inf v:inf average:inf global:inf\nSSIM Y:1.0 All:1.0 (inf)\nframes: 20\n"))
    }

    @Test func differentFrameCountsFailUnlessShortest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = directory.appendingPathComponent("short.h264").path
        let made = try runTool("ffmpeg", ["-v", "error", "-i", CLIRunner.fixture("avc_main.h264"), "-frames:v", "5", "-c:v", "libx264", short])
        #expect(made.status == 0)
        let failed = try CLIRunner.run(["compare", CLIRunner.fixture("avc_main.h264"), short])
        #expect(failed.status == 65)
        #expect(failed.stdout.contains("frames: 5\n"))
        #expect(failed.stderr.contains("has more frames than"))
        let shortest = try CLIRunner.run(["compare", CLIRunner.fixture("avc_main.h264"), short, "--shortest"])
        #expect(shortest.status == 0)
    }

    @Test func sizeMismatchIsBadData() throws {
        let result = try CLIRunner.run(["compare", CLIRunner.fixture("avc_main.h264"), CLIRunner.fixture("concat_avc_640x360.h264")])
        #expect(result.status == 65)
        #expect(result.stderr.contains("640x360"))
    }
}

/// `nalu doctor --decode` (issue 33): a slice cut short and a slice with flipped bytes are
/// decode-error findings with the access unit, byte offset and the decoder's words; the clean
/// fixtures have none.
@Suite struct DoctorDecodeTests {
    @Test func findsACutAndAFlippedSlice() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        let cut = directory.appendingPathComponent("cut.h264")
        try Data(original.prefix(2000)).write(to: cut)
        let withoutDecode = try CLIRunner.run(["doctor", cut.path])
        #expect(!withoutDecode.stdout.contains("decode-error"))
        let found = try CLIRunner.run(["doctor", cut.path, "--decode", "--json"])
        #expect(found.status == 3)
        let finding = try #require(found.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["code"] as? String == "decode-error" })
        #expect(finding["access_unit"] as? Int == 0)
        #expect(finding["byte_offset"] as? Int == 0)
        #expect((finding["message"] as? String)?.contains("error while decoding MB") == true)
        #expect(finding["severity"] as? String == "error")
        // Bytes flipped inside the second picture's slice data (its slice starts at byte 3332).
        var flipped = original
        for index in 3632..<3648 { flipped[index] ^= 0xFF }
        let damaged = directory.appendingPathComponent("flipped.h264")
        try flipped.write(to: damaged)
        let text = try CLIRunner.run(["doctor", damaged.path, "--decode"])
        #expect(text.status == 3)
        #expect(text.stdout.contains("error[decode-error] access unit 1, byte 3328: the decoder (libavcodec) reports: "))
    }

    @Test(arguments: ["avc_baseline.h264", "avc_high_bframes.h264", "avc_high10.h264", "avc_high422.h264", "avc_high444.h264",
                      "avc_interlaced.h264", "hevc_main.h265", "hevc_main10.h265", "hevc_rext444.h265", "hevc_open_gop.h265",
                      "mp4_avc_bframes.mp4", "mp4_hevc_hvc1.mp4"])
    func cleanFixturesHaveNoDecodeError(fixture: String) throws {
        let result = try CLIRunner.run(["doctor", CLIRunner.fixture(fixture), "--decode"])
        #expect(!result.stdout.contains("decode-error"), "\(result.stdout)")
        #expect(result.stderr == "")
    }

    @Test func decodeNeedsAFile() throws {
        let result = try CLIRunner.run(["doctor", "--decode"], stdin: try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))))
        #expect(result.status == 64)
    }
}
