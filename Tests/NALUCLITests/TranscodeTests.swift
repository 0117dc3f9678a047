import Foundation
import Testing

/// `nalu encode IN` from a compressed input into MP4 (issue 33, item 4): every picture's pts kept
/// (variable frame rate included), audio copied byte for byte, `--start/--end` exact, as ffprobe
/// and ffmpeg report them on real-world fixtures.
@Suite struct TranscodeTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-transcode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The video frames' presentation times as ffprobe reports them (`best_effort_timestamp_time`).
    static func framePTS(_ path: String) throws -> [Double] {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                                             "-of", "csv=p=0", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")) }
    }

    /// md5 of the first audio stream's packets, copied out by ffmpeg.
    static func audioHash(_ path: String) throws -> String {
        let result = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func encode(_ fixture: String, _ extra: [String] = [], in directory: URL) throws -> String {
        let output = directory.appendingPathComponent("out.mp4").path
        let crf = extra.contains("--crf") ? [] : ["--crf", "30"]
        let result = try CLIRunner.run(["encode", CLIRunner.fixture("realworld/" + fixture), "-o", output,
                                        "--preset", "ultrafast", "--quiet"] + crf + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return output
    }

    @Test(arguments: ["phone.mp4", "vfr.mp4"])
    func ptsAndAudioKept(fixture: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Self.encode(fixture, in: directory)
        let source = CLIRunner.fixture("realworld/" + fixture)
        let expected = try Self.framePTS(source)
        let got = try Self.framePTS(output)
        #expect(expected.count == 300)
        #expect(got.count == expected.count)
        #expect(zip(got, expected).allSatisfy { abs($0 - $1) < 0.0005 }, "\(zip(got, expected).first { abs($0 - $1) >= 0.0005 }.map { "\($0)" } ?? "")")
        #expect(try Self.audioHash(output) == (try Self.audioHash(source)))
    }

    /// The variable rate stays variable: the distinct frame durations of vfr.mp4 are all there.
    @Test func variableRateKept() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Self.encode("vfr.mp4", ["--codec", "hevc"], in: directory)
        let pts = try Self.framePTS(output)
        let durations = Set(zip(pts.dropFirst(), pts).map { Int((($0 - $1) * 1000).rounded()) })
        #expect(durations.count > 1, "\(durations)")
        #expect(pts == (try Self.framePTS(CLIRunner.fixture("realworld/vfr.mp4"))))
    }

    /// A transport stream keeps its pictures' times (relative to the first).
    @Test func transportStreamInput() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Self.encode("phone.ts", in: directory)
        let expected = try Self.framePTS(CLIRunner.fixture("realworld/phone.ts"))
        let got = try Self.framePTS(output)
        #expect(!expected.isEmpty)
        #expect(got.count == expected.count)
        let first = expected.first ?? 0, firstGot = got.first ?? 0
        #expect(zip(got, expected).allSatisfy { abs(($0 - firstGot) - ($1 - first)) < 0.0005 })
    }

    /// Audio an output cannot hold is not lost quietly: into an elementary stream, or with -r
    /// (a constant-rate video only), the video is written and the exit status is 2 naming the
    /// audio; `--no-audio` asks for the loss and exits 0.
    @Test(arguments: [("phone.mp4", "out.h264", [String]()), ("phone.ts", "out.h265", []), ("phone.mp4", "out.mp4", ["-r", "30"])])
    func audioNotHeldIsNamed(fixture: String, name: String, extra: [String]) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent(name).path
        let arguments = ["encode", CLIRunner.fixture("realworld/" + fixture), "-o", output, "--preset", "ultrafast", "--crf", "35",
                         "--end", "0.5", "--quiet"] + (name.hasSuffix(".h265") ? ["--codec", "hevc"] : []) + extra
        let refused = try CLIRunner.run(arguments)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("nalu: error:") && refused.stderr.contains("not carried") && refused.stderr.contains("--no-audio"),
                "\(refused.stderr)")
        let frames = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                             "-of", "csv=p=0", output])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "15", "\(frames.stdout) \(frames.stderr)")
        let asked = try CLIRunner.run(arguments + ["--no-audio"])
        #expect(asked.status == 0, "\(asked.stderr)")
    }

    /// `--start 2 --end 5.5` on a 30 fps input: exactly the frames shown in [2, 5.5), at their
    /// times from 0, with the audio cut to the same span.
    @Test func startAndEnd() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Self.encode("phone.mp4", ["--start", "2", "--end", "5.5"], in: directory)
        let source = try Self.framePTS(CLIRunner.fixture("realworld/phone.mp4"))
        let kept = source.filter { $0 >= 2 && $0 < 5.5 }
        let got = try Self.framePTS(output)
        #expect(got.count == kept.count)
        #expect(got.count == 105)
        #expect(zip(got, kept).allSatisfy { abs($0 - ($1 - 2)) < 0.0005 })
        // Audio: about 3.5 s of it, not the whole 10 s.
        let audio = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "format=duration:stream=duration",
                                            "-of", "csv=p=0", output])
        let values = audio.stdout.split(whereSeparator: { $0 == "\n" || $0 == "," }).compactMap { Double($0) }
        #expect(values.allSatisfy { $0 > 3.4 && $0 < 3.7 }, "\(audio.stdout)")
    }

    /// The source's colour description and SAR reach the encoder (x264 and x265).
    @Test(arguments: ["h264", "hevc"])
    func colourAndAspectCarried(codec: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("in.mp4").path
        let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=1", "-c:v", "libx264",
                                          "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
                                          "-colorspace", "bt2020nc", "-color_range", "pc", "-vf", "setsar=4/3", source])
        #expect(made.status == 0, "\(made.stderr)")
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.run(["encode", source, "-o", output, "--preset", "ultrafast", "--codec", codec, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let fields = ["-v", "error", "-select_streams", "v:0", "-show_entries",
                      "stream=color_primaries,color_transfer,color_space,color_range,sample_aspect_ratio", "-of", "compact"]
        let got = try runTool("ffprobe", fields + [output]).stdout
        #expect(got == (try runTool("ffprobe", fields + [source]).stdout))
        #expect(got.contains("sample_aspect_ratio=4:3") && got.contains("color_transfer=smpte2084") && got.contains("color_range=pc"))
    }

    /// Global PSNR of `path` against `reference` by `nalu compare --json`, and the frames matched.
    static func psnr(_ reference: String, _ path: String) throws -> (global: Double, frames: Int) {
        let result = try CLIRunner.run(["compare", reference, path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let psnr = object?["psnr"] as? [String: Any]
        return ((psnr?["global"] as? Double) ?? 0, (object?["frames"] as? [Any])?.count ?? 0)
    }

    /// Item 5: three chunks of an MP4 master with B-frames and AAC, joined by `nalu concat`: every
    /// source picture once at its time, the audio packets byte for byte, within 0.05 dB of a
    /// one-pass encode at the same CRF.
    @Test func chunkedTranscodeJoins() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.fixture("realworld/phone.mp4")
        var parts: [String] = []
        for index in 0..<3 {
            let part = directory.appendingPathComponent("part-\(index).mp4").path
            let result = try CLIRunner.run(["encode", source, "--chunk", "\(index)/3", "-o", part, "--preset", "ultrafast", "--crf", "23", "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.framePTS(part).count == 100)
            parts.append(part)
        }
        let joined = directory.appendingPathComponent("joined.mp4").path
        let concat = try CLIRunner.run(["concat"] + parts + ["-o", joined])
        #expect(concat.status == 0, "\(concat.stderr)")
        let onePass = try Self.encode("phone.mp4", ["--crf", "23"], in: directory)
        #expect(try Self.framePTS(joined) == (try Self.framePTS(source)))
        // The samples in track order (ffmpeg's reading of a multi-edit audio track reorders them).
        let audio = { (path: String) in
            try runTool("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"]).stdout
        }
        // A chunk's audio holds the samples whose decoding time falls in it, behind an empty
        // edit up to the first; concat places it there, so the frame across a join stays with
        // the chunk it began in: every packet once, in order.
        #expect(try audio(joined) == (try audio(source)))
        #expect(try AudioPathsTests.audioPackets(joined) == (try AudioPathsTests.audioPackets(source)))
        // In sync: each packet at its source time (the pictures are, above), as ffprobe reads the edits.
        let times = { (path: String) in
            try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]).stdout
                .split(separator: "\n").compactMap { Double($0) }
        }
        let (joinedTimes, sourceTimes) = (try times(joined), try times(source))
        #expect(joinedTimes.count == sourceTimes.count)
        #expect(zip(joinedTimes, sourceTimes).allSatisfy { abs($0 - $1) < 0.001 },
                "\(zip(joinedTimes, sourceTimes).first { abs($0 - $1) >= 0.001 }.map { "\($0)" } ?? "")")
        let (joinedPSNR, joinedFrames) = try Self.psnr(source, joined)
        let (onePassPSNR, _) = try Self.psnr(source, onePass)
        #expect(joinedFrames == 300)
        #expect(abs(joinedPSNR - onePassPSNR) < 0.05, "\(joinedPSNR) against \(onePassPSNR)")
    }

    /// Item 4 with broken container times: ffmpeg writes a raw stream with B-frames into MP4 with
    /// every pts equal to its dts (no `ctts`; `make-fixtures.sh`'s colour fixtures), so the
    /// container's order is decoding order. The pictures take the container's times in the
    /// order the bitstream presents them (picture order count): the encode succeeds (it stopped
    /// at a "non-monotonic timestamp") and its pictures, lossless, are the raw stream's in order.
    @Test(arguments: ["colour_avc_bt709_tv", "colour_hevc_hdr10"])
    func presentationOrderFromTheBitstream(fixture: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.fixture(fixture + ".mp4")
        // The fixture is what the test is about: pts == dts on every packet, yet B-frames.
        let packets = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", source])
        #expect(packets.stdout.split(separator: "\n").allSatisfy { line in let f = line.split(separator: ","); return f.count == 2 && f[0] == f[1] })
        let raw = CLIRunner.fixture(fixture + (fixture.hasPrefix("colour_avc") ? ".h264" : ".h265"))
        #expect(try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=pict_type", "-of", "csv=p=0", raw]).stdout.contains("B"))
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.run(["encode", source, "-o", output, "--codec", "h264", "--preset", "ultrafast", "--qp", "0", "--profile", "high444", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = { (arguments: [String]) in
            try runTool("ffmpeg", ["-v", "error"] + arguments + ["-map", "0:v:0", "-f", "framemd5", "-"]).stdout.split(separator: "\n")
                .filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }
        }
        let expected = try frames(["-i", raw])
        #expect(expected.count == 5)
        #expect(try frames(["-ignore_editlist", "1", "-i", output]) == expected)
        // The times: the container's, increasing.
        let pts = try Self.framePTS(output)
        #expect(zip(pts.dropFirst(), pts).allSatisfy { $0 > $1 }, "\(pts)")
    }

    /// `--scale 160x90`: the frames equal ffmpeg's bicubic `scale` filter's (both lossless).
    @Test func scaleEqualsFFmpeg() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.fixture("realworld/phone.mp4")
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.run(["encode", source, "--scale", "160x90", "-o", output, "--preset", "ultrafast", "--crf", "0",
                                        "--profile", "high444", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let reference = directory.appendingPathComponent("ref.mp4").path
        let made = try runTool("ffmpeg", ["-v", "error", "-i", source, "-vf", "scale=160:90:flags=bicubic", "-c:v", "libx264", "-preset", "ultrafast",
                                          "-qp", "0", reference])
        #expect(made.status == 0, "\(made.stderr)")
        let frames = { (path: String) in
            try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { $0.split(separator: ",").last.map(String.init) ?? "" }
        }
        let got = try frames(output)
        #expect(got.count == 300)
        #expect(got == (try frames(reference)))
    }

    /// `--scale=-1x90` keeps the display aspect ratio of a 176x144 stream with SAR 4:3: 110x90,
    /// SAR 4:3 (display 44:27, as the source).
    @Test func scaleKeepsDisplayAspect() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.run(["encode", CLIRunner.fixture("colour_avc_pc_sar43.h264"), "--scale=-1x90", "-o", output,
                                        "--preset", "ultrafast", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "stream=width,height,sample_aspect_ratio,display_aspect_ratio", "-of", "compact", output])
        #expect(probe.stdout == "stream|width=110|height=90|sample_aspect_ratio=4:3|display_aspect_ratio=44:27\n")
    }
}
