import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `-o`, `--extradata-out` and `--stats-json` do with what is at the path (Docs/cli.md,
/// "Outputs"): files replaced whole by a rename, devices/FIFOs written in place, links written
/// through, the input and double outputs refused, errors naming the path, nothing left behind.
@Suite struct OutputContractTests {
    static let mp4 = CLIRunner.fixture("avc_main.mp4")
    /// What `convert avc_main.mp4 --to annexb` writes.
    static func expectedAnnexB() throws -> Data {
        let scratch = try Scratch()
        let result = try CLIRunner.run(["convert", mp4, "--to", "annexb", "-o", scratch.file("x.h264")])
        #expect(result.status == 0, "\(result.stderr)")
        return try scratch.read("x.h264")
    }

    @Test func characterDeviceIsWrittenNotReplaced() throws {
        let scratch = try Scratch()
        let device = scratch.file("null")
        guard mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) /* makedev(1, 3): /dev/null */ == 0 else {
            print("skipped: mknod of a character device is not permitted here (\(String(cString: strerror(errno))))")
            return
        }
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", device])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(device) == S_IFCHR)
        #expect(try scratch.names() == ["null"])
        // --stats-json and --extradata-out to a device: the same.
        let encode = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x48", "--frames", "2", "--preset", "ultrafast", "--quiet",
                                        "-o", device, "--stats-json", device, "--extradata-out", device])
        #expect(encode.status == 0, "\(encode.stderr)")
        #expect(fileType(device) == S_IFCHR)
        #expect(try scratch.names() == ["null"])
    }

    @Test func devNullStaysADevice() throws {
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", "/dev/null"])
        #expect(result.status == 0)
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    /// `-o /dev/stdout` is standard output: written to the descriptor, so `>>` appends.
    @Test func devStdoutIsStandardOutput() throws {
        let scratch = try Scratch()
        try scratch.write("log", Data("x\n".utf8))
        let handle = try #require(FileHandle(forWritingAtPath: scratch.file("log")))
        handle.seekToEndOfFile()
        let run = try RunningNalu(["convert", Self.mp4, "--to", "annexb", "-o", "/dev/stdout"], stdout: handle)
        #expect(run.wait() == 0, "\(run.stderr)")
        #expect(try scratch.read("log") == Data("x\n".utf8) + (try Self.expectedAnnexB()))
        #expect(try scratch.names() == ["log"])
    }

    @Test func fifoIsWrittenInPlaceForItsReader() throws {
        let scratch = try Scratch()
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = readFIFOInBackground(fifo)
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", fifo])
        #expect(result.status == 0, "\(result.stderr)")
        for _ in 0..<200 where received.value.isEmpty { usleep(10_000) }
        #expect(received.value == (try Self.expectedAnnexB()))
        #expect(fileType(fifo) == S_IFIFO)
        #expect(try scratch.names() == ["fifo"])
    }

    @Test func symlinkIsWrittenThroughAndStays() throws {
        let scratch = try Scratch()
        try scratch.write("target.h264", Data("old".utf8))
        #expect(symlink("target.h264", scratch.file("link.h264")) == 0)
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", scratch.file("link.h264")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(scratch.file("link.h264")) == S_IFLNK)
        #expect(try scratch.read("target.h264") == (try Self.expectedAnnexB()))
        // A dangling link: its target is created, as the shell's > does.
        #expect(symlink("new.h264", scratch.file("dangling.h264")) == 0)
        let dangling = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", scratch.file("dangling.h264")])
        #expect(dangling.status == 0, "\(dangling.stderr)")
        #expect(fileType(scratch.file("dangling.h264")) == S_IFLNK)
        #expect(try scratch.read("new.h264") == (try Self.expectedAnnexB()))
        #expect(try scratch.names() == ["dangling.h264", "link.h264", "new.h264", "target.h264"])
    }

    @Test func theInputByAnotherPathIsRefusedBeforeReading() throws {
        let scratch = try Scratch()
        let original = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        try scratch.write("in.h264", original)
        #expect(link(scratch.file("in.h264"), scratch.file("hard.h264")) == 0)
        #expect(symlink("in.h264", scratch.file("soft.h264")) == 0)
        for output in ["in.h264", "hard.h264", "soft.h264", "./in.h264"] {
            let result = try CLIRunner.run(["convert", scratch.file("in.h264"), "--to", "annexb", "-o", scratch.path + "/" + output])
            #expect(result.status == 73)
            #expect(result.stderr.hasPrefix("nalu: error: \(scratch.path)/\(output): is the input file (\(scratch.file("in.h264"))); refusing to overwrite it\n"))
            #expect(try scratch.read("in.h264") == original)
        }
        // Standard input that is the output file.
        let viaStdin = try RunningNalu(["convert", "--to", "annexb", "-o", scratch.file("hard.h264")],
                                       stdin: FileHandle(forReadingAtPath: scratch.file("in.h264")))
        #expect(viaStdin.wait() == 73)
        #expect(viaStdin.stderr.contains("is the input file (standard input)"))
        #expect(try scratch.read("in.h264") == original)
        #expect(try scratch.names() == ["hard.h264", "in.h264", "soft.h264"])
    }

    @Test func twoOutputsNamingOneFileAreRefusedBeforeWriting() throws {
        let scratch = try Scratch()
        let same = try CLIRunner.run(["convert", streamFile("avc_main"), "--to", "avcc", "-o", scratch.file("out.lp"),
                                      "--extradata-out", scratch.file("out.lp")])
        #expect(same.status == 64)
        #expect(same.stderr.hasPrefix("nalu: error: \(scratch.file("out.lp")): --extradata-out names the same file as -o\n"))
        let stats = try CLIRunner.run(["encode", "--test-pattern", "--frames", "2", "-o", scratch.file("a.h264"),
                                       "--stats-json", scratch.path + "/./a.h264"])
        #expect(stats.status == 64)
        #expect(stats.stderr.contains("--stats-json names the same file as -o"))
        #expect(try scratch.names() == [])
    }

    @Test func missingFolderNamesThePathAndLeavesNothing() throws {
        let scratch = try Scratch()
        let output = scratch.file("no/such/folder/out.h264")
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", output])
        #expect(result.status == 73)
        #expect(result.stderr == "nalu: error: \(output): cannot create: No such file or directory\n")
        let directory = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", scratch.path])
        #expect(directory.status == 73)
        #expect(directory.stderr == "nalu: error: \(scratch.path): cannot create: is a directory\n")
        #expect(try scratch.names() == [])
    }

    @Test func readOnlyFolderNamesThePath() throws {
        guard geteuid() != 0 else {
            print("skipped: root writes to read-only folders; the missing-folder test covers the error path")
            return
        }
        let scratch = try Scratch()
        let folder = scratch.file("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", folder + "/out.h264"])
        #expect(result.status == 73)
        #expect(result.stderr == "nalu: error: \(folder)/out.h264: cannot create: Permission denied\n")
    }

    @Test func fullDiskNamesThePathAndLeavesTheTargetAlone() throws {
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", "/dev/full"])
        #expect(result.status == 74)
        #expect(result.stderr == "nalu: error: /dev/full: No space left on device\n")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    @Test func replacedFileKeepsItsPermissions() throws {
        let scratch = try Scratch()
        try scratch.write("out.h264", Data("old".utf8))
        chmod(scratch.file("out.h264"), 0o600)
        let result = try CLIRunner.run(["convert", Self.mp4, "--to", "annexb", "-o", scratch.file("out.h264")])
        #expect(result.status == 0)
        var info = stat()
        #expect(stat(scratch.file("out.h264"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try scratch.read("out.h264") == (try Self.expectedAnnexB()))
    }

    /// A failure half-way leaves the old target and no temporary file.
    @Test func failureLeavesTheOldTarget() throws {
        let scratch = try Scratch()
        try scratch.write("out.lp", Data("old".utf8))
        let result = try CLIRunner.run(["convert", streamFile("avc_baseline"), "--to", "avcc", "--length-size", "1", "-o", scratch.file("out.lp")])
        #expect(result.status == 65)
        #expect(try scratch.read("out.lp") == Data("old".utf8))
        #expect(try scratch.names() == ["out.lp"])
    }

    /// Eight runs writing different streams to one output at once: each exits 0 and the file
    /// left is exactly one of the streams, never a mix, with no temporary files.
    @Test func parallelRunsToOneOutputLeaveAWholeFile() throws {
        let scratch = try Scratch()
        let names = ["avc_main", "avc_baseline", "avc_high_bframes", "avc_open_gop", "hevc_main", "hevc_slices", "avc_multislice", "hevc_open_gop"]
        let output = scratch.file("out.lp")
        let expected = try names.map { name -> Data in
            let path = scratch.file("\(name).lp")
            let result = try CLIRunner.run(["convert", streamFile(name), "--to", "avcc", "-o", path])
            #expect(result.status == 0)
            defer { unlink(path) }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        for _ in 0..<3 {
            let runs = try names.map { try RunningNalu(["convert", streamFile($0), "--to", "avcc", "-o", output]) }
            for run in runs { #expect(run.wait() == 0, "\(run.stderr)") }
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(expected.contains(written))
            #expect(try scratch.names() == ["out.lp"])
        }
    }

    /// A file named like an old fixed temporary name is an ordinary input.
    @Test func inputNamedLikeATemporaryIsUntouched() throws {
        let scratch = try Scratch()
        let original = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        try scratch.write("out.h264.nalu-partial", original)
        let result = try CLIRunner.run(["convert", scratch.file("out.h264.nalu-partial"), "--to", "avcc", "-o", scratch.file("out.h264")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try scratch.read("out.h264.nalu-partial") == original)
    }
}
