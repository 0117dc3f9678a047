import Foundation
import Testing

/// MP4/MOV input for every subcommand (issue 12, item 5), told by content, also through a pipe
/// (spooled): `nals`, `extradata`, `info` and `keyframes` on an MP4 say what they say on the
/// Annex-B stream ffmpeg's mp4toannexb filter makes of it.
@Suite struct MP4InputTests {
    static let files = ["mp4_avc_bframes.mp4", "mov_avc.mov", "mp4_avc_frag.mp4", "mp4_avc_audio.mp4", "mp4_hevc_hvc1.mp4", "mp4_hevc_frag.mp4"]

    /// Runs `nalu arguments` with `file` piped into its standard input (a real pipe, not seekable).
    static func runPiped(_ file: String, _ arguments: [String]) throws -> (stdout: Data, stderr: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cat \"$0\" | \"$@\"", file, CLIRunner.executable.path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently enough for small outputs: stderr is short.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (stdout, String(decoding: stderr, as: UTF8.self), process.terminationStatus)
    }

    /// (type, size) of each line of `nals --json`.
    static func typesAndSizes(_ jsonLines: String) throws -> [[Int]] {
        try jsonLines.split(separator: "\n").map { line in
            let object = try jsonObject(String(line))
            return [try #require(object["type"] as? Int), try #require(object["size"] as? Int)]
        }
    }

    static func annexBFixture(_ file: String) -> String {
        let name = String(file.prefix { $0 != "." })
        return CLIRunner.fixture("\(name).mp4toannexb.\(file.contains("hevc") ? "h265" : "h264")")
    }

    /// The file and the pipe list the same NAL units at the same offsets; apart from the
    /// parameter sets (and, H.265, the hvcC's SEI) the filter writes before each keyframe, they
    /// are the NAL units of ffmpeg's Annex-B.
    @Test(arguments: files) func nals(file: String) throws {
        let path = CLIRunner.fixture(file)
        let direct = try CLIRunner.run(["nals", "--json", path])
        #expect(direct.status == 0)
        #expect(direct.stderr == "")
        let piped = try Self.runPiped(path, ["nals", "--json", "-"])
        #expect(piped.status == 0)
        #expect(piped.stderr == "")
        #expect(String(decoding: piped.stdout, as: UTF8.self) == direct.stdout)
        let annexB = try CLIRunner.run(["nals", "--json", Self.annexBFixture(file)])
        let hevc = file.contains("hevc")
        let inserted: Set<Int> = hevc ? [32, 33, 34, 39] : [7, 8]
        let ours = try Self.typesAndSizes(direct.stdout).filter { !inserted.contains($0[0]) }
        let ffmpeg = try Self.typesAndSizes(annexB.stdout).filter { !inserted.contains($0[0]) }
        #expect(ours.count > 10)
        #expect(ours == ffmpeg)
    }

    /// The record from the MP4 (file or pipe) is the record from ffmpeg's Annex-B, byte for byte.
    @Test(arguments: files) func extradata(file: String) throws {
        let path = CLIRunner.fixture(file)
        let expected = try CLIRunner.run(["extradata", Self.annexBFixture(file)])
        #expect(expected.status == 0)
        let direct = try CLIRunner.run(["extradata", path])
        #expect(direct.status == 0)
        #expect(direct.stdoutBytes == expected.stdoutBytes)
        let piped = try Self.runPiped(path, ["extradata", "-"])
        #expect(piped.status == 0)
        #expect(piped.stdout == expected.stdoutBytes)
    }

    /// Content, not the name: an MP4 named `.h264` and an MP4 on a pipe are read as MP4.
    @Test func infoAndKeyframesByContent() throws {
        let path = CLIRunner.fixture("mp4_avc_bframes.mp4")
        let renamed = temporaryPath("disguised.h264")
        defer { try? FileManager.default.removeItem(atPath: renamed) }
        try FileManager.default.copyItem(atPath: path, toPath: renamed)
        let info = try CLIRunner.run(["info", "--json", path])
        #expect(info.status == 0)
        let disguised = try CLIRunner.run(["info", "--json", renamed])
        #expect(disguised.stdout == info.stdout)
        let piped = try Self.runPiped(path, ["info", "--json", "-"])
        #expect(String(decoding: piped.stdout, as: UTF8.self) == info.stdout)
        let object = try jsonObject(info.stdout)
        #expect((object["container"] as? [String: Any])?["sample_entry"] as? String == "avc1")
        let keyframes = try CLIRunner.run(["keyframes", "--json", path])
        let pipedKeyframes = try Self.runPiped(path, ["keyframes", "--json", "-"])
        #expect(keyframes.status == 0)
        #expect(String(decoding: pipedKeyframes.stdout, as: UTF8.self) == keyframes.stdout)
        #expect(keyframes.stdout.contains("\"sync_sample\": true"))
    }

    /// convert from a pipe: the same Annex-B as from the file; the audio track is named.
    @Test func convertFromAPipe() throws {
        let path = CLIRunner.fixture("mp4_avc_audio.mp4")
        let direct = try CLIRunner.run(["convert", path, "--to", "annexb", "-o", "-"])
        let piped = try Self.runPiped(path, ["convert", "-", "--to", "annexb", "-o", "-"])
        #expect(piped.status == 2)
        #expect(piped.stdout == direct.stdoutBytes)
        #expect(piped.stderr == "nalu: error: -: track 1 (soun, mp4a) not carried: an elementary stream holds one video track; the video was written\nhint: give --no-audio to leave the audio out on purpose (exit 0)\n")
        let ffmpeg = try Data(contentsOf: URL(fileURLWithPath: Self.annexBFixture("mp4_avc_audio.mp4")))
        #expect(annexBUnits(direct.stdoutBytes) == annexBUnits(ffmpeg))
    }

    /// A named FIFO is opened once and the container told from the bytes read: `info` on a FIFO
    /// says what it says on the file (MP4 spooled, Annex-B streamed), every run.
    @Test(arguments: ["mp4_hevc_frag.mp4", "avc_main.h264"]) func namedFIFO(file: String) throws {
        let path = CLIRunner.fixture(file)
        let expected = try CLIRunner.run(["info", "--json", path])
        #expect(expected.status == 0)
        for _ in 0..<3 {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-fifo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let fifo = folder.appendingPathComponent("in").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/bin/sh")
            writer.arguments = ["-c", "cat \"$0\" > \"$1\"", path, fifo]
            try writer.run()
            let result = try CLIRunner.run(["info", "--json", fifo])
            writer.waitUntilExit()
            #expect(result.status == 0)
            let ours = try jsonObject(result.stdout)
            let theirs = try jsonObject(expected.stdout)
            #expect(ours["nal_units"] as? Int == theirs["nal_units"] as? Int)
            #expect(ours["access_units"] as? Int == theirs["access_units"] as? Int)
            #expect(ours["bytes"] as? Int == theirs["bytes"] as? Int)
            #expect((ours["container"] as? [String: Any])?["samples"] as? Int == (theirs["container"] as? [String: Any])?["samples"] as? Int)
        }
    }

    /// Every track the output cannot carry is named, on one line: an MP4 that ffmpeg made with a
    /// video track and two AAC tracks.
    @Test func tracksNotCarriedOnOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-tracks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mp4 = folder.appendingPathComponent("three.mp4").path
        let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25", "-f", "lavfi", "-i", "sine=frequency=440",
                                          "-f", "lavfi", "-i", "sine=frequency=880", "-t", "1", "-map", "0:v", "-map", "1:a", "-map", "2:a",
                                          "-c:v", "libx264", "-c:a", "aac", mp4])
        #expect(made.status == 0, "\(made.stderr)")
        let output = folder.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["convert", mp4, "--to", "annexb", "-o", output])
        #expect(result.status == 2)
        #expect(result.stderr == "nalu: error: \(mp4): track 2 (soun, mp4a), track 3 (soun, mp4a) not carried: an elementary stream holds one video track; the video was written\nhint: give --no-audio to leave the audio out on purpose (exit 0)\n")
    }

    /// MP4 → `--to avcc` without `--extradata-out`: the sample entry's parameter sets are written
    /// in band, so the length-prefixed stream decodes on its own — back to Annex-B with no record,
    /// ffmpeg decodes it to the MP4's frames.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_hvc1.mp4"]) func avccFromMP4DecodesWithoutRecord(file: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-avcc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lp = folder.appendingPathComponent("out.lp").path
        let back = folder.appendingPathComponent("back.es").path
        let path = CLIRunner.fixture(file)
        let toAVCC = try CLIRunner.run(["convert", path, "--to", "avcc", "-o", lp])
        #expect(toAVCC.status == 0)
        #expect(toAVCC.stderr.hasPrefix("nalu: note: the parameter sets stay in band"))
        let toAnnexB = try CLIRunner.run(["convert", lp, "--length-size", "4", "--to", "annexb", "-o", back])
        #expect(toAnnexB.status == 0, "\(toAnnexB.stderr)")
        let md5 = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last } }
        let ours = try runTool("ffmpeg", ["-v", "error", "-i", back, "-f", "framemd5", "-"])
        let reference = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        #expect(ours.stderr == "")
        #expect(md5(ours.stdout).count > 10)
        #expect(md5(ours.stdout) == md5(reference.stdout))
    }
}
