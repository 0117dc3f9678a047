import Foundation
import Testing

/// Issue 41, item 9: `concat` of nalu's own cuts of open-GOP HEVC, the second piece starting
/// with a CRA. The join rewrites that CRA to BLA_W_LP and drops its RASL pictures
/// (``LeadingPictureFilter``); the rewritten slices kept no input offset, so the muxer found no
/// source time for them and the join failed (exit 65, "sample time: missing").
@Suite struct ConcatOpenGOPCutTests {
    @Test func piecesCutAtACRAJoinBackToTheSource() throws {
        let scratch = try Scratch()
        // x265's open-GOP stream in an MP4 with composition offsets from the picture order (the
        // fixture's own MP4, muxed by ffmpeg from the raw stream, has none).
        let source = scratch.file("source.mp4")
        let made = try CLIRunner.run(["convert", CLIRunner.fixture("hevc_open_gop.h265"), "-o", source])
        #expect(made.status == 0, "\(made.stderr)")
        let first = scratch.file("a.mp4"), second = scratch.file("b.mp4"), joined = scratch.file("ab.mp4")
        // The CRA at 0.4 s (pts 6144 at 15360 Hz) starts the second piece.
        for (path, range) in [(first, ["--start", "0", "--end", "0.4"]), (second, ["--start", "0.4", "--end", "1"])] {
            let cut = try CLIRunner.run(["trim", source] + range + ["-o", path])
            #expect(cut.status == 0, "\(cut.stderr)")
        }
        let keyframes = try CLIRunner.run(["keyframes", second])
        #expect(keyframes.stdout.split(separator: "\n").dropFirst().first?.contains("cra") == true, "\(keyframes.stdout)")
        let run = try CLIRunner.run(["concat", first, second, "-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        // Every picture the source shows, once, in order, at the source's times.
        let shown = try TimingTests.shown(source)
        let result = try TimingTests.pictureOffsets(source: source, output: joined)
        #expect(result.count == shown.count && result.unknown == 0, "\(result)")
        #expect(result.offsets.count == 1 && abs(result.offsets[0]) < 0.001, "\(result.offsets)")
        #expect(try TimingTests.shown(joined).map(\.md5) == shown.map(\.md5))
    }
}
