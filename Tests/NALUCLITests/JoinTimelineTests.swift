import Foundation
import Testing

/// Joins every peer plays picture for picture (issue 41, items 5 and 8), on
/// `realworld/avc_2997.mov` (Scripts/make-join-fixtures.sh: H.264 with B-frames at 30000/1001
/// fps and AAC in a MOV, every picture different) and the other real-world clips. Measured by
/// content: ffmpeg's framemd5 (`-xerror`, nothing on stderr), GStreamer's `playbin` picture by
/// picture (``GStreamerPictures``), PSNR against the source's pictures cut and joined by ffmpeg's
/// `trim`/`concat` filters, and A/V by content (Scripts/avsync.py).
@Suite struct JoinTimelineTests {
    static let source = TimingTests.realWorld("avc_2997.mov")

    /// The video edits `nalu info` lists for `path`.
    static func videoEdits(_ path: String) throws -> [String] {
        let info = try CLIRunner.run(["info", path])
        #expect(info.status == 0, "\(info.stderr)")
        return info.stdout.split(separator: "\n").filter { $0.hasPrefix("edit:") }.map(String.init)
    }

    /// PSNR (dB) of each picture of `output` against `source`'s frame ranges `[first, end)` in
    /// presentation order, cut and joined by ffmpeg (``CutListTests/reference(_:input:)``).
    static func psnrs(_ output: String, source: String, ranges: [(Int, Int)], scratch: Scratch) throws -> [Double] {
        let log = scratch.file("psnr.log")
        let graph = CutListTests.reference(ranges, input: 1) + ";[0:v]settb=1/25,setpts=N[o];[o][r]psnr=stats_file=\(log)"
        let run = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-i", source, "-filter_complex", graph, "-f", "null", "-"])
        #expect(run.status == 0, "ffmpeg psnr: \(run.stderr)")
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? .infinity : Double(value)
        }
    }

    /// Item 5: two ranges of a 29.97 fps MOV with audio. The join's movie timescale was the
    /// audio's (48 kHz), in which a picture of 1001/30000 s is 1601.6 ticks: the first piece's
    /// edit was rounded up, so it no longer continued the second's and the join had two edits;
    /// ffmpeg then decoded 77 of 87 pictures with errors, some repeated (with `--no-audio`, a
    /// 30000 movie timescale, all 87 were right). Now: one edit; the same 87 pictures with and
    /// without audio, each the source's picture of its place, in ffmpeg and GStreamer; A/V in sync.
    @Test func keepWithAudioOn2997MOV() throws {
        let scratch = try Scratch()
        // Frames [15, 51) and [66, 117) at 30000/1001 fps.
        let keep = "0.5-1.7,2.2-3.9", ranges = [(15, 51), (66, 117)]
        let withAudio = scratch.file("keep.mov"), withoutAudio = scratch.file("keep-na.mov")
        let run = try CLIRunner.run(["trim", Self.source, "--keep", keep, "-o", withAudio])
        #expect(run.status == 0, "\(run.stderr)")
        let silent = try CLIRunner.run(["trim", Self.source, "--keep", keep, "--no-audio", "-o", withoutAudio])
        #expect(silent.status == 0, "\(silent.stderr)")
        let pictures = try SmartTrimTests.md5s(withAudio, strict: true)
        #expect(pictures.count == 87)
        #expect(pictures == (try SmartTrimTests.md5s(withoutAudio, strict: true)))
        #expect(try Self.videoEdits(withAudio).count == 1)
        let psnr = try Self.psnrs(withAudio, source: Self.source, ranges: ranges, scratch: scratch)
        #expect(psnr.count == 87 && psnr.allSatisfy { $0 >= 40 }, "PSNR \(psnr.min() ?? 0) dB over \(psnr.count)")
        #expect(try GStreamerPictures.shown(withAudio).map(\.md5) == pictures)
        // A/V: in the first piece, and in the second (after the join at 1.2 s).
        #expect(abs(try AudioPathsTests.shift(Self.source, withAudio, at: 0.6)) <= 5)
        #expect(abs(try AudioPathsTests.shift(Self.source, withAudio, at: 2.0)) <= 25)
    }

    /// Item 8: `concat --smart` of two files of other frame rates (29.97 fps MOV, 30 fps MP4),
    /// each with AAC: one edit, every picture once, in order, the same in ffmpeg and GStreamer's
    /// playbin (qtdemux honours one edit), each piece the source's pictures, A/V in each piece.
    @Test func smartJoinOfTwoFilesPlaysInGStreamer() throws {
        let scratch = try Scratch()
        let phone = TimingTests.realWorld("phone.mp4")
        let output = scratch.file("joined.mp4")
        // avc_2997.mov frames [15, 51) (1.2 s), phone.mp4 frames [60, 105) (1.5 s).
        let run = try CLIRunner.run(["concat", "--smart", "\(Self.source)@0.5-1.7", "\(phone)@2.0-3.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let pictures = try SmartTrimTests.md5s(output, strict: true)
        #expect(pictures.count == 36 + 45)
        #expect(Set(pictures).count == pictures.count, "a picture shown twice")
        #expect(try Self.videoEdits(output).count == 1)
        let gstreamer = try GStreamerPictures.shown(output)
        #expect(gstreamer.map(\.md5) == pictures, "GStreamer shows \(gstreamer.count) of \(pictures.count)")
        // The second piece's pictures are phone.mp4's frames 60…104, copied or re-encoded.
        let tail = scratch.file("tail.mkv")
        let cut = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-vf", "trim=start_frame=36", "-an", "-fps_mode", "passthrough",
                                          "-c:v", "ffv1", tail])
        #expect(cut.status == 0, "\(cut.stderr)")
        let psnr = try Self.psnrs(tail, source: phone, ranges: [(60, 105)], scratch: scratch)
        #expect(psnr.count == 45 && psnr.allSatisfy { $0 >= 40 }, "PSNR \(psnr.min() ?? 0) dB over \(psnr.count)")
        #expect(abs(try AudioPathsTests.shift(Self.source, output, at: 0.6)) <= 5)
        #expect(abs(try AudioPathsTests.shift(phone, output, at: 1.8)) <= 25)
    }

    /// Item 8, two rates in one join: `concat --smart` of a 29.97 fps and a 59.94 fps MOV
    /// (`avc_5994.mov`), the case GStreamer played 69 of 182 pictures of. Now one edit on a
    /// timescale both rates divide; 135 pictures in ffmpeg and GStreamer, the same ones, none
    /// twice, each at its time (the first piece's at 1001/30000 s steps from 0, the second's at
    /// 1001/60000 s steps from 1.5015 s), each the source's picture of its place, A/V in both pieces.
    @Test func twoRatesInOneSmartJoin() throws {
        let scratch = try Scratch()
        let fast = TimingTests.realWorld("avc_5994.mov")
        let output = scratch.file("joined.mp4")
        // avc_2997.mov frames [15, 60), avc_5994.mov frames [60, 150).
        let run = try CLIRunner.run(["concat", "--smart", "\(Self.source)@0.5-2.0", "\(fast)@1.0-2.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let shown = try TimingTests.shown(output)
        #expect(shown.count == 45 + 90)
        #expect(Set(shown.map(\.md5)).count == shown.count, "a picture shown twice")
        #expect(try Self.videoEdits(output).count == 1)
        let gstreamer = try GStreamerPictures.shown(output)
        #expect(gstreamer.map(\.md5) == shown.map(\.md5), "GStreamer shows \(gstreamer.count) of \(shown.count)")
        // Times from ffprobe (framemd5 rounds them to one time base).
        let times = try CutListTests.pictureTimes(output)
        #expect(times.count == 135)
        let off = times.enumerated().filter { index, time in
            let expected = index < 45 ? Double(index) * 1001 / 30000 : 45.0 * 1001 / 30000 + Double(index - 45) * 1001 / 60000
            return abs(time - expected) > 0.0005
        }
        #expect(off.isEmpty, "pictures off their times: \(off.prefix(4).map { ($0.offset, $0.element) })")
        for (filter, source, range) in [("trim=end_frame=45", Self.source, (15, 60)), ("trim=start_frame=45", fast, (60, 150))] {
            let piece = scratch.file("piece.mkv")
            let cut = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", output, "-vf", filter, "-an", "-fps_mode", "passthrough",
                                              "-c:v", "ffv1", piece])
            #expect(cut.status == 0, "\(cut.stderr)")
            let psnr = try Self.psnrs(piece, source: source, ranges: [range], scratch: scratch)
            #expect(psnr.count == range.1 - range.0 && psnr.allSatisfy { $0 >= 40 }, "PSNR \(psnr.min() ?? 0) dB over \(psnr.count)")
        }
        #expect(abs(try AudioPathsTests.shift(Self.source, output, at: 0.7)) <= 5)
        #expect(abs(try AudioPathsTests.shift(fast, output, at: 2.2)) <= 25)
    }
}
