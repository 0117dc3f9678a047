import Foundation
import Testing

/// Issue 39 item 3: `nalu package` names a transport stream's programs it did not read, from
/// the packager's summary; the CLI used to re-open each input to find them and skipped standard
/// input, so a second program on a pipe was dropped with exit 0.
@Suite struct PackageProgramsTests {
    @Test func aProgramNotReadGivesExitTwoFromAFileAndFromAPipe() throws {
        let scratch = try Scratch()
        let input = try TransportStreamProgramsTests.twoPrograms(in: scratch)
        let message = "program 2 (PMT PID 0x1001) not read: nalu reads one program's video and audio; the video was written"
        let fromFile = try CLIRunner.run(["package", input, "-o", scratch.file("file"), "--hls"])
        #expect(fromFile.status == 2, "\(fromFile.stderr)")
        #expect(fromFile.stderr.contains("nalu: error: \(input): \(message)\n"), "\(fromFile.stderr)")
        #expect(fromFile.stderr.contains("hint: give --pid with a program's video PID to choose it"))
        // The first program was packaged.
        #expect(FileManager.default.fileExists(atPath: scratch.file("file/v0.m3u8")))

        // A transport stream's audio needs a second pass a pipe cannot give: --no-audio.
        let fromPipe = try CLIRunner.run(["package", "-", "-o", scratch.file("pipe"), "--hls", "--no-audio"],
                                         stdin: try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(fromPipe.status == 2, "\(fromPipe.stderr)")
        #expect(fromPipe.stderr.contains("nalu: error: -: \(message)\n"), "\(fromPipe.stderr)")

        // --pid chooses the program: exit 0.
        let chosen = try CLIRunner.run(["package", input, "--pid", "0x102", "-o", scratch.file("chosen"), "--hls"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
    }
}
