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
}
