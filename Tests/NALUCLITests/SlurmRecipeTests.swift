import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 17: `Scripts/slurm/encode.sh` end to end on a one-machine cluster brought up by
/// `Scripts/slurm/local-cluster.sh` (munged, slurmctld, slurmd on 127.0.0.1), as CI runs it.
/// Needs root and the Debian packages slurm-wlm and munge (`.ci/run` installs them); skipped,
/// saying so, without them. Every test stops the cluster it started.
@Suite(.serialized) struct SlurmRecipeTests {
    static let scripts = CLIRunner.repositoryRoot.appendingPathComponent("Scripts/slurm")

    static func installed(_ tool: String) -> Bool {
        ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// Root, and the tools the local cluster runs.
    static let clusterAvailable = getuid() == 0 && ["munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"].allSatisfy(installed)

    /// Whether this build has `nalu concat` (issue 17's join; built on another branch).
    /// (`nalu concat --help` of an unknown subcommand prints the top-level help and exits 0: the
    /// subcommand list is what tells.)
    static let concatAvailable: Bool = (try? CLIRunner.run(["--help"]).stdout.contains("\n  concat ")) ?? false

    /// Runs a script with `environment` added; its status, standard output and error.
    static func run(_ script: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = try Scratch()
        let out = folder.url.appendingPathComponent("out")
        let err = folder.url.appendingPathComponent("err")
        try Data().write(to: out)
        try Data().write(to: err)
        let process = Process()
        process.executableURL = scripts.appendingPathComponent(script)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// A running local cluster: its environment (`SLURM_CONF`, `NALU_SLURM_DIR`).
    struct Cluster {
        var environment: [String: String]

        /// `local-cluster.sh start` on a port of its own (so a developer's cluster is not disturbed).
        static func start() throws -> Cluster {
            let port = 20000 + Int(getpid() % 5000) * 2
            let result = try SlurmRecipeTests.run("local-cluster.sh", ["start"], environment: ["NALU_SLURM_PORT": String(port), "NALU_SLURM_DIR": ""])
            try #require(result.status == 0, "local-cluster.sh start failed: \(result.stderr)")
            var environment: [String: String] = [:]
            // Lines like: SLURM_CONF=/tmp/nalu-slurm.x/slurm.conf; export SLURM_CONF
            for line in result.stdout.split(separator: "\n") {
                guard let assignment = line.split(separator: ";").first, let equals = assignment.firstIndex(of: "=") else { continue }
                environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
            }
            try #require(environment["SLURM_CONF"] != nil && environment["NALU_SLURM_DIR"] != nil, "\(result.stdout)")
            return Cluster(environment: environment)
        }

        func stop() {
            let directory = environment["NALU_SLURM_DIR"] ?? ""
            let result = try? SlurmRecipeTests.run("local-cluster.sh", ["stop", directory])
            #expect(result?.status == 0, "local-cluster.sh stop: \(result?.stderr ?? "did not run")")
            #expect(!FileManager.default.fileExists(atPath: directory), "the cluster's folder is left")
        }
    }

    @Test(.enabled(if: clusterAvailable, "needs root and slurm-wlm + munge (apt-get install -y slurm-wlm munge)"),
          .enabled(if: concatAvailable, "needs nalu concat, the join (issue 17, built on the trim-concat branch)"))
    func recipeEncodesChunksOnTheClusterAndJoinsThem() throws {
        let cluster = try Cluster.start()
        defer { cluster.stop() }
        let scratch = try Scratch()
        // The issue's join: Annex-B parts into one MP4.
        let output = scratch.file("out.mp4")
        var environment = cluster.environment
        environment["NALU"] = CLIRunner.executable.path
        let result = try Self.run("encode.sh", [ChunkCommandTests.fixture, output, "--chunks", "2", "--", "--crf", "23", "--threads", "1"],
                                  environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("encode.sh: chunks: job "))
        // The joined file: every frame of the input, an IDR where each chunk starts, the input's
        // duration (20 frames at 25 fps).
        let decoded = try ffmpegDecode(output)
        #expect(decoded.frames == 20)
        #expect(decoded.errors == "")
        #expect(try ChunkCommandTests.keyframes(output).map { $0["index"] as? Int } == [0, 10])
        let ffprobe = try #require(["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let duration = try runProgram(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output])
        #expect(duration.stdout == "0.800000\n")
        // The parts' folder (next to the output) is removed after the join.
        #expect(try scratch.names() == ["out.mp4"])

        // Again, keeping the parts; then with one part lost, only that chunk is encoded again.
        let arguments = [ChunkCommandTests.fixture, output, "--chunks", "2", "--keep-parts", "--", "--crf", "23", "--threads", "1"]
        let kept = try Self.run("encode.sh", arguments, environment: environment)
        #expect(kept.status == 0, "\(kept.stderr)")
        let workdir = scratch.file(".out.mp4.parts")
        let part1 = workdir + "/part-00001.h264"
        let original = try Data(contentsOf: URL(fileURLWithPath: part1))
        try FileManager.default.removeItem(atPath: part1)
        let resumed = try Self.run("encode.sh", arguments, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("encode.sh: 1 of 2 parts missing in \(workdir): submitting chunks 1\n"), "\(resumed.stderr)")
        // The same bytes as before: a chunk's encode is repeatable.
        #expect(try Data(contentsOf: URL(fileURLWithPath: part1)) == original)
        #expect(try ffmpegDecode(output).frames == 20)
    }

    /// Issue 33 item 5: an MP4 master with B-frames and AAC, three chunks on the cluster: MP4
    /// parts joined with every source picture once at its time and the audio copied.
    @Test(.enabled(if: clusterAvailable, "needs root and slurm-wlm + munge (apt-get install -y slurm-wlm munge)"),
          .enabled(if: concatAvailable, "needs nalu concat"))
    func recipeTranscodesAnMP4MasterWithAudio() throws {
        let cluster = try Cluster.start()
        defer { cluster.stop() }
        let scratch = try Scratch()
        let output = scratch.file("out.mp4")
        var environment = cluster.environment
        environment["NALU"] = CLIRunner.executable.path
        let source = CLIRunner.fixture("realworld/phone.mp4")
        let result = try Self.run("encode.sh", [source, output, "--chunks", "3", "--", "--crf", "23", "--preset", "ultrafast", "--threads", "1"],
                                  environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try TranscodeTests.framePTS(output) == (try TranscodeTests.framePTS(source)))
        let audio = { (path: String) in
            try runTool("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"]).stdout
        }
        // Every AAC packet once, in order (a chunk's audio starts behind an empty edit, where
        // concat places it).
        #expect(try audio(output) == (try audio(source)))
        #expect(try scratch.names() == ["out.mp4"])
    }

    @Test(.enabled(if: clusterAvailable, "needs root and slurm-wlm + munge (apt-get install -y slurm-wlm munge)"))
    func aFailedChunkStopsTheJoinAndIsNamed() throws {
        let cluster = try Cluster.start()
        defer { cluster.stop() }
        let scratch = try Scratch()
        let output = scratch.file("out.h265")
        var environment = cluster.environment
        environment["NALU"] = CLIRunner.executable.path
        // Every chunk is refused by nalu (exit 64): the join is cancelled, not run.
        let result = try Self.run("encode.sh", [ChunkCommandTests.fixture, output, "--chunks", "2", "--", "--preset", "bogus"],
                                  environment: environment)
        #expect(result.status == 1)
        let workdir = scratch.file(".out.h265.parts")
        for index in 0..<2 {
            #expect(result.stderr.contains("encode.sh: chunk \(index)/2: FAILED (exit 64:0); log: \(workdir)/encode-\(index).log"), "\(result.stderr)")
            let log = try String(contentsOfFile: "\(workdir)/encode-\(index).log", encoding: .utf8)
            #expect(log.hasPrefix("nalu: error: --preset: unknown preset \"bogus\""), "\(log)")
        }
        #expect(result.stderr.contains("encode.sh: 2 chunk(s) failed; the join did not run."))
        #expect(!FileManager.default.fileExists(atPath: output))
        // The HEVC parts would be named .h265 (from the output's name); none was written.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workdir).filter { $0.hasPrefix("part-") } == [])

        // A usage error of the script itself.
        let usage = try Self.run("encode.sh", [ChunkCommandTests.fixture, output, "--chunks", "0"], environment: environment)
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("encode.sh: --chunks must be a positive number (got '0')\n"))
    }
}
