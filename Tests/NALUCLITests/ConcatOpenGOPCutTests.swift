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

    /// A piece that starts with a CRA and keeps its RASL pictures hidden by its edit
    /// (`ffmpeg -ss 0.3333 -c copy`: they present before the CRA) after a smart-cut piece that
    /// hides nothing: the join drops those RASL pictures (``LeadingPictureFilter``), so they do
    /// not count as hidden (``ConcatPiece``) and one edit shows both pieces (issue 41, item 8):
    /// GStreamer's playbin shows all 30 pictures as ffmpeg does (with two edits: 20 of 30);
    /// every picture but the smart cut's re-encoded one is the source's.
    @Test func aPieceStartingAtItsCRAContinuesTheEdit() throws {
        let scratch = try Scratch()
        let source = scratch.file("source.mp4")
        let made = try CLIRunner.run(["convert", CLIRunner.fixture("hevc_open_gop.h265"), "-o", source])
        #expect(made.status == 0, "\(made.stderr)")
        let first = scratch.file("a.mp4"), second = scratch.file("b.mp4"), joined = scratch.file("ab.mp4")
        // The CRA presents at 10/30 s.
        let head = try CLIRunner.run(["trim", source, "--smart", "--end", "0.33333", "-o", first])
        #expect(head.status == 0, "\(head.stderr)")
        let tail = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-ss", "0.3333", "-i", source, "-c", "copy", second])
        #expect(tail.status == 0, "\(tail.stderr)")
        let keyframes = try CLIRunner.run(["keyframes", second])
        #expect(keyframes.stdout.split(separator: "\n").dropFirst().first?.contains("cra") == true, "\(keyframes.stdout)")
        let run = try CLIRunner.run(["concat", first, second, "-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JoinTimelineTests.videoEdits(joined).count == 1)
        let shown = try TimingTests.shown(source).map(\.md5)
        let ffmpeg = try TimingTests.shown(joined).map(\.md5)
        #expect(ffmpeg.count == 30)
        #expect(zip(ffmpeg, shown).filter { $0 != $1 }.count <= 1, "pictures other than the source's")
        #expect(try GStreamerPictures.shown(joined).map(\.md5) == ffmpeg)
    }
}
