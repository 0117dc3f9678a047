import Foundation
import Testing

/// Issue 41, items 1–4 and 6: every time a user types is on the presentation timeline (edit
/// lists applied, the earliest track's start as zero), as ffmpeg and players count it, and every
/// cut keeps its audio in sync. On the clips Scripts/make-realworld-fixtures.sh makes:
/// `audiolead.mp4` (the video 0.5 s after its audio: an empty edit), `cmaf.mp4` (CMAF, the video
/// at its composition offset with no edit list), `sscut44.mp4` (a 44.1 kHz `-ss 3.3 -c copy`
/// cut). Checked by content against ffmpeg: the first picture of a cut is the one ffmpeg's
/// `-ss` shows (framemd5), A/V sync by Scripts/avsync.py within 5 ms (25 ms across joins).
@Suite struct PresentationTimelineTests {
    static func clip(_ name: String) -> String { AudioPathsTests.clip(name) }

    /// MD5 of the first picture `ffmpeg -ss start -i input` shows (a decoded seek on the input's
    /// presentation timeline).
    static func ffmpegFirstPicture(_ input: String, start: String) throws -> String {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-ss", start, "-i", input, "-map", "0:v:0", "-frames:v", "1",
                                            "-autoscale", "0", "-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n").last { !$0.hasPrefix("#") }
        return try #require(line?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces))
    }

    /// Where the picture ffmpeg's `-ss start` shows first presents in `input` (seconds, on the
    /// timeline ffmpeg shows `input` on).
    static func ffmpegSeekTime(_ input: String, start: String) throws -> Double {
        let md5 = try ffmpegFirstPicture(input, start: start)
        return try #require(try TimingTests.shown(input).first { $0.md5 == md5 }?.time)
    }

    /// `output` starts with the picture ffmpeg's `-ss start` shows and holds `pictures`: the
    /// pictures copied from `source` (a smart cut re-encodes the first ones) present at one
    /// shift per piece, the first piece's putting ffmpeg's first picture where `output`'s first shows.
    static func expectStart(_ output: String, source: String, at start: String, pictures: Int, pieces: Int = 1) throws {
        let expected = try ffmpegSeekTime(source, start: start)
        let shown = try TimingTests.shown(output)
        #expect(shown.count == pictures)
        let first = try #require(shown.map(\.time).min())
        let result = try TimingTests.pictureOffsets(source: source, output: output)
        // One shift per piece; the first piece's is the largest (later pieces come from later on).
        #expect(result.offsets.count == pieces && abs((result.offsets.max() ?? 0) - (first - expected)) < 0.0015,
                "copied pictures moved by \(result.offsets) s; ffmpeg's first picture is at \(expected) s, the output's at \(first) s")
        if result.unknown == 0 { #expect(shown.min { $0.time < $1.time }?.md5 == (try ffmpegFirstPicture(source, start: start))) }
    }

    /// Item 1 and 3: `trim --start 1.3` (plain, `--smart`, MP4 and MPEG-TS out) of a file whose
    /// audio starts 0.5 s before its video, and of a CMAF file whose video starts 2 pictures in,
    /// begins with the picture ffmpeg's `-ss 1.3` shows, with the audio in sync.
    @Test(arguments: [["audiolead.mp4"], ["audiolead.mp4", "--smart"], ["cmaf.mp4"], ["cmaf.mp4", "--smart"],
                      ["audiolead.mp4", "--smart", "ts"]])
    func cutStartsWhereFFmpegSeeks(_ arguments: [String]) throws {
        let scratch = try Scratch()
        let input = Self.clip(arguments[0])
        let output = scratch.file(arguments.last == "ts" ? "cut.ts" : "cut.mp4")
        let options = arguments.dropFirst().filter { $0 != "ts" }
        let run = try CLIRunner.run(["trim", input, "--start", "1.3", "--end", "3.3"] + options + ["-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectStart(output, source: input, at: "1.3", pictures: 60)
        let shift = try AudioPathsTests.shift(input, output, at: 1)
        #expect(abs(shift) <= 5, "A/V \(shift) ms")
    }

    /// Item 1: a transport stream's times count from the program's start (its AAC starts 0.52 s
    /// before its video: audiolead.mp4 remuxed by ffmpeg, priming included), not from its first
    /// video PTS: `trim --start 1.3` starts with the picture ffmpeg's `-ss 1.3` shows of the MP4
    /// (the same pictures; ffmpeg's own seek in a transport stream lands on a keyframe), in sync.
    @Test func transportStreamTimesCountFromTheProgramStart() throws {
        let scratch = try Scratch()
        let source = Self.clip("audiolead.mp4"), input = scratch.file("audiolead.ts"), output = scratch.file("cut.mp4")
        let remux = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", source, "-c", "copy", "-f", "mpegts", input])
        #expect(remux.status == 0, "\(remux.stderr)")
        let run = try CLIRunner.run(["trim", input, "--start", "1.3", "--end", "3.3", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let first = try #require(try TimingTests.shown(output).min { $0.time < $1.time })
        #expect(first.md5 == (try Self.ffmpegFirstPicture(source, start: "1.3")))
        let shift = try AudioPathsTests.shift(input, output, at: 1)
        #expect(abs(shift) <= 5, "A/V \(shift) ms")
    }

    /// Item 3: audio times are taken from each sample, gaps included: a transport stream whose
    /// AAC has a 0.5 s gap (ffmpeg's `aselect`, the frames keeping their PTS) converted to MP4
    /// keeps the audio after the gap in sync (each frame lasts until the next one's PTS; counting
    /// 1024 samples a frame put it 512 ms early).
    @Test func transportStreamAudioGapKeepsItsTime() throws {
        let scratch = try Scratch()
        let input = scratch.file("gap.ts"), output = scratch.file("out.mp4")
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", CLIRunner.fixture("realworld/phone.mp4"), "-t", "6", "-c:v", "copy",
                                          "-af", "aselect='not(between(t,2,2.5))'", "-c:a", "aac", "-b:a", "64k", "-f", "mpegts", input])
        #expect(made.status == 0, "\(made.stderr)")
        let run = try CLIRunner.run(["convert", input, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        for at in [1.0, 4.0] {
            let shift = try AudioPathsTests.shift(input, output, at: at)
            #expect(abs(shift) <= 5, "at \(at) s: A/V \(shift) ms")
        }
    }

    /// Item 1: `--keep` ranges are on the presentation timeline too: the first piece starts with
    /// ffmpeg's `-ss` picture, each piece in sync.
    @Test(arguments: ["audiolead.mp4", "cmaf.mp4"])
    func keepRangesAreOnThePresentationTimeline(_ name: String) throws {
        let scratch = try Scratch()
        let input = Self.clip(name), output = scratch.file("kept.mp4")
        let run = try CLIRunner.run(["trim", input, "--keep", "1.3-2.8,3.1-4.9", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        // 1.3–2.8 and 3.1–4.9 s: 45 + 54 pictures, each piece holding a keyframe (copied).
        try Self.expectStart(output, source: input, at: "1.3", pictures: 99, pieces: 2)
        for at in [0.5, 1.7] {
            let shift = try AudioPathsTests.shift(input, output, at: at)
            #expect(abs(shift) <= 5, "at \(at) s: A/V \(shift) ms")
        }
    }

    /// Item 4: a smart cut whose start falls between two pictures (1.31 s: the first picture
    /// presents at 1.333 s) starts its audio with that picture, not 23 ms before it; so does
    /// each piece of a `--keep` whose starts fall between pictures.
    @Test func smartCutAudioStartsWithTheFirstPicture() throws {
        let scratch = try Scratch()
        let input = CLIRunner.fixture("realworld/phone.mp4")
        let cut = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "1.31", "--end", "3.3", "--smart", "-o", cut])
        #expect(run.status == 0, "\(run.stderr)")
        let shift = try AudioPathsTests.shift(input, cut, at: 1)
        #expect(abs(shift) <= 5, "A/V \(shift) ms")
        let kept = scratch.file("kept.mp4")
        let keep = try CLIRunner.run(["trim", input, "--keep", "1.31-2.41,3.02-4.27,5.11-6.5", "-o", kept])
        #expect(keep.status == 0, "\(keep.stderr)")
        // The pieces present [1.333, 2.433), [3.033, 4.3), [5.133, 6.5): 1.1, 1.267, 1.367 s.
        for at in [0.5, 1.6, 3.0] {
            let measured = try AudioPathsTests.shift(input, kept, at: at)
            #expect(abs(measured) <= 5, "at \(at) s: A/V \(measured) ms")
        }
    }

    /// Scripts/avsync.py's measure at `at` s of `output`: the A/V shift (ms) and where the
    /// picture shown there presents in `source` (matched by MD5 or, re-encoded, by thumbnail).
    static func measure(_ source: String, _ output: String, at: Double) throws -> (shift: Double, sourceTime: Double) {
        let result = try runTool("python3", [AudioPathsTests.avsync, source, output, "--at", "\(at)", "--json"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (try #require(json["shift_ms"] as? Double), try #require(json["picture_source_time"] as? Double))
    }

    /// Item 2 and 3: `encode --start 1.3 --end 3.3` cuts video and audio on the presentation
    /// timeline: its first picture is the source's at 1.3 s (what ffmpeg's `-ss 1.3` shows:
    /// 1.30 s on these 30 fps clips), the audio in sync, on the audio-leads file, the CMAF file
    /// and a fragmented one.
    @Test(arguments: ["audiolead.mp4", "cmaf.mp4", "frag.mp4"])
    func encodeRangeIsOnThePresentationTimeline(_ name: String) throws {
        let scratch = try Scratch()
        let input = Self.clip(name), output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["encode", input, "--start", "1.3", "--end", "3.3", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let first = try Self.measure(input, output, at: 0)
        #expect(abs(first.sourceTime - 1.3) < 0.0015, "the first picture is the source's at \(first.sourceTime) s")
        #expect(abs(first.shift) <= 5, "A/V \(first.shift) ms")
        let later = try AudioPathsTests.shift(input, output, at: 1)
        #expect(abs(later) <= 5, "A/V \(later) ms")
    }

    /// Item 3: `encode` of a whole CMAF file whose video starts at its composition offset (no
    /// edit list) keeps its first picture there, so the audio stays in sync.
    @Test func encodeOfCMAFKeepsTheVideoStart() throws {
        let scratch = try Scratch()
        let input = Self.clip("cmaf.mp4"), output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["encode", input, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let shift = try AudioPathsTests.shift(input, output, at: 1)
        #expect(abs(shift) <= 5, "A/V \(shift) ms")
    }

    /// Item 6: an `ffmpeg -ss 3.3 -c copy` cut of 25 fps video and 44.1 kHz AAC (the video edit
    /// starts 20 ms into a picture, the audio's inside an AAC frame) converted or encoded to
    /// MPEG-TS keeps its audio in sync as ffmpeg shows the source (its first picture after the
    /// edit's start presents at 0, with the audio's `media_time`): `ffmpeg -c copy -f mpegts`
    /// measures 0.00 ms. A trim of it starts with ffmpeg's `-ss` picture, in sync.
    @Test func editInsideAPictureIntoTransportStream() throws {
        let scratch = try Scratch()
        let input = Self.clip("sscut44.mp4")
        for command in ["convert", "encode"] {
            let output = scratch.file("\(command).ts")
            let run = try CLIRunner.run([command, input, "-o", output])
            #expect(run.status == 0, "\(run.stderr)")
            let shift = try AudioPathsTests.shift(input, output, at: 2)
            #expect(abs(shift) <= 5, "\(command): A/V \(shift) ms")
        }
        let cut = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "1", "--end", "3", "-o", cut])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectStart(cut, source: input, at: "1", pictures: 50)
        let shift = try AudioPathsTests.shift(input, cut, at: 1)
        #expect(abs(shift) <= 5, "trim: A/V \(shift) ms")
    }
}
