import Foundation
import Testing

/// Nothing is lost silently: an MP4 with a second video track (`tracks/two_video.mp4`, from
/// Scripts/make-tracks-fixtures.sh) cut or joined into an output that holds one video track.
/// The second track used to be named in a `note:` with exit status 0; now the output is written
/// and the exit status is 2 naming it, unless `--no-other-tracks` leaves it out on purpose.
@Suite struct OtherVideoTrackTests {
    static let input = CLIRunner.fixture("tracks/two_video.mp4")

    static let commands: [[String]] = [
        ["trim", input, "--start", "0.5", "--end", "2"],
        ["trim", input, "--start", "0.5", "--end", "2", "--smart"],
        ["trim", input, "--keep", "0.5-1,1.5-2"],
        ["concat", input, input],
        ["concat", "--smart", input + "@0.5-2", input + "@-1"],
        ["convert", input, "--to", "mp4"],
    ]

    @Test("the second video track: exit 2 naming it; with --no-other-tracks exit 0 and a note", arguments: commands)
    func secondVideoTrack(_ command: [String]) throws {
        let scratch = try Scratch()
        let lost = try CLIRunner.run(command + ["-o", scratch.file("out.mp4")])
        #expect(lost.status == 2, "\(command): \(lost.stderr)")
        #expect(lost.stderr.contains("nalu: error:") && lost.stderr.contains("not carried") && lost.stderr.contains("--no-other-tracks"),
                "\(command): \(lost.stderr)")
        #expect(lost.stderr.contains("track 2 (vide, avc1)") || lost.stderr.contains("other tracks"), "\(command): \(lost.stderr)")
        // The output is written all the same: the video and the audio.
        let streams = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", scratch.file("out.mp4")])
        #expect(streams.stdout.split(separator: "\n").map(String.init) == ["video", "audio"], "\(command): \(streams.stdout)")

        let asked = try CLIRunner.run(command + ["--no-other-tracks", "-o", scratch.file("asked.mp4")])
        #expect(asked.status == 0, "\(command): \(asked.stderr)")
        #expect(asked.stderr.contains("not carried (--no-other-tracks)"), "\(command): \(asked.stderr)")
    }

    /// A transport stream whose AAC is in a private PES stream (stream_type 0x06, the M2TS
    /// fixture): `concat` joined the video and exited 0 without a word about it.
    @Test("concat of a TS with a data stream: exit 2 naming it; --no-other-tracks exit 0")
    func transportStreamDataStream() throws {
        let input = CLIRunner.fixture("m2ts_avc_aac.m2ts")
        let scratch = try Scratch()
        let lost = try CLIRunner.run(["concat", input, input, "-o", scratch.file("out.mp4")])
        #expect(lost.status == 2, "\(lost.stderr)")
        #expect(lost.stderr.contains("(stream_type 0x06, private PES) not carried"), "\(lost.stderr)")
        let asked = try CLIRunner.run(["concat", input, input, "--no-other-tracks", "-o", scratch.file("asked.mp4")])
        #expect(asked.status == 0, "\(asked.stderr)")
    }
}
