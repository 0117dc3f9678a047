import Foundation
import Testing

/// Issue 32 item 4: started with standard input, output or error closed (`2>&-`), `nalu` opens
/// /dev/null on them first, so no file it opens becomes descriptor 0–2 (the output's temporary
/// file was descriptor 2, and the encoder's warnings went into the bitstream, exit 0).
@Suite struct ClosedDescriptorTests {
    /// Runs `nalu ARGUMENTS` from a shell that closes `closing` (e.g. `2>&-`) first.
    static func runClosed(_ closing: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \(closing); exec \"$0\" \"$@\"", CLIRunner.executable.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(arguments: ["2>&-", "0<&- 2>&-", "0<&- 1>&- 2>&-"])
    func encoderWarningsStayOutOfTheOutput(closing: String) throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.h264").path
        // A VBV buffer smaller than a frame: x264 warns twice while it opens.
        let status = try Self.runClosed(closing, ["encode", "--test-pattern", "--size", "64x64", "--frames", "5",
                                                  "--x264-params", "vbv-bufsize=100", "-o", output])
        #expect(status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.range(of: Data("x264 [warning]".utf8)) == nil)
        #expect(bytes.range(of: Data("encoded".utf8)) == nil)
        let frames = try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
    }

    /// A conversion with every standard descriptor closed writes the same bytes as with them open.
    @Test func conversionIsUnchanged() throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let closed = folder.appendingPathComponent("closed.lp").path
        let open = folder.appendingPathComponent("open.lp").path
        #expect(try Self.runClosed("0<&- 1>&- 2>&-", ["convert", CLIRunner.fixture("avc_main.h264"), "--to", "avcc", "-o", closed]) == 0)
        #expect(try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.h264"), "--to", "avcc", "-o", open]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: closed)) == Data(contentsOf: URL(fileURLWithPath: open)))
    }
}
