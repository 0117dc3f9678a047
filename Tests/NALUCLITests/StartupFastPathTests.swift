import Foundation
import Testing

/// `nalu --version`, `nalu info|nals|keyframes [--json] FILE` and `nalu convert [--to X] FILE
/// [-o OUT]` skip ArgumentParser
/// (Sources/nalu/FastPath.swift, for start time): what they print, on which stream, and the exit
/// status must be what ArgumentParser's path gives. `info -- FILE` is the same command line but not
/// a fast shape, so it is the reference.
@Suite struct StartupFastPathTests {
    static let inputs = [
        "colour_avc_nosar.h264", "hevc_open_gop.h265", "avc_baseline.mp4", "ts_avc_aac.ts",
        "no-such-file.h264", // missing input: 66 and its message
        ".",                 // a directory (Tests/Fixtures)
    ]

    @Test(arguments: inputs) func infoMatchesArgumentParser(name: String) throws {
        let path = CLIRunner.fixture(name)
        let fast = try CLIRunner.run(["info", path])
        let reference = try CLIRunner.run(["info", "--", path])
        #expect(!fast.signalled)
        #expect(fast.status == reference.status)
        #expect(fast.stdout == reference.stdout)
        #expect(fast.stderr == reference.stderr)
        // 66 (no input) for the missing file and the directory, 0 for the streams.
        #expect(fast.status == (name.hasPrefix("no-such") || name == "." ? 66 : 0))
    }

    /// Every fast shape of the three commands on one stream: `--json` before and after the file.
    @Test(arguments: ["info", "nals", "keyframes"]) func jsonShapesMatchArgumentParser(command: String) throws {
        let path = CLIRunner.fixture("hevc_open_gop.h265")
        for (fastArguments, json) in [([command, path], false), ([command, "--json", path], true), ([command, path, "--json"], true)] {
            let fast = try CLIRunner.run(fastArguments)
            let reference = try CLIRunner.run([command] + (json ? ["--json"] : []) + ["--", path])
            #expect(fast.status == 0)
            #expect(fast.stdout == reference.stdout)
            #expect(fast.stderr == reference.stderr)
            #expect(fast.stdout.hasPrefix("{") == json)
        }
    }

    /// `nalu convert [--to X] FILE [-o OUT]` skips ArgumentParser too; `convert … -- FILE` is the
    /// same command line through ArgumentParser. Same output bytes, standard error and status,
    /// for every output framing, the framing from the output's name, and the refusals.
    @Test(arguments: [
        ("hevc_open_gop.h265", ["--to", "avcc"], "avcc", 0), ("hevc_open_gop.h265", [], "mp4", 0),
        ("hevc_open_gop.h265", ["--to", "ts"], "ts", 0), ("avc_baseline.mp4", ["--to", "annexb"], "h264", 0),
        ("avc_baseline.mp4", [], "xyz", 64), ("no-such-file.h264", ["--to", "avcc"], "lp", 66),
        ("avc_baseline.lp", ["--extradata", CLIRunner.fixture("avc_baseline.avcC"), "--to", "annexb"], "h264", 0),
        ("avc_baseline.lp", ["--extradata", CLIRunner.fixture("avc_baseline.avcC"), "--to", "avcc"], "lp", 0),
        ("avc_baseline.h264", ["--to", "avcc", "--extradata-out", "/dev/null"], "lp", 0),
        ("avc_baseline.h264", ["--to", "annexb", "--extradata-out", "/dev/null"], "h264", 64),
    ] as [(String, [String], String, Int32)]) func convertMatchesArgumentParser(name: String, options: [String], outputExtension: String, expected: Int32) throws {
        let path = CLIRunner.fixture(name)
        let fastOutput = temporaryPath("fast.\(outputExtension)"), referenceOutput = temporaryPath("reference.\(outputExtension)")
        defer { for output in [fastOutput, referenceOutput] { try? FileManager.default.removeItem(atPath: output) } }
        let fast = try CLIRunner.run(["convert"] + options + [path, "-o", fastOutput])
        let reference = try CLIRunner.run(["convert"] + options + ["-o", referenceOutput, "--", path])
        #expect(!fast.signalled)
        #expect(fast.status == reference.status)
        #expect(fast.stderr.replacingOccurrences(of: fastOutput, with: "OUT") == reference.stderr.replacingOccurrences(of: referenceOutput, with: "OUT"))
        #expect(FileManager.default.contents(atPath: fastOutput) == FileManager.default.contents(atPath: referenceOutput))
        #expect(fast.status == expected)
        if expected == 0 { #expect((FileManager.default.contents(atPath: fastOutput)?.count ?? 0) > 0) }
    }

    @Test func versionPrintsTheVersionAlone() throws {
        let result = try CLIRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "0.1.0\n")
        #expect(result.stderr.isEmpty)
        // Not a fast shape: ArgumentParser decides (help wins, printed to standard output).
        let mixed = try CLIRunner.run(["--version", "--help"])
        #expect(mixed.status == 0)
        #expect(mixed.stdout.hasPrefix("OVERVIEW: "))
    }

    /// Every other subcommand is parsed by ArgumentParser with the subcommand as root (debug
    /// builds check it against the full parse, so every CLI test checks that path); errors, help
    /// and usage lines still come from the full tree.
    @Test func subcommandErrorsAndHelpComeFromTheWholeTree() throws {
        let path = CLIRunner.fixture("hevc_open_gop.h265")
        let unknown = try CLIRunner.run(["convert", path, "--to", "avcc", "--no-such-option"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Usage: nalu convert"))
        let help = try CLIRunner.run(["convert", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: nalu convert"))
        let invalid = try CLIRunner.run(["doctor", "--target", "nowhere", path])
        #expect(invalid.status == 64)
        #expect(invalid.stderr.hasPrefix("nalu: error: "))
        #expect(invalid.stderr.contains("Usage: nalu doctor"))
        let extradata = try CLIRunner.run(["extradata", path, "--format", "annexb"])
        #expect(extradata.status == 0)
        #expect(!extradata.stdoutBytes.isEmpty)
    }

    @Test func helpIsNotAnInput() throws {
        // `nalu info help` and `nalu info -` are left to ArgumentParser; they must not trap.
        for arguments in [["info", "help"], ["info", "-"]] {
            let result = try CLIRunner.run(arguments)
            #expect(!result.signalled)
        }
    }
}
