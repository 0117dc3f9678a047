import Foundation
import Testing

/// `nalu trim --smart` (issue 34): frame-exact MP4 cuts without an edit list, the partial GOPs
/// re-encoded with the source's settings, the rest copied. Checked with ffmpeg on the fixtures of
/// Scripts/make-smart-fixtures.sh (160x90, 25 fps, 75 frames, GOPs of 12): the output shows
/// exactly the source's pictures in [start, end) (ffmpeg's `trim` of the decoded source), the
/// copied ones with the source's decoded MD5s, the others ≥ 40 dB PSNR, it decodes with
/// `-xerror`, and plays the same with `-ignore_editlist 1`.
@Suite struct SmartTrimTests {
    static let rate = 25.0

    /// Frame `index`'s time, as --start/--end take it.
    static func time(_ index: Int) -> String { String(format: "%.2f", Double(index) / rate) }

    /// MD5s of the decoded pictures of `path` (framemd5), `filter` applied first.
    static func md5s(_ path: String, filter: String? = nil, ignoreEditList: Bool = false, strict: Bool = false) throws -> [String] {
        var arguments = ["-nostdin", "-v", "error"]
        if strict { arguments += ["-xerror"] }
        if ignoreEditList { arguments += ["-ignore_editlist", "1"] }
        arguments += ["-i", path, "-an"]
        if let filter { arguments += ["-vf", filter] }
        arguments += ["-f", "framemd5", "-"]
        let result = try runTool("ffmpeg", arguments)
        #expect(result.status == 0 && (!strict || result.stderr.isEmpty), "ffmpeg framemd5 \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Each output picture's PSNR (Y, U, V averaged) against the source's picture of the range.
    static func psnrs(_ output: String, source: String, start: String, end: String, scratch: Scratch) throws -> [Double] {
        let log = scratch.file("psnr.log")
        let graph = "[1:v]trim=start=\(start):end=\(end),setpts=PTS-STARTPTS[r];[0:v]setpts=PTS-STARTPTS[o];[o][r]psnr=stats_file=\(log)"
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-i", source, "-filter_complex", graph, "-f", "null", "-"])
        #expect(result.status == 0, "ffmpeg psnr: \(result.stderr)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? Double.infinity : Double(value)
        }
    }

    /// Cuts `[first, end)` (frame indices) out of `fixture` and checks the output.
    static func check(_ fixture: String, first: Int, end: Int, extraDecoders: Bool = false, output name: String = "cut.mp4") throws {
        try check(source: CLIRunner.fixture("smart/\(fixture).mp4"), fixture: fixture, start: time(first), stop: time(end),
                  pictures: end - first, extraDecoders: extraDecoders, output: name)
    }

