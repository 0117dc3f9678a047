import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Signals (Docs/cli.md, "Signals"): encode finishes a playable output and exits 128 + the
/// signal; convert removes its temporary file and leaves the target as it was; nothing is left
/// behind either way.
@Suite(.serialized) struct SignalTests {
    /// Waits until `path` exists (the run has started writing), at most 10 s.
    static func waitForOutput(in scratch: Scratch, _ ready: (([String]) -> Bool)) throws {
        for _ in 0..<1000 {
            if ready(try scratch.names()) { return }
            usleep(10_000)
        }
    }

    static func longEncode(_ output: String, extra: [String] = []) throws -> RunningNalu {
        try RunningNalu(["encode", "--test-pattern", "--size", "640x360", "--frames", "100000", "--preset", "ultrafast",
                         "--threads", "1", "-o", output] + extra)
    }

    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")])
    func encodeFinishesAPlayableFile(signal: Int32, name: String) throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        let run = try Self.longEncode(output, extra: ["--stats-json", scratch.file("stats.json")])
        try Self.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.h264.") } }
        usleep(300_000)
        run.signal(signal)
        #expect(run.wait() == 128 + signal)
        #expect(run.stderr.hasPrefix("interrupted by \(name): encoded "), "\(run.stderr)")
        #expect(try scratch.names() == ["out.h264", "stats.json"])
        let stats = try jsonObject(String(decoding: try scratch.read("stats.json"), as: UTF8.self))
        #expect(stats["interrupted"] as? Bool == true)
        let frames = try #require(stats["frames"] as? Int)
        #expect(frames > 0)
        let decoded = try ffmpegDecode(output)
        #expect(decoded.errors == "")
        #expect(decoded.frames == frames)
    }

    @Test func encodeToMP4GetsItsMovieBox() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.mp4")
        let run = try Self.longEncode(output, extra: ["--quiet"])
        try Self.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.mp4.") } }
        usleep(300_000)
        run.signal(SIGTERM)
        #expect(run.wait() == 143)
        #expect(try scratch.names() == ["out.mp4"])
        let decoded = try ffmpegDecode(output)
        #expect(decoded.errors == "")
        #expect(decoded.frames > 0)
    }

    /// Ctrl-C while encode waits on a pipe that stays open: the blocked read ends, the frames
    /// read so far are encoded and the file completed.
    @Test func encodeBlockedOnAPipeStops() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        let input = Pipe()
        let run = try RunningNalu(["encode", "--size", "64x48", "--preset", "ultrafast", "--quiet", "-o", output], stdin: input)
        try input.fileHandleForReading.close()
        input.fileHandleForWriting.write(CommandLineContractTests.rawFrames(10))
        try Self.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.h264.") } }
        usleep(500_000)
        run.signal(SIGINT)
        #expect(run.wait() == 130)
        #expect(try scratch.names() == ["out.h264"])
        let decoded = try ffmpegDecode(output)
        #expect(decoded.errors == "")
        #expect(decoded.frames == 10)
        try input.fileHandleForWriting.close()
    }

    /// A second SIGINT aborts at once: exit 130, no temporary file; the output, if the first
    /// signal's finish got that far, is whole.
    @Test func secondInterruptAbortsWithoutLitter() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        let run = try RunningNalu(["encode", "--test-pattern", "--size", "1920x1080", "--frames", "100000", "--preset", "veryslow",
                                   "-o", output, "--quiet"])
        try Self.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.h264.") } }
        usleep(500_000)
        run.signal(SIGINT)
        usleep(20_000)
        run.signal(SIGINT)
        #expect(run.wait() == 130)
        let names = try scratch.names()
        #expect(names == [] || names == ["out.h264"])
        if names == ["out.h264"] { #expect(try ffmpegDecode(output).errors == "") }
    }

    /// convert stopped by a signal mid-stream: the target keeps its old content, no temporary
    /// file stays, exit 130/143.
    @Test(arguments: [SIGINT, SIGTERM])
    func convertLeavesTheOldTarget(signal: Int32) throws {
        let scratch = try Scratch()
        try scratch.write("out.lp", Data("old".utf8))
        try scratch.write("rec.avcC", Data("old record".utf8))
        let input = Pipe()
        let run = try RunningNalu(["convert", "--to", "avcc", "-o", scratch.file("out.lp"), "--extradata-out", scratch.file("rec.avcC")],
                                  stdin: input)
        try input.fileHandleForReading.close()
        // More than the reader's first buffer, and the pipe stays open: convert is mid-stream.
        let stream = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        var bytes = Data()
        while bytes.count < 4 << 20 { bytes.append(stream) }
        let data = bytes
        Glibc.signal(SIGPIPE, SIG_IGN)
        let descriptor = input.fileHandleForWriting.fileDescriptor
        let writer = Thread {
            // Raw writes: once convert is gone they fail with EPIPE, and the thread ends.
            writeRaw(data, to: descriptor)
        }
        writer.start()
        try Self.waitForOutput(in: scratch) { $0.contains { $0.hasPrefix(".out.lp.") } }
        run.signal(signal)
        #expect(run.wait() == 128 + signal)
        #expect(try scratch.read("out.lp") == Data("old".utf8))
        #expect(try scratch.read("rec.avcC") == Data("old record".utf8))
        #expect(try scratch.names() == ["out.lp", "rec.avcC"])
        try? input.fileHandleForWriting.close()
    }

    /// A reader that goes away (`| head`): a quiet end, no message.
    @Test func closedPipeIsQuiet() throws {
        let scratch = try Scratch()
        let stream = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        try scratch.write("long.h264", Data(repeating: 0, count: 0) + (0..<200).reduce(into: Data()) { data, _ in data.append(stream) })
        let pipe = Pipe()
        let run = try RunningNalu(["nals", scratch.file("long.h264")], stdout: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        _ = pipe.fileHandleForReading.readData(ofLength: 10)
        try pipe.fileHandleForReading.close()
        let status = run.wait()
        #expect(status == 128 + SIGPIPE)
        #expect(run.stderr == "")
    }
}
