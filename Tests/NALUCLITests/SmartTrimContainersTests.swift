import Foundation
import Testing

/// `nalu trim --smart` from and to every container (issue 34, items 1–2): Annex-B (VUI timing or
/// `--fps`), length-prefixed with an avcC/hvcC record, MPEG-TS with AAC, and MP4 inputs; MP4
/// (avc1/hvc1 or avc3/hev1), Annex-B, length-prefixed and MPEG-TS outputs. The inputs are made
/// from the Scripts/make-smart-fixtures.sh MP4s by ffmpeg (`-c copy`) and `nalu convert`, so the
/// MP4's decoded pictures are the reference: the output shows exactly ffmpeg's `trim` of them,
/// copied pictures with their MD5s, the others ≥ 40 dB PSNR, decoding with `ffmpeg -xerror`.
@Suite struct SmartTrimContainersTests {
    static func fixture(_ name: String) -> String { CLIRunner.fixture("smart/\(name).mp4") }

    /// `fixture` remuxed by ffmpeg into `ext` (h264/hevc Annex-B, ts with the audio).
    static func remux(_ fixture: String, to ext: String, scratch: Scratch) throws -> String {
        let output = scratch.file("in.\(ext)")
        var arguments = ["-nostdin", "-v", "error", "-i", Self.fixture(fixture), "-c", "copy"]
        if ext == "h264" || ext == "hevc" { arguments += ["-an", "-bsf:v", ext == "h264" ? "h264_mp4toannexb" : "hevc_mp4toannexb"] }
        let result = try runTool("ffmpeg", arguments + ["-y", output])
        #expect(result.status == 0, "ffmpeg remux: \(result.stderr)")
        return output
    }

    /// Cuts frames `[first, end)` of `input` (made from `fixture`) to `name` and checks it against
    /// the fixture's decoded pictures. Returns the output path.
    @discardableResult
    static func check(_ input: String, _ extra: [String] = [], fixture: String, first: Int = 13, end: Int = 57, output name: String,
                      gstreamer: Bool = false, scratch: Scratch) throws -> String {
        let start = SmartTrimTests.time(first), stop = SmartTrimTests.time(end)
        let output = scratch.file(name)
        let framing = name.hasSuffix(".lp") && !extra.contains("--to") ? ["--to", "avcc"] : []
        let run = try CLIRunner.run(["trim", input, "--start", start, "--end", stop, "--smart", "--verbose", "-o", output] + extra + framing)
        #expect(run.status == 0, "\(fixture) → \(name): \(run.stderr)")
        guard run.status == 0 else { return output }
        let words = run.stderr.split(separator: " ")
        let copied = words.firstIndex(of: "access").flatMap { Int(words[$0 - 1]) } ?? -1
        #expect(copied > 0, "\(run.stderr)")
        // Length-prefixed output decodes on its own: back to Annex-B for ffmpeg.
        var decodable = output
        if name.hasSuffix(".lp") {
            decodable = scratch.file(name + (fixture.hasPrefix("hevc") ? ".265" : ".264"))
            let back = try CLIRunner.run(["convert", output, "--codec", fixture.hasPrefix("hevc") ? "hevc" : "h264", "--to", "annexb", "-o", decodable])
            #expect(back.status == 0, "\(back.stderr)")
        }
        let source = Self.fixture(fixture)
        let expected = try SmartTrimTests.md5s(source, filter: "trim=start=\(start):end=\(stop)")
        #expect(expected.count == end - first)
        let got = try SmartTrimTests.md5s(decodable, strict: true)
        #expect(got.count == expected.count, "\(fixture) → \(name): \(got.count) pictures, expected \(expected.count)")
        let same = zip(got, expected).filter { $0 == $1 }.count
        #expect(same >= copied, "\(fixture) → \(name): \(same) pictures identical, \(copied) copied")
        let quality = try SmartTrimTests.psnrs(decodable, source: source, start: start, end: stop, scratch: scratch)
        #expect(quality.count == expected.count)
        #expect(quality.allSatisfy { $0 >= 40 }, "\(fixture) → \(name): PSNR \(quality.min() ?? 0) dB")
        if gstreamer {
            let gst = try runTool("gst-launch-1.0", ["-q", "filesrc", "location=\(decodable)", "!", "decodebin", "!", "fakesink"])
            #expect(gst.status == 0, "\(fixture) → \(name): GStreamer decodebin: \(gst.stderr)")
        }
        if fixture.hasPrefix("hevc") {
            // libde265's own decoder (dec265): every picture decodes. It warns of "non-existing
            // reference picture accessed" after a CRA whose parameter sets are repeated in band
            // (the source's own Annex-B remux by ffmpeg's hevc_mp4toannexb gets the same
            // warnings), so MP4 output is held to silence (through `nalu decode`) and the
            // others to the picture count.
            if !name.hasSuffix(".mp4") {
                let de265 = try runTool("libde265-dec265", ["-q", decodable])
                #expect(de265.status == 0, "\(fixture) → \(name): dec265: \(de265.stderr)")
                #expect(de265.stderr.contains("nFrames decoded: \(expected.count) "), "\(fixture) → \(name): dec265: \(de265.stderr.suffix(200))")
            } else {
                let run = try CLIRunner.run(["decode", decodable, "--decoder", "de265", "-o", scratch.file("\(name).yuv")])
                #expect(run.status == 0 && run.stderr.isEmpty, "\(fixture) → \(name): libde265: \(run.stderr)")
            }
        }
        return output
    }

