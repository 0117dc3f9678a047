import Foundation
import Testing

/// Cut lists and exact joins (issue 34 items 3 and 4): `nalu trim IN --keep A-B,C-D` and
/// `nalu concat --smart IN@A-B IN2@C-D`, every boundary mid-GOP. Checked with ffmpeg against the
/// source decoded and cut by `trim` and joined by `concat` filters (the reference): the output shows exactly the pictures of
/// the ranges, the copied ones with the source's decoded MD5s, the re-encoded ones ≥ 40 dB PSNR;
/// one continuous timeline (the i-th picture at i frames); `-xerror` clean; the same with
/// `-ignore_editlist 1`; the audio as long as the video within one AAC frame, and in sync by
/// content (Scripts/avsync.py) in every piece.
@Suite struct CutListTests {
    static let rate = 25.0
    static func time(_ frame: Int) -> String { String(format: "%.2f", Double(frame) / rate) }

    /// A filter graph from input `input`'s video to `[r]`: frame ranges `[first, end)`
    /// (presentation order) cut by `trim` and joined by `concat`, one picture per tick of 1/25 s from 0.
    static func reference(_ ranges: [(Int, Int)], input: Int = 0) -> String {
        let labels = ranges.indices.map { "s\($0)" }
        let split = "[\(input):v]split=\(ranges.count)" + labels.map { "[\($0)]" }.joined() + ";"
        let cuts = zip(ranges, labels).map { range, label in
            "[\(label)]trim=start_frame=\(range.0):end_frame=\(range.1),setpts=PTS-STARTPTS[\(label)t];"
        }.joined()
        return split + cuts + labels.map { "[\($0)t]" }.joined() + "concat=n=\(ranges.count),settb=1/25,setpts=N[r]"
    }

