import Foundation
import Testing

/// Issue 32 items 8 and 9: a Y4M header is input. Its faults (unknown `C` tags, `It`, CR LF line
/// ends, absurd `F` rates) are data errors (65) naming the file and the header field, not usage
/// errors blaming an option never given; and the frame size it claims costs no memory before
/// the data is there (a file shorter than one frame is refused from its size).
@Suite struct Y4MHeaderErrorTests {
    static func run(header: String, frameBytes: Int = 0, via pipe: Bool = false) throws -> (CLIRunner.Result, String) {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.y4m").path
        let data = Data(header.utf8) + Data(count: frameBytes)
        try data.write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("out.h264").path
        let result = pipe
            ? try Self.runPiped(input, ["encode", "-", "-o", output, "--quiet"])
            : try CLIRunner.run(["encode", input, "-o", output, "--quiet"])
        #expect(!FileManager.default.fileExists(atPath: output))
        return (result, input)
    }

    /// Runs `cat FILE | nalu ARGUMENTS`: standard input a pipe, whose size nalu cannot know.
    static func runPiped(_ file: String, _ arguments: [String]) throws -> CLIRunner.Result {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-piped-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errors) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "f=$0 exe=$1 err=$2; shift 2; cat \"$f\" | \"$exe\" \"$@\" 2>\"$err\"", file, CLIRunner.executable.path, errors.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return CLIRunner.Result(status: process.terminationStatus, stdout: "", stderr: stderr, stdoutBytes: Data(), signalled: false)
    }

    @Test(arguments: [
        ("YUV4MPEG2 W64 H48 F25:1 Cfoo\n", "Y4M header C: invalid input (unknown colour space \"foo\""),
        ("YUV4MPEG2 W64 H48 F25:1 It\n", "Y4M header I: invalid input (interlaced input (It)"),
        ("YUV4MPEG2 W64 H48 F25:1 C420jpeg\r\n", "Y4M header: invalid input (the line ends in CR LF"),
        ("YUV4MPEG2 W64 H48 F1000000:1\n", "Y4M header F: invalid input (missing, or not a frame rate of 0.01 to 1000 fps"),
        ("YUV4MPEG2 W64 H48 F1:1000\n", "Y4M header F: invalid input"),
        ("YUV4MPEG2 W64 H48 F25:x\n", "Y4M header F: invalid input (bad value \"25:x\""),
        ("YUV4MPEG2 W0 H48 F25:1\n", "Y4M header W: invalid input"),
        ("YUV4MPEG2 W64 H99999 F25:1\n", "Y4M header H: invalid input"),
    ])
    func headerFaultsAreDataErrors(header: String, message: String) throws {
        for pipe in [false, true] {
            let (result, input) = try Self.run(header: header, frameBytes: 64 * 48 * 3 / 2 + 6, via: pipe)
            #expect(result.status == 65, "\(result.stderr)")
            let subject = pipe ? "standard input" : input
            #expect(result.stderr.hasPrefix("nalu: error: \(subject): \(message)"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage:"))
            #expect(!result.stderr.contains("--fps"))
        }
    }

    /// A 50-byte file claiming 16384x16384 4:4:4 10-bit frames (1.6 GB each): refused from the
    /// file's size, naming the header (before: 1.6 GB allocated and zeroed, or an abort under a
    /// 1 GB limit).
    @Test func headerClaimingHugeFramesInATinyFile() throws {
        let (result, input) = try Self.run(header: "YUV4MPEG2 W16384 H16384 F25:1 C444p10\nFRAME\n", frameBytes: 3)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: \(input): Y4M header: invalid input (W16384 H16384 C444p10 frames are 1610612736 bytes; the file holds 9 after the header, less than one frame)"), "\(result.stderr)")
    }

    /// The same header on a pipe: the frame memory grows with the data, so the truncated frame
    /// is reported without the claimed size ever being allocated (ResourceTests measures it).
    @Test func headerClaimingHugeFramesOnAPipe() throws {
        let (result, _) = try Self.run(header: "YUV4MPEG2 W16384 H16384 F25:1 C444p10\nFRAME\n", frameBytes: 3, via: true)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: standard input: Y4M frame 0: truncated input (needs 1610612736 bytes, input ended after 3"), "\(result.stderr)")
    }

    /// Raw input: `--size` larger than the file.
    @Test func rawSizeLargerThanTheFile() throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("tiny.yuv").path
        try Data(count: 3).write(to: URL(fileURLWithPath: input))
        let result = try CLIRunner.run(["encode", input, "--size", "16384x16384", "--pix-fmt", "yuv444p10le",
                                        "-o", folder.appendingPathComponent("out.h265").path, "--quiet"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: \(input): holds 3 bytes, less than one 16384x16384 yuv444p10le frame (1610612736 bytes)"), "\(result.stderr)")
    }
}
