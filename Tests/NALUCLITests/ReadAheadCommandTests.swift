import Foundation
import Testing

/// Reading raw and transport-stream input on a second thread (`ReadAhead`, on by default when a second CPU is
/// free; `NALU_READ_AHEAD` forces it on or off) changes nothing in what the commands write.
@Suite struct ReadAheadCommandTests {
    static let on = ["NALU_READ_AHEAD": "1"]
    static let off = ["NALU_READ_AHEAD": "0"]

    @Test(arguments: fixtureNames) func sameOutputWithAndWithoutReadAhead(name: String) throws {
        let input = streamFile(name)
        for (arguments, suffix) in [(["--to", "avcc"], "lp"), (["--to", "mp4"], "mp4"), (["--to", "ts"], "ts")] {
            let withThread = temporaryPath("on.\(suffix)")
            let without = temporaryPath("off.\(suffix)")
            defer {
                try? FileManager.default.removeItem(atPath: withThread)
                try? FileManager.default.removeItem(atPath: without)
            }
            let first = try CLIRunner.run(["convert", input] + arguments + ["-o", withThread], environment: Self.on)
            let second = try CLIRunner.run(["convert", input] + arguments + ["-o", without], environment: Self.off)
            #expect(first.status == 0, "\(arguments): \(first.stderr)")
            #expect(second.status == 0, "\(arguments): \(second.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: withThread))
            #expect(!written.isEmpty)
            #expect(written == (try Data(contentsOf: URL(fileURLWithPath: without))), "\(arguments)")
        }
        // Length-prefixed input, read ahead without the start-code search.
        let samples = CLIRunner.fixture(name + ".lp")
        let record = CLIRunner.fixture(name + (name.hasPrefix("hevc") ? ".hvcC" : ".avcC"))
        let annexBOn = try CLIRunner.run(["convert", samples, "--extradata", record, "--to", "annexb", "-o", "-"], environment: Self.on)
        let annexBOff = try CLIRunner.run(["convert", samples, "--extradata", record, "--to", "annexb", "-o", "-"], environment: Self.off)
        #expect(annexBOn.status == 0, "\(annexBOn.stderr)")
        #expect(!annexBOn.stdoutBytes.isEmpty)
        #expect(annexBOn.stdoutBytes == annexBOff.stdoutBytes)

        let infoOn = try CLIRunner.run(["info", "--json", input], environment: Self.on)
        let infoOff = try CLIRunner.run(["info", "--json", input], environment: Self.off)
        #expect(infoOn.status == 0)
        #expect(infoOn.stdout == infoOff.stdout)
    }

    /// Transport stream input: the demultiplexer copies out of the buffers read ahead.
    @Test(arguments: ["avc_main", "hevc_main"]) func transportStreamReadsTheSame(name: String) throws {
        let transportStream = temporaryPath("\(name).ts")
        defer { try? FileManager.default.removeItem(atPath: transportStream) }
        let muxed = try CLIRunner.run(["convert", streamFile(name), "--to", "ts", "-o", transportStream], environment: Self.off)
        #expect(muxed.status == 0, "\(muxed.stderr)")
        let on = try CLIRunner.run(["convert", transportStream, "--to", "annexb", "-o", "-"], environment: Self.on)
        let off = try CLIRunner.run(["convert", transportStream, "--to", "annexb", "-o", "-"], environment: Self.off)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(!on.stdoutBytes.isEmpty)
        #expect(on.stdoutBytes == off.stdoutBytes)
    }

    /// Standard input through a pipe: the thread reads what the pipe has, as it arrives.
    @Test func pipedInputReadsTheSame() throws {
        let stream = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        let piped = try CLIRunner.run(["convert", "-", "--to", "avcc", "-o", "-"], stdin: stream, environment: Self.on)
        let plain = try CLIRunner.run(["convert", "-", "--to", "avcc", "-o", "-"], stdin: stream, environment: Self.off)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdoutBytes == plain.stdoutBytes)
        #expect(piped.stdoutBytes == (try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.lp")))))
    }
}