    /// MD5s of the decoded reference pictures.
    static func referenceMD5s(_ source: String, _ ranges: [(Int, Int)]) throws -> [String] {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", source, "-filter_complex", reference(ranges),
                                            "-map", "[r]", "-f", "framemd5", "-"])
        #expect(result.status == 0, "ffmpeg reference: \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Each decoded picture's presentation time (ffprobe, seconds).
    static func pictureTimes(_ path: String, ignoreEditList: Bool = false) throws -> [Double] {
        let result = try runTool("ffprobe", ["-v", "error"] + (ignoreEditList ? ["-ignore_editlist", "1"] : [])
                                 + ["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
    }

    static func seconds(_ path: String, stream: String) throws -> Double {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "\(stream):0", "-show_entries", "stream=duration", "-of", "csv=p=0", path])
        // A transport stream lists the stream under its program too: the first value.
        return result.stdout.split(separator: "\n").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// Checks `output` against `source`'s frame ranges (sources at 25 fps: the smart fixtures).
    static func check(_ output: String, source: String, ranges: [(Int, Int)], label: String, scratch: Scratch) throws {
        let expected = try referenceMD5s(source, ranges)
        let pictures = ranges.reduce(0) { $0 + $1.1 - $1.0 }
        #expect(expected.count == pictures, "\(label): reference has \(expected.count)")
        let got = try SmartTrimTests.md5s(output, strict: true)
        #expect(got.count == pictures, "\(label): \(got.count) pictures, expected \(pictures)")
        let isMP4 = output.hasSuffix(".mp4")
        if isMP4 {
            #expect(try SmartTrimTests.md5s(output, ignoreEditList: true) == got, "\(label): differs with -ignore_editlist 1")
            // One continuous timeline: the i-th picture at i/25 s, with and without the edit list.
            for ignore in [false, true] {
                let times = try pictureTimes(output, ignoreEditList: ignore)
                #expect(times.count == pictures)
                let off = times.enumerated().filter { abs($0.element - Double($0.offset) / rate) > 0.0005 }
                #expect(off.isEmpty, "\(label): pictures off the timeline (ignore_editlist \(ignore)): \(off.prefix(4))")
            }
        }
        // Copied pictures are the source's; every picture ≥ 40 dB.
        let same = zip(got, expected).filter { $0 == $1 }.count
        #expect(same >= pictures / 3, "\(label): only \(same) of \(pictures) pictures identical to the source's")
        let log = scratch.file("psnr-\(label).log")
        let graph = reference(ranges, input: 1) + ";[0:v]settb=1/25,setpts=N[o];[o][r]psnr=stats_file=\(log)"
        let psnr = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-i", source, "-filter_complex", graph, "-f", "null", "-"])
        #expect(psnr.status == 0, "\(label): ffmpeg psnr: \(psnr.stderr)")
        let values = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? .infinity : Double(value)
        }
        #expect(values.count == pictures, "\(label): \(values.count) PSNR values")
        #expect(values.allSatisfy { $0 >= 40 }, "\(label): PSNR \(values.min() ?? 0) dB")
    }

    /// Three ranges of the H.264 B-pyramid clip with AAC, every boundary mid-GOP (GOPs of 12):
    /// frames 5–16, 30–42, 50–69.
    @Test func keepH264WithAudio() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("smart/avc_closed_bpyramid.mp4")
        let ranges = [(5, 17), (30, 43), (50, 70)]
        let keep = ranges.map { "\(Self.time($0.0))-\(Self.time($0.1))" }.joined(separator: ",")
        let output = scratch.file("kept.mp4")
        let run = try CLIRunner.run(["trim", source, "--keep", keep, "--verbose", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.check(output, source: source, ranges: ranges, label: "h264", scratch: scratch)
        // The audio: as long as the 45 pictures, within one AAC frame (1024 samples at 48 kHz).
        let audio = try Self.seconds(output, stream: "a")
        #expect(abs(audio - 45 / Self.rate) <= 1024.0 / 48_000, "audio lasts \(audio) s")
        // GStreamer plays it.
        let gst = try runTool("gst-launch-1.0", ["-q", "filesrc", "location=\(output)", "!", "decodebin", "!", "fakesink"])
        #expect(gst.status == 0, "GStreamer: \(gst.stderr)")
        // Annex-B: the same pictures.
        let annexB = scratch.file("kept.264")
        let elementary = try CLIRunner.run(["trim", source, "--keep", keep, "-o", annexB, "--no-audio"])
        #expect(elementary.status == 0, "\(elementary.stderr)")
        try Self.check(annexB, source: source, ranges: ranges, label: "h264-annexb", scratch: scratch)
        // MPEG-TS: the same pictures, the AAC as ADTS.
        let ts = scratch.file("kept.ts")
        let transport = try CLIRunner.run(["trim", source, "--keep", keep, "-o", ts])
        #expect(transport.status == 0, "\(transport.stderr)")
        try Self.check(ts, source: source, ranges: ranges, label: "h264-ts", scratch: scratch)
        #expect(abs(try Self.seconds(ts, stream: "a") - 45 / Self.rate) <= 1024.0 / 48_000)
    }

    /// HEVC open GOP (CRA copy points rewritten as BLA), `[HH:]MM:SS` times, an open last range.
    @Test func keepHEVCOpenGOP() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("smart/hevc_open_gop.mp4")
        let output = scratch.file("kept.mp4")
        // Frames 3–20, 27–40, 61–74 (to the end).
        let run = try CLIRunner.run(["trim", source, "--keep", "00:00.12-0:00.84,1.08-1.64,0:02.44-", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.check(output, source: source, ranges: [(3, 21), (27, 41), (61, 75)], label: "hevc", scratch: scratch)
        let de265 = try CLIRunner.run(["decode", output, "--decoder", "de265", "-o", scratch.file("out.yuv")])
        #expect(de265.status == 0 && de265.stderr.isEmpty, "libde265: \(de265.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: scratch.file("out.yuv"))[.size] as? Int ?? 0
        #expect(size == (18 + 14 + 14) * 160 * 90 * 3 / 2)
    }

    /// A real recording (30 fps, AAC, an IDR every 2 s), five ranges: the audio of each piece is
    /// the audio of its range, by content (Scripts/avsync.py finds the picture shown 0.2 s into a
    /// piece in the source, copied or re-encoded, and the audio around it), and the joined audio
    /// lasts as long as the video within one AAC frame: no drift over the joins.
    @Test func keepKeepsEachPieceInSync() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("realworld/phone.mp4")
        let output = scratch.file("kept.mp4")
        // Frames [45, 72), [90, 105), [126, 147), [183, 198), [210, 255).
        let ranges: [(start: Double, end: Double)] = [(1.5, 2.4), (3.0, 3.5), (4.2, 4.9), (6.1, 6.6), (7.0, 8.5)]
        let keep = ranges.map { "\($0.start)-\($0.end)" }.joined(separator: ",")
        let run = try CLIRunner.run(["trim", source, "--keep", keep, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let pictures = try SmartTrimTests.md5s(output, strict: true)
        #expect(pictures.count == 123)
        let audio = try Self.seconds(output, stream: "a")
        #expect(abs(audio - 123.0 / 30) <= 1024.0 / 48_000, "audio lasts \(audio) s")
        // Piece k starts in the output where the ones before end.
        var starts = [0.0]
        for range in ranges { starts.append(starts[starts.count - 1] + range.end - range.start) }
        // Measured 0.2 s into the first, third and fifth pieces (each call decodes both files).
        for position in [0, 2, 4] {
            let measured = try AudioPathsTests.shift(source, output, at: starts[position] + 0.2)
            #expect(abs(measured) <= 25, "piece \(position + 1): \(measured) ms")
        }
    }

    /// `concat --smart`: two inputs, each with its own range (one open at the start, one at the
    /// end), and a bare input (whole); a path holding '@' is a path.
    @Test func concatSmart() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("smart/avc_closed_bpyramid.mp4")
        let copy = scratch.file("clip@2.mp4")
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        let output = scratch.file("joined.mp4")
        // Frames 0–18 of the source, 41–74 of the copy.
        let run = try CLIRunner.run(["concat", "--smart", "\(source)@-0.76", "\(copy)@1.64-", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        // The two inputs are the same clip: the reference is two ranges of it.
        try Self.check(output, source: source, ranges: [(0, 19), (41, 75)], label: "concat", scratch: scratch)
        let audio = try Self.seconds(output, stream: "a")
        #expect(abs(audio - 53 / Self.rate) <= 1024.0 / 48_000, "audio lasts \(audio) s")
        // A bare input is the whole of it: the file named with '@' exists, so it is a path.
        let whole = scratch.file("whole.mp4")
        let bare = try CLIRunner.run(["concat", "--smart", copy, "\(source)@0.4-1", "-o", whole])
        #expect(bare.status == 0, "\(bare.stderr)")
        try Self.check(whole, source: source, ranges: [(0, 75), (10, 25)], label: "bare", scratch: scratch)
    }

    /// Bad ranges are usage errors (64) naming the range.
    @Test(arguments: [
        ("1-2,0.5-0.8", "0.5-0.8"),     // not in order
        ("0.2-1,0.8-1.5", "0.8-1.5"),   // overlapping
        ("1-1", "1-1"),                 // empty
        ("2-1", "2-1"),                 // ends before it starts
        ("0.5-,1-2", "0.5-"),           // an open end before another range
        ("1-x", "1-x"),                 // no time
        ("5-8", "5-8"),                 // past the end: no picture
    ])
    func badRanges(keep: String, named: String) throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(["trim", CLIRunner.fixture("smart/avc_slices.mp4"), "--keep", keep, "-o", scratch.file("out.mp4")])
        #expect(run.status == 64, "\(keep): \(run.stderr)")
        #expect(run.stderr.contains(named), "\(keep): \(run.stderr)")
    }

    @Test func badConcatRanges() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("smart/avc_slices.mp4")
        let empty = try CLIRunner.run(["concat", "--smart", "\(source)@2-1", source, "-o", scratch.file("out.mp4")])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(empty.stderr.contains("@2-1"))
        let past = try CLIRunner.run(["concat", "--smart", source, "\(source)@9-", "-o", scratch.file("out.mp4")])
        #expect(past.status == 64, "\(past.stderr)")
        #expect(past.stderr.contains("9-"))
        // A range without --smart.
        let plain = try CLIRunner.run(["concat", source, "\(source)@1-2", "-o", scratch.file("out.mp4")])
        #expect(plain.status == 64, "\(plain.stderr)")
        // --keep with --start.
        let both = try CLIRunner.run(["trim", source, "--keep", "1-2", "--start", "1", "-o", scratch.file("out.mp4")])
        #expect(both.status == 64)
    }
}