    /// Annex-B input timed by its SPS VUI (x264 writes it), to MP4, MPEG-TS and Annex-B.
    @Test func annexBInputH264() throws {
        let scratch = try Scratch()
        let input = try Self.remux("avc_closed_bpyramid", to: "h264", scratch: scratch)
        try Self.check(input, fixture: "avc_closed_bpyramid", output: "cut.mp4", gstreamer: true, scratch: scratch)
        try Self.check(input, fixture: "avc_closed_bpyramid", first: 2, end: 45, output: "cut.ts", scratch: scratch)
        try Self.check(input, fixture: "avc_closed_bpyramid", output: "cut.264", scratch: scratch)
    }

    /// HEVC Annex-B input (open GOP: the CRA copy point becomes BLA) timed by `--fps`, to Annex-B
    /// and MPEG-TS; libde265 decodes both.
    @Test func annexBInputHEVC() throws {
        let scratch = try Scratch()
        let input = try Self.remux("hevc_open_gop", to: "hevc", scratch: scratch)
        try Self.check(input, ["--fps", "25"], fixture: "hevc_open_gop", output: "cut.265", scratch: scratch)
        try Self.check(input, ["--fps", "25"], fixture: "hevc_open_gop", first: 5, end: 40, output: "cut.ts", gstreamer: true, scratch: scratch)
    }

    /// Length-prefixed input with its record (`--extradata`), to length-prefixed output whose
    /// parameter sets are in band (it decodes on its own), and to MP4.
    @Test(arguments: ["avc_slices", "hevc_main10"])
    func lengthPrefixedInput(fixture: String) throws {
        let scratch = try Scratch()
        let record = scratch.file("in.rec"), input = scratch.file("in.lp")
        let made = try CLIRunner.run(["convert", Self.fixture(fixture), "--to", "avcc", "--extradata-out", record, "-o", input])
        #expect(made.status == 0, "\(made.stderr)")
        let options = ["--extradata", record, "--codec", fixture.hasPrefix("hevc") ? "hevc" : "h264", "--fps", "25"]
        try Self.check(input, options + ["--to", "avcc"], fixture: fixture, output: "cut.lp", scratch: scratch)
        try Self.check(input, options, fixture: fixture, first: 3, end: 30, output: "cut.mp4", scratch: scratch)
    }

