import Foundation
import Testing

/// Issue 32 items 10 and 12: what is wrong with an option is one usage error (64) naming it,
/// before any library is opened or any output written; what the input does not reach is a
/// warning.
@Suite struct EncodeUsageErrorTests {
    /// OpenH264 below its 16x16 minimum: one error line and the usage line (before: 20 rebuild
    /// attempts, 41 lines, exit 1).
    @Test(arguments: ["2x2", "14x14", "16x8", "8x32"]) func openH264BelowItsMinimumSize(size: String) throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["encode", "--encoder", "openh264", "--test-pattern", "--size", size, "--frames", "2", "-o", output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: --size: OpenH264 encodes pictures of at least 16x16, not \(size)\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("[OpenH264]"))
        #expect(result.stderr.split(separator: "\n").count <= 4, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// `--fps` outside 0.01–1000 fps (or not 31-bit) is refused while parsing, in every command
    /// that takes it (before: exit 65, "give the frame rate (--fps)").
    @Test(arguments: ["0.001", "1000000", "100000/1", "4294967296", "2147483648/2147483647"])
    func frameRateOutOfRange(rate: String) throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stream = CLIRunner.fixture("avc_main.h264")
        let output = folder.appendingPathComponent("out.mp4").path
        for arguments in [["convert", stream], ["edit", stream], ["concat", stream, stream], ["trim", stream, "--start", "0"],
                          ["encode", "--test-pattern", "--frames", "2"]] {
            let result = try CLIRunner.run(arguments + ["--fps", rate, "-o", output])
            #expect(result.status == 64, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("--fps"), "\(arguments[0]): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// `-o ''`: a clear usage error naming -o (before: "nalu: error: : cannot tell the output
    /// framing" or "nalu: error: : No such file or directory", exit 74).
    @Test func emptyOutputName() throws {
        let stream = CLIRunner.fixture("avc_main.h264")
        for arguments in [["convert", stream], ["edit", stream], ["trim", stream, "--start", "0"], ["extradata", stream],
                          ["concat", stream, stream], ["encode", "--test-pattern", "--frames", "2"]] {
            let result = try CLIRunner.run(arguments + ["-o", ""])
            #expect(result.status == 64, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("nalu: error: -o: the output name is empty\n"), "\(arguments[0]): \(result.stderr)")
        }
    }

    /// Live changes at frames the input does not reach are warned about (before: silently not
    /// applied).
    @Test func liveChangesPastTheLastFrame() throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x64", "--frames", "10", "--preset", "ultrafast",
                                        "--idr-at", "5,10,40", "--bitrate-at", "12:400k", "-o", folder.appendingPathComponent("out.h264").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("nalu: warning: --bitrate-at 12: the input ended after 10 frames; not applied\n"), "\(result.stderr)")
        #expect(result.stderr.contains("nalu: warning: --idr-at 10: the input ended after 10 frames; not applied\n"), "\(result.stderr)")
        #expect(result.stderr.contains("nalu: warning: --idr-at 40: the input ended after 10 frames; not applied\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("--idr-at 5:"))
    }

    /// `--pid` names a transport stream's PID; an MP4 input is refused as an elementary stream is
    /// (before: the option was ignored).
    @Test func pidWithMP4Input() throws {
        let result = try CLIRunner.run(["info", CLIRunner.fixture("avc_main.mp4"), "--pid", "256"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: --pid: 256 was given; "), "\(result.stderr)")
        #expect(result.stderr.contains("is MP4/MOV, not an MPEG transport stream"), "\(result.stderr)")
    }
}
