import Foundation
import Testing

/// Issue 41, items 12 and 16: a transport stream with two programs (ffmpeg `-program`: H.264 +
/// AAC, then H.265 + AAC). nalu reads one program; the other was dropped without a word and
/// exit 0. Now `info` lists every program, and a command that reads one exits 2 naming the
/// others unless `--pid` chose the program read.
@Suite struct TransportStreamProgramsTests {
    static func twoPrograms(in scratch: Scratch) throws -> String {
        let path = scratch.file("two.ts")
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", TimingTests.realWorld("phone.mp4"),
                                          "-i", TimingTests.realWorld("hevc_2997.mov"),
                                          "-map", "0:v", "-map", "0:a", "-map", "1:v", "-map", "1:a", "-c", "copy",
                                          "-program", "title=one:st=0:st=1", "-program", "title=two:st=2:st=3",
                                          "-f", "mpegts", path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test func infoListsEveryProgram() throws {
        let scratch = try Scratch()
        let input = try Self.twoPrograms(in: scratch)
        let text = try CLIRunner.run(["info", input])
        #expect(text.status == 0)
        #expect(text.stdout.contains("program 1"), "\(text.stdout)")
        #expect(text.stdout.contains("other program: 2 (PMT PID 0x1001)"), "\(text.stdout)")
        let json = try CLIRunner.run(["info", "--json", input])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let container = try #require((object["container"] ?? object["transport_stream"]) as? [String: Any], "\(object.keys)")
        let others = try #require(container["other_programs"] as? [[String: Any]])
        #expect(others.count == 1)
        #expect(others.first?["program_number"] as? Int == 2)
        #expect(others.first?["pmt_pid"] as? Int == 0x1001)
    }

    @Test func aProgramNotReadIsNamedWithExitTwo() throws {
        let scratch = try Scratch()
        let input = try Self.twoPrograms(in: scratch)
        for (name, arguments) in [("out.mp4", ["convert"]), ("cut.mp4", ["trim", "--start", "1", "--end", "2"])] {
            let output = scratch.file(name)
            let run = try CLIRunner.run([arguments[0], input] + arguments.dropFirst() + ["-o", output])
            #expect(run.status == 2, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("program 2 (PMT PID 0x1001) not read"), "\(run.stderr)")
            #expect(run.stderr.contains("--pid"))
            // The first program was written, its video and audio.
            #expect(try AudioPathsTests.codecs(output) == ["h264", "aac"])
        }
        // --pid chooses a program: the other is left out on purpose.
        let second = scratch.file("second.mp4")
        let chosen = try CLIRunner.run(["convert", input, "--pid", "0x102", "-o", second])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(try AudioPathsTests.codecs(second) == ["hevc", "aac"])
        #expect(abs(try AudioPathsTests.shift(TimingTests.realWorld("hevc_2997.mov"), second, at: 2)) <= 5)
        // trim takes --pid too (item 16): the second program's video and its audio, cut.
        let cut = scratch.file("second-cut.mp4")
        let trimmed = try CLIRunner.run(["trim", input, "--pid", "0x102", "--start", "1", "--end", "2", "-o", cut])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        #expect(try AudioPathsTests.codecs(cut) == ["hevc", "aac"])
        #expect(abs(try AudioPathsTests.ffmpegSeconds(cut) - 1) < 0.05)
    }
}