    /// MPEG-TS input with AAC (ffmpeg's remux), to MPEG-TS and MP4: the audio is cut along.
    @Test func transportStreamInput() throws {
        let scratch = try Scratch()
        let input = try Self.remux("avc_closed_bpyramid", to: "ts", scratch: scratch)
        try Self.check(input, fixture: "avc_closed_bpyramid", output: "cut.ts", gstreamer: true, scratch: scratch)
        let mp4 = try Self.check(input, fixture: "avc_closed_bpyramid", first: 7, end: 40, output: "cut.mp4", scratch: scratch)
        #expect(try Self.audioSeconds(mp4) > 1.2)
    }

    /// MP4 input to MPEG-TS (HEVC: libde265 and GStreamer decode it) and length-prefixed.
    @Test func mp4InputOtherOutputs() throws {
        let scratch = try Scratch()
        try Self.check(Self.fixture("hevc_open_gop"), fixture: "hevc_open_gop", output: "cut.ts", gstreamer: true, scratch: scratch)
        try Self.check(Self.fixture("avc_baseline_cavlc"), fixture: "avc_baseline_cavlc", output: "cut.lp", scratch: scratch)
    }

    /// Seconds of decoded audio in `path` (ffmpeg's count of samples, 48 kHz).
    static func audioSeconds(_ path: String) throws -> Double {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-count_packets", "-show_entries",
                                             "stream=nb_read_packets", "-of", "csv=p=0", path])
        #expect(result.status == 0, "\(result.stderr)")
        let first = result.stdout.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .punctuationCharacters) } ?? ""
        return Double(Int(first) ?? 0) * 1024 / 48_000
    }

    /// The AAC cut along into MPEG-TS output, from an MP4 and from a transport stream input:
    /// in sync by content (Scripts/avsync.py: ≤ 5 ms), lasting the video's 1.8 s within
    /// one AAC frame. The cut starts at a keyframe (frame 12), which avsync finds by its MD5.
    @Test(arguments: ["mp4", "ts"])
    func audioIntoTransportStream(input kind: String) throws {
        let scratch = try Scratch()
        let input = kind == "mp4" ? Self.fixture("avc_closed_bpyramid") : try Self.remux("avc_closed_bpyramid", to: "ts", scratch: scratch)
        let output = scratch.file("cut.ts")
        let run = try CLIRunner.run(["trim", input, "--start", "0.48", "--end", "2.28", "--smart", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let seconds = try Self.audioSeconds(output)
        #expect(abs(seconds - 1.8) <= 1024.0 / 48_000 + 1e-9, "audio lasts \(seconds) s")
        let shift = try AudioPathsTests.shift(Self.fixture("avc_closed_bpyramid"), output, at: 0.5)
        #expect(abs(shift) <= 5, "A/V shift \(shift) ms")
    }

    /// `--sample-entry avc3|hev1`: one sample entry, the re-encoded and the copied pictures'
    /// parameter sets in band; plays the same with and without the edit list.
    @Test(arguments: [("avc_closed_bpyramid", "avc3"), ("hevc_open_gop", "hev1")])
    func inBandSampleEntry(fixture: String, entry: String) throws {
        let scratch = try Scratch()
        let output = try Self.check(Self.fixture(fixture), ["--sample-entry", entry], fixture: fixture, output: "cut.mp4", scratch: scratch)
        let tag = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", output])
        #expect(tag.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == entry)
        let info = try CLIRunner.run(["info", output, "--json"])
        #expect(info.stdout.components(separatedBy: "\"\(entry)\"").count >= 2)
        #expect(!info.stdout.contains(fixture.hasPrefix("hevc") ? "\"hvc1\"" : "\"avc1\""), "a second, out-of-band sample entry")
        #expect(try SmartTrimTests.md5s(output, ignoreEditList: true) == (try SmartTrimTests.md5s(output)))
    }

    /// `--encoder openh264` re-encodes a Constrained Baseline source with OpenH264 (the CRF as a
    /// constant QP); a High profile source is refused, naming the profile.
    @Test func openH264() throws {
        let scratch = try Scratch()
        try Self.check(Self.fixture("avc_baseline_cavlc"), ["--encoder", "openh264"], fixture: "avc_baseline_cavlc", output: "cut.mp4",
                       scratch: scratch)
        let refused = try CLIRunner.run(["trim", Self.fixture("avc_slices"), "--start", "0.5", "--end", "2", "--smart", "--encoder", "openh264",
                                         "-o", scratch.file("high.mp4")])
        #expect(refused.status != 0 && refused.stderr.contains("Constrained Baseline"), "\(refused.stderr)")
        let hevc = try CLIRunner.run(["trim", Self.fixture("hevc_main10"), "--start", "0.5", "--smart", "--encoder", "openh264", "-o", scratch.file("h.mp4")])
        #expect(hevc.status == 64)
    }

    /// The default `--crf` keeps the source's own quality: the fixtures are x264/x265 encodes of
    /// ffmpeg's testsrc2, so the re-encoded pictures' PSNR against the original testsrc2 pictures
    /// is within 1 dB of the same pictures' PSNR in the source (both averaged over the re-encoded
    /// pictures, the ones whose MD5 differs from the source's).
    @Test(arguments: ["avc_closed_bpyramid", "hevc_open_gop", "avc_high10"])
    func defaultCRFKeepsSourceQuality(fixture: String) throws {
        let scratch = try Scratch()
        let source = Self.fixture(fixture)
        let (start, stop) = (SmartTrimTests.time(5), SmartTrimTests.time(64))
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", source, "--start", start, "--end", stop, "--smart", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let format = fixture.hasSuffix("10") ? "yuv420p10le" : "yuv420p"
        func againstOriginal(_ path: String, cut: Bool) throws -> [Double] {
            let log = scratch.file("psnr-\(UUID().uuidString).log")
            let graph = "[0:v]\(cut ? "" : "trim=start=\(start):end=\(stop),")setpts=PTS-STARTPTS[a];[1:v]format=\(format),trim=start=\(start):end=\(stop),setpts=PTS-STARTPTS[o];[a][o]psnr=stats_file=\(log)"
            let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=3",
                                                "-filter_complex", graph, "-f", "null", "-"])
            #expect(result.status == 0, "ffmpeg psnr: \(result.stderr)")
            return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.flatMap { Double($0.dropFirst("psnr_avg:".count)) }
            }
        }
        let ours = try againstOriginal(output, cut: true)
        let theirs = try againstOriginal(source, cut: false)
        let reencoded = zip(try SmartTrimTests.md5s(output), try SmartTrimTests.md5s(source, filter: "trim=start=\(start):end=\(stop)"))
            .enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(ours.count == 59 && theirs.count == 59)
        #expect(reencoded.count >= 10, "\(reencoded.count) pictures re-encoded")
        guard ours.count == theirs.count, !reencoded.isEmpty else { return }
        let mine = reencoded.map { ours[$0] }.reduce(0, +) / Double(reencoded.count)
        let own = reencoded.map { theirs[$0] }.reduce(0, +) / Double(reencoded.count)
        #expect(own - mine <= 1, "\(fixture): re-encoded \(mine) dB against testsrc2, the source \(own) dB")
    }

    /// Through a pipe: MP4 is cut (it is spooled and read through its sample table); an
    /// elementary stream, which a smart cut reads twice, is refused with exit status 64.
    @Test func standardInput() throws {
        let scratch = try Scratch()
        let mp4 = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("avc_closed_bpyramid")))
        let piped = try CLIRunner.run(["trim", "-", "--start", "0.52", "--end", "2.28", "--smart", "-o", scratch.file("cut.mp4")], stdin: mp4)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try SmartTrimTests.md5s(scratch.file("cut.mp4"), strict: true).count == 44)
        let annexB = try Data(contentsOf: URL(fileURLWithPath: try Self.remux("avc_closed_bpyramid", to: "h264", scratch: scratch)))
        let refused = try CLIRunner.run(["trim", "-", "--start", "0.5", "--smart", "-o", scratch.file("cut2.mp4")], stdin: annexB)
        #expect(refused.status == 64 && refused.stderr.contains("standard input"), "\(refused.stderr)")
    }
}
