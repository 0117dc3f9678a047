import Foundation
import Testing

/// Issue 41, item 7: `concat` of fragmented MP4s as ffmpeg writes them with `empty_moov` and no
/// edit list (`Tests/Fixtures/realworld/frag.mp4`): the first AAC sample lasts 3200 ticks
/// (66.7 ms: the time before the video's first picture), the others 1024. The join wrote every
/// sample as long as the longest, so the audio ran three times too long and players dropped
/// most of it.
@Suite struct ConcatFragmentedTests {
    @Test func everyAudioSampleKeepsItsDuration() throws {
        let scratch = try Scratch()
        let source = TimingTests.realWorld("frag.mp4")
        let output = scratch.file("joined.mp4")
        let run = try CLIRunner.run(["concat", source, source, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        // Every AAC packet of both inputs, byte for byte, in order.
        let packets = try AudioPathsTests.audioPackets(source)
        #expect(packets.count == 470)
        #expect(try AudioPathsTests.audioPackets(output) == packets + packets)
        // Whole frames inside the join: no sample longer than the inputs' own.
        let durations = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=duration",
                                                "-of", "csv=p=0", output]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(durations.count == 940)
        #expect(durations.filter { $0 == 1024 }.count >= 936, "\(Dictionary(grouping: durations, by: { $0 }).mapValues(\.count))")
        #expect(durations.allSatisfy { $0 <= 3200 })
        // About 20 s of sound, as the two inputs hold.
        #expect(abs(try AudioPathsTests.ffmpegSeconds(output) - 20.1) < 0.1)
    }

    /// The video of the join (issue 41, item 7). The input has no edit list, and its first
    /// picture presents at its composition offset (66.7 ms, nothing shown before it): the join
    /// cut each input at the sum of its decoding durations, losing its last 2 pictures (598 of
    /// 600), and the second input's pictures came 66.7 ms early against its audio. Now every
    /// picture of both, once, in order, in ffmpeg and in GStreamer's playbin; the second input
    /// starts where the first one's presentation ends (10.0667 s), its pictures at their own
    /// times after that; the audio in sync by content in both.
    @Test func everyPictureOnceInFFmpegAndGStreamer() throws {
        let scratch = try Scratch()
        let source = TimingTests.realWorld("frag.mp4")
        let output = scratch.file("joined.mp4")
        let run = try CLIRunner.run(["concat", source, source, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let pictures = try TimingTests.shown(source)
        #expect(pictures.count == 300)
        let ffmpeg = try TimingTests.shown(output)
        #expect(ffmpeg.map(\.md5) == pictures.map(\.md5) + pictures.map(\.md5), "ffmpeg shows \(ffmpeg.count) pictures")
        let gstreamer = try GStreamerPictures.shown(output)
        #expect(gstreamer.map(\.md5) == ffmpeg.map(\.md5), "GStreamer shows \(gstreamer.count) of \(ffmpeg.count)")
        // Each at its time: the source's, then the source's after the first input's end.
        let end = try #require(pictures.last).time + 1.0 / 30
        let off = ffmpeg.enumerated().filter { index, picture in
            index >= 600 || abs(picture.time - pictures[index % 300].time - (index < 300 ? 0 : end)) > 0.0005
        }
        #expect(off.isEmpty, "pictures off their times: \(off.prefix(4).map { ($0.offset, $0.element.time) })")
        // A/V by content: within 5 ms in the first input, within 25 ms after the join.
        #expect(abs(try AudioPathsTests.shift(source, output, at: 1)) <= 5)
        for at in [10.5, 15.0, 19.5] {
            let shift = try AudioPathsTests.shift(source, output, at: at)
            #expect(abs(shift) <= 25, "at \(at) s: \(shift) ms")
        }
    }

    /// `cmaf.mp4` (6 s cut by ffmpeg: its audio ends 150 ms before its last picture) then
    /// `frag.mp4`: the second input's audio followed the first's without a gap, 150.67 ms before
    /// its pictures in MP4; MPEG-TS output was timed at one frame rate (+66.67 ms in the first
    /// input, +233 ms after the join). Now silence fills the gap and the transport stream keeps
    /// the inputs' times: A/V by content within 5 ms in both inputs, in both containers; every
    /// picture once (ffmpeg, and GStreamer for MP4).
    @Test(arguments: ["joined.mp4", "joined.ts"])
    func audioWaitsForTheNextInputsPictures(name: String) throws {
        let scratch = try Scratch()
        let first = TimingTests.realWorld("cmaf.mp4"), second = TimingTests.realWorld("frag.mp4")
        let output = scratch.file(name)
        let run = try CLIRunner.run(["concat", first, second, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let pictures = try TimingTests.shown(first).map(\.md5) + TimingTests.shown(second).map(\.md5)
        let shown = try TimingTests.shown(output)
        #expect(shown.map(\.md5) == pictures, "ffmpeg shows \(shown.count) of \(pictures.count)")
        if name.hasSuffix(".mp4") {
            #expect(try GStreamerPictures.shown(output).map(\.md5) == pictures)
        }
        // Both are phone.mp4's pictures and sound: measured against it.
        let phone = TimingTests.realWorld("phone.mp4")
        for at in [3.0, 8.0, 12.0] {
            let shift = try AudioPathsTests.shift(phone, output, at: at)
            #expect(abs(shift) <= 5, "at \(at) s: \(shift) ms")
        }
    }
}