    static func check(source: String, fixture: String, start: String, stop: String, pictures: Int?, extraDecoders: Bool = false,
                      output name: String = "cut.mp4") throws {
        let scratch = try Scratch()
        let output = scratch.file(name)
        let isMP4 = name.hasSuffix(".mp4")
        // An elementary stream holds no audio: leaving it out is asked for (else exit status 2).
        let run = try CLIRunner.run(["trim", source, "--start", start, "--end", stop, "--smart", "--verbose", "-o", output]
                                    + (isMP4 ? [] : ["--no-audio"]))
        #expect(run.status == 0, "\(fixture) [\(start), \(stop)): \(run.stderr)")
        guard run.status == 0 else { return }
        // "… N access units copied …"
        let words = run.stderr.split(separator: " ")
        let copied = words.firstIndex(of: "access").flatMap { Int(words[$0 - 1]) } ?? -1
        let expected = try md5s(source, filter: "trim=start=\(start):end=\(stop)")
        if let pictures { #expect(expected.count == pictures) }
        // Decodes with -xerror and no message.
        let got = try md5s(output, strict: true)
        #expect(got.count == expected.count, "\(fixture) [\(start), \(stop)): \(got.count) pictures, expected \(expected.count)")
        if isMP4 { #expect(try md5s(output, ignoreEditList: true) == got, "\(fixture): differs with -ignore_editlist 1") }
        let same = zip(got, expected).filter { $0 == $1 }.count
        #expect(same >= copied, "\(fixture) [\(start), \(stop)): \(same) pictures identical, \(copied) copied")
        let quality = try psnrs(output, source: source, start: start, end: stop, scratch: scratch)
        #expect(quality.count == expected.count)
        #expect(quality.allSatisfy { $0 >= 40 }, "\(fixture) [\(start), \(stop)): PSNR \(quality.min() ?? 0) dB")
        if extraDecoders && isMP4 {
            let gst = try runTool("gst-launch-1.0", ["-q", "filesrc", "location=\(output)", "!", "decodebin", "!", "fakesink"])
            #expect(gst.status == 0, "\(fixture): GStreamer decodebin: \(gst.stderr)")
            if fixture.hasPrefix("hevc") {
                let de265 = try CLIRunner.run(["decode", output, "--decoder", "de265", "-o", scratch.file("out.yuv")])
                #expect(de265.status == 0 && de265.stderr.isEmpty, "\(fixture): libde265: \(de265.stderr)")
                let size = try FileManager.default.attributesOfItem(atPath: scratch.file("out.yuv"))[.size] as? Int ?? 0
                let pictureBytes = 160 * 90 * 3 / 2 * (fixture.hasSuffix("10") ? 2 : 1)
                #expect(size == expected.count * pictureBytes, "\(fixture): libde265 decoded \(size / pictureBytes) pictures")
            }
        }
    }

    // Every start position in the second GOP (frames 12…23), ending mid-GOP (frame 57).
    @Test(arguments: 12...23) func h264StartInGOP(first: Int) throws { try Self.check("avc_closed_bpyramid", first: first, end: 57) }
    @Test(arguments: 12...23) func hevcOpenGOPStartInGOP(first: Int) throws { try Self.check("hevc_open_gop", first: first, end: 57) }
    // Every end position in the fourth GOP (frames 36…47, exclusive end 37…48), from frame 5.
    @Test(arguments: 37...48) func h264EndInGOP(end: Int) throws { try Self.check("avc_closed_bpyramid", first: 5, end: end) }
    @Test(arguments: 37...48) func hevcOpenGOPEndInGOP(end: Int) throws { try Self.check("hevc_open_gop", first: 5, end: end) }

    // The other streams: CAVLC Baseline, several slices, High 10, Main 10; and GStreamer and
    // libde265 decode the outputs.
    @Test(arguments: ["avc_baseline_cavlc", "avc_slices", "avc_high10", "hevc_main10", "avc_closed_bpyramid", "hevc_open_gop"])
    func otherStreams(fixture: String) throws {
        try Self.check(fixture, first: 13, end: 58, extraDecoders: true)
        try Self.check(fixture, first: 2, end: 9)
    }

    /// Annex-B output: the re-encoded and the copied pictures' parameter sets in band, the CRA
    /// copy point as BLA.
    @Test(arguments: ["avc_closed_bpyramid", "hevc_open_gop", "avc_baseline_cavlc", "hevc_main10"])
    func annexB(fixture: String) throws {
        try Self.check(fixture, first: 13, end: 57, output: fixture.hasPrefix("hevc") ? "cut.265" : "cut.264")
    }

    /// The re-encoded pictures keep the source's profile, level, entropy coding, bit depth and
    /// colour description: the output's two sample entries say the same (ffprobe reads the first,
    /// the re-encoded pictures' own).
    @Test(arguments: ["avc_baseline_cavlc", "avc_high10", "hevc_main10", "avc_closed_bpyramid"])
    func matchedEncoding(fixture: String) throws {
        let source = CLIRunner.fixture("smart/\(fixture).mp4")
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", source, "--start", "0.2", "--end", "2", "--smart", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let fields = "stream=profile,level,pix_fmt,color_primaries,color_transfer,color_space,sample_aspect_ratio"
        let a = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", fields, "-of", "csv=p=0", source])
        let b = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", fields, "-of", "csv=p=0", output])
        #expect(a.stdout == b.stdout)
        #expect(!a.stdout.isEmpty)
    }

    /// A phone recording (H.264 High, 30 fps, AAC): both ends mid-GOP; and an HEVC MOV at
    /// 29.97 fps whose copy point is a CRA.
    @Test func realWorld() throws {
        try Self.check(source: CLIRunner.fixture("realworld/phone.mp4"), fixture: "phone", start: "1.1", stop: "4.3", pictures: 96)
        try Self.check(source: CLIRunner.fixture("realworld/hevc_2997.mov"), fixture: "hevc_2997", start: "0.5", stop: "2.1", pictures: nil)
    }

    /// The AAC track is cut to the same range as the video.
    @Test func audio() throws {
        let source = CLIRunner.fixture("smart/avc_closed_bpyramid.mp4")
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", source, "--start", "0.52", "--end", "2.28", "--smart", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let audio = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration", "-of", "csv=p=0", output])
        let seconds = Double(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        // Within one AAC frame (1024 samples at 48 kHz) of the video's 1.76 s.
        #expect(abs(seconds - 1.76) <= 1024.0 / 48_000, "audio lasts \(seconds) s")
    }

    /// Fragmented MP4 output is refused; `--crf` without `--smart` too; an elementary output
    /// of a source with audio leaves it out only when asked (`--no-audio`), else exit status 2.
    @Test func refusesOtherOutputs() throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(["trim", CLIRunner.fixture("smart/avc_slices.mp4"), "--start", "1", "--smart", "--fragmented", "-o", scratch.file("cut.mp4")])
        #expect(run.status == 64)
        let crf = try CLIRunner.run(["trim", CLIRunner.fixture("smart/avc_slices.mp4"), "--crf", "20", "-o", scratch.file("cut.mp4")])
        #expect(crf.status == 64)
        let audio = try CLIRunner.run(["trim", CLIRunner.fixture("smart/avc_closed_bpyramid.mp4"), "--start", "0.5", "--end", "1.5", "--smart",
                                       "-o", scratch.file("cut.264")])
        #expect(audio.status == 2 && audio.stderr.contains("not carried"), "\(audio.stderr)")
    }
}
