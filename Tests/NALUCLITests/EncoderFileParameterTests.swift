import Foundation
import Testing

/// Issue 32 item 2: encoder-library parameters that name files. The libraries open those paths
/// themselves, outside nalu's output rules, so a parameter that makes them write a file is
/// refused (64, naming it) before anything is written; one that makes them read a file is taken
/// only for a regular readable file; nothing aborts the process (libx265's `analysis-load` of a
/// foreign file did: `std::bad_alloc`, exit 134, a temporary file left).
@Suite struct EncoderFileParameterTests {
    /// A scratch folder holding a copy of the Y4M fixture as the input.
    struct Folder {
        let url: URL
        let input: String
        init() throws {
            url = try EncodeCommandTests.temporaryDirectory()
            input = url.appendingPathComponent("in.y4m").path
            try FileManager.default.copyItem(atPath: CLIRunner.fixture("chunk_128x72.y4m"), toPath: input)
        }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        /// The folder's entries other than `keep`: what a run left behind.
        func leftovers(keeping keep: Set<String>) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !keep.contains($0) }.sorted()
        }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func encode(_ folder: Folder, _ extra: [String], output: String = "out.h264") throws -> CLIRunner.Result {
        try CLIRunner.run(["encode", folder.input, "--preset", "ultrafast", "--frames", "3", "-o", folder.path(output), "--quiet"] + extra)
    }

    /// Every parameter that makes a library write a file, in the forms its parser reads the
    /// same way (`_` for `-`, a `no`/`no-` prefix): refused, nothing written at the path.
    @Test(arguments: [
        ("--x264-params", "dump-yuv=TARGET"), ("--x264-params", "dump_yuv=TARGET"), ("--x264-params", "nodump-yuv=1"),
        ("--x264-params", "stats=TARGET"), ("--x264-params", "pass=1:stats=TARGET"), ("--x264-params", "pass=1"),
        ("--x264-params", "opencl-clbin=TARGET"), ("--x264-params", "opencl=1"),
        ("--x265-params", "csv=TARGET"), ("--x265-params", "analysis-save=TARGET"), ("--x265-params", "analysis_save=TARGET"),
        ("--x265-params", "analysis-reuse-file=TARGET"), ("--x265-params", "stats=TARGET"), ("--x265-params", "pass=1"),
        ("--x265-params", "multi-pass-opt-analysis=1"), ("--x265-params", "multi-pass-opt-distortion=1"),
        ("--x265-params", "no-csv=0"),
    ])
    func writingParametersAreRefused(_ option: String, _ value: String) throws {
        let folder = try Folder()
        defer { folder.remove() }
        let target = folder.path("target")
        let codec = option == "--x265-params" ? ["--codec", "hevc"] : []
        let result = try Self.encode(folder, codec + [option, value.replacingOccurrences(of: "TARGET", with: target)],
                                     output: option == "--x265-params" ? "out.h265" : "out.h264")
        #expect(result.status == 64, "\(result.stderr)")
        // The first parameter that names a file is the one reported.
        let name = String(value.split(separator: ":").first?.split(separator: "=").first ?? "")
        #expect(result.stderr.hasPrefix("nalu: error: \(option): \(name) is refused: "), "\(result.stderr)")
        #expect(try folder.leftovers(keeping: ["in.y4m"]).isEmpty)
    }

    /// The reported cases: the input as x264's dump file, a symbolic link, a FIFO and a device
    /// as the stats file (x264 renamed its `.temp` over them), and `analysis-load` of a foreign
    /// file. Each is refused before the library sees it; the paths keep what they were.
    @Test func reportedCasesLeaveTheirPathsAlone() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let original = try Data(contentsOf: URL(fileURLWithPath: folder.input))
        var result = try Self.encode(folder, ["--x264-params", "dump-yuv=\(folder.input)"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.input)) == original)

        let linkTarget = folder.path("kept.txt")
        try Data("kept".utf8).write(to: URL(fileURLWithPath: linkTarget))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: linkTarget)
        #expect(mkfifo(folder.path("fifo"), 0o600) == 0)
        for stats in [folder.path("link"), folder.path("fifo"), "/dev/null"] {
            result = try Self.encode(folder, ["--x264-params", "pass=1:stats=\(stats)"])
            #expect(result.status == 64, "\(result.stderr)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("link")) == linkTarget)
        #expect(try String(contentsOfFile: linkTarget, encoding: .utf8) == "kept")
        var info = stat()
        #expect(stat(folder.path("fifo"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect((try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType) == .typeCharacterSpecial)

        for value in ["analysis-load=/etc/passwd", "nalu-file=/etc/passwd", "dhdr10-info=/etc/passwd"] {
            result = try Self.encode(folder, ["--codec", "hevc", "--x265-params", value], output: "out.h265")
            #expect(!result.signalled)
            #expect(result.status == 64, "\(value): \(result.stderr)")
        }
        #expect(try folder.leftovers(keeping: ["in.y4m", "kept.txt", "link", "fifo"]).isEmpty)
    }

    /// Files a library reads and checks: a regular file is read (the quantiser matrix reaches
    /// the stream), anything else is refused naming the parameter.
    @Test func readParametersTakeRegularFilesOnly() throws {
        let folder = try Folder()
        defer { folder.remove() }
        // x264's CQM file format (JM's): a flat 4x4 intra luma list of 32s instead of 16s.
        let cqm = folder.path("matrix.cfg")
        try Data(("INTRA4X4_LUMA =\n" + Array(repeating: "32", count: 16).joined(separator: ",") + "\n").utf8)
            .write(to: URL(fileURLWithPath: cqm))
        let plain = try Self.encode(folder, [], output: "plain.h264")
        #expect(plain.status == 0, "\(plain.stderr)")
        let withMatrix = try Self.encode(folder, ["--x264-params", "cqmfile=\(cqm)"], output: "cqm.h264")
        #expect(withMatrix.status == 0, "\(withMatrix.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("cqm.h264"))) != Data(contentsOf: URL(fileURLWithPath: folder.path("plain.h264"))))
        let hevc = try Self.encode(folder, ["--codec", "hevc", "--x265-params", "scaling-list=default"], output: "sl.h265")
        #expect(hevc.status == 0, "\(hevc.stderr)")

        #expect(mkfifo(folder.path("fifo"), 0o600) == 0)
        let big = folder.path("big")
        try Data(count: (1 << 20) + 1).write(to: URL(fileURLWithPath: big))
        for (option, value, reason) in [
            ("--x264-params", "cqmfile=/dev/zero", "not a regular file"),
            ("--x264-params", "cqmfile=\(folder.path("fifo"))", "not a regular file"),
            ("--x264-params", "cqmfile=\(folder.path("missing"))", "No such file or directory"),
            ("--x264-params", "cqmfile=\(big)", "larger than 1048576 bytes"),
            ("--x265-params", "lambda-file=\(folder.url.path)", "not a regular file"),
            ("--x265-params", "scaling-list=/dev/zero", "not a regular file"),
        ] {
            let codec = option == "--x265-params" ? ["--codec", "hevc"] : []
            let result = try Self.encode(folder, codec + [option, value], output: codec.isEmpty ? "refused.h264" : "refused.h265")
            #expect(result.status == 64, "\(value): \(result.stderr)")
            #expect(result.stderr.hasPrefix("nalu: error: \(option): \(value): \(reason)"), "\(result.stderr)")
        }
    }
}
