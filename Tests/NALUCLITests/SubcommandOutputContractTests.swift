import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The output contract (Docs/cli.md, "Outputs") for the subcommands that write a stream besides
/// `convert` (whose cases are in ``OutputContractTests`` and ``SignalTests``): `trim`, `concat`
/// and `edit` write through symlinks and into FIFOs, refuse their own input as the output, name
/// the path on a full disk (exit 74), leave nothing behind when the folder is missing (exit 73),
/// end quietly on a closed pipe, and keep the old target when interrupted mid-stream.
@Suite struct SubcommandOutputContractTests {
    /// One subcommand's invocation: the arguments that write `output` from `input`.
    struct Command: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: @Sendable (_ input: String, _ output: String) -> [String]
        var testDescription: String { name }
    }

    static let commands = [
        Command(name: "trim") { ["trim", $0, "--start", "0.2", "--end", "0.6", "--to", "annexb", "-o", $1] },
        Command(name: "concat") { ["concat", $0, CLIRunner.fixture("avc_main.h264"), "--to", "annexb", "-o", $1] },
        Command(name: "edit") { ["edit", $0, "--sar", "1:1", "--to", "annexb", "-o", $1] },
    ]

    /// What `command` writes from `input` to a plain new file.
    static func expected(_ command: Command, input: String) throws -> Data {
        let scratch = try Scratch()
        let result = try CLIRunner.run(command.arguments(input, scratch.file("plain.h264")))
        #expect(result.status == 0, "\(result.stderr)")
        let data = try scratch.read("plain.h264")
        #expect(data.count > 1000)
        return data
    }

    @Test(arguments: commands)
    func symlinkIsWrittenThroughAndStays(_ command: Command) throws {
        let input = CLIRunner.fixture("avc_main.h264")
        let scratch = try Scratch()
        try scratch.write("target.h264", Data("old".utf8))
        #expect(symlink("target.h264", scratch.file("link.h264")) == 0)
        let result = try CLIRunner.run(command.arguments(input, scratch.file("link.h264")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(scratch.file("link.h264")) == S_IFLNK)
        #expect(try scratch.read("target.h264") == (try Self.expected(command, input: input)))
        #expect(try scratch.names() == ["link.h264", "target.h264"])
    }

    @Test(arguments: commands)
    func fifoIsWrittenInPlaceForItsReader(_ command: Command) throws {
        let input = CLIRunner.fixture("avc_main.h264")
        let scratch = try Scratch()
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = readFIFOInBackground(fifo)
        let result = try CLIRunner.run(command.arguments(input, fifo))
        #expect(result.status == 0, "\(result.stderr)")
        for _ in 0..<200 where received.value.isEmpty { usleep(10_000) }
        #expect(received.value == (try Self.expected(command, input: input)))
        #expect(fileType(fifo) == S_IFIFO)
        #expect(try scratch.names() == ["fifo"])
    }

    @Test(arguments: commands)
    func theInputAsTheOutputIsRefusedAndUntouched(_ command: Command) throws {
        let scratch = try Scratch()
        let original = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        try scratch.write("in.h264", original)
        #expect(symlink("in.h264", scratch.file("soft.h264")) == 0)
        for output in ["in.h264", "soft.h264", "./in.h264"] {
            let result = try CLIRunner.run(command.arguments(scratch.file("in.h264"), scratch.path + "/" + output))
            #expect(result.status == 73)
            #expect(result.stderr.hasPrefix("nalu: error: \(scratch.path)/\(output): is the input file (\(scratch.file("in.h264"))); refusing to overwrite it\n"))
            #expect(try scratch.read("in.h264") == original)
        }
        #expect(try scratch.names() == ["in.h264", "soft.h264"])
    }

    @Test(arguments: commands)
    func fullDiskNamesThePath(_ command: Command) throws {
        let result = try CLIRunner.run(command.arguments(CLIRunner.fixture("avc_main.h264"), "/dev/full"))
        #expect(result.status == 74)
        #expect(result.stderr.hasSuffix("nalu: error: /dev/full: No space left on device\n"))
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    @Test(arguments: commands)
    func missingFolderNamesThePathAndLeavesNothing(_ command: Command) throws {
        let scratch = try Scratch()
        let output = scratch.file("no/such/folder/out.h264")
        let result = try CLIRunner.run(command.arguments(CLIRunner.fixture("avc_main.h264"), output))
        #expect(result.status == 73)
        #expect(result.stderr == "nalu: error: \(output): cannot create: No such file or directory\n")
        #expect(try scratch.names() == [])
    }

    /// `… -o - | head -c 1`: the reader goes away; nalu ends on SIGPIPE with nothing on stderr.
    @Test(arguments: commands)
    func closedPipeIsQuiet(_ command: Command) throws {
        let scratch = try Scratch()
        // 200 copies of the stream: far more output than a pipe buffers.
        let stream = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        try scratch.write("long.h264", (0..<200).reduce(into: Data()) { data, _ in data.append(stream) })
        var arguments = command.arguments(scratch.file("long.h264"), "-")
        if command.name == "trim" { arguments[3] = "0"; arguments[5] = "1000" }
        let pipe = Pipe()
        let run = try RunningNalu(arguments, stdout: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        _ = pipe.fileHandleForReading.readData(ofLength: 1)
        try pipe.fileHandleForReading.close()
        #expect(run.wait() == 128 + SIGPIPE)
        #expect(!run.stderr.contains("error"), "\(run.stderr)")
    }

    /// `edit` from standard input and `concat` from a FIFO, interrupted mid-stream: the target
    /// keeps its old content, no temporary file stays, exit 128 + the signal.
    @Test(arguments: [SIGINT, SIGTERM])
    func interruptedEditAndConcatLeaveTheOldTarget(signal: Int32) throws {
        let stream = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        var bytes = Data()
        while bytes.count < 4 << 20 { bytes.append(stream) }
        let data = bytes
        Glibc.signal(SIGPIPE, SIG_IGN)
        for name in ["edit", "concat"] {
            let scratch = try Scratch()
            try scratch.write("out.h264", Data("old".utf8))
            let input = Pipe()
            let run: RunningNalu
            let fifo = scratch.file("in.fifo")
            if name == "edit" {
                run = try RunningNalu(["edit", "--sar", "1:1", "--to", "annexb", "-o", scratch.file("out.h264")], stdin: input)
            } else {
                #expect(mkfifo(fifo, 0o644) == 0)
                run = try RunningNalu(["concat", fifo, CLIRunner.fixture("avc_main.h264"), "--to", "annexb", "-o", scratch.file("out.h264")])
            }
            try input.fileHandleForReading.close()
            // More than the reader's first buffer, and the writer stays open: nalu is mid-stream.
            let writer = Thread {
                let descriptor = name == "edit" ? input.fileHandleForWriting.fileDescriptor : open(fifo, O_WRONLY)
                guard descriptor >= 0 else { return }
                writeRaw(data, to: descriptor)
                if name != "edit" { Glibc.close(descriptor) }
            }
            writer.start()
            try SignalTests.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.h264.") } }
            run.signal(signal)
            #expect(run.wait() == 128 + signal, "\(name)")
            #expect(try scratch.read("out.h264") == Data("old".utf8), "\(name)")
            let left = try scratch.names().filter { $0 != "in.fifo" }
            #expect(left == ["out.h264"], "\(name): \(left)")
            try? input.fileHandleForWriting.close()
        }
    }
}
