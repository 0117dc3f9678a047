import Foundation
import Testing

/// `nalu doctor` agrees with nalu's own output and its fixes run (issue 31, item 5): every
/// `fix:` command it prints for the doctor fixtures and the real-world clips, with every target,
/// is run on the file it was suggested for and must succeed; the colour it suggests follows the
/// picture size; nalu's own join of two sizes has no record error; a variable frame rate is
/// information with the average rate of the sample durations.
@Suite struct DoctorFixTests {
    static let inputs = [
        "doctor/b_frames_without_ctts.mp4", "doctor/bit_rate_over_level.h264", "doctor/hev1.mp4", "doctor/level_too_low.h264",
        "doctor/level_too_low.h265", "doctor/no_aud.h264", "doctor/no_timing.h264", "doctor/no_vui_colour.h265",
        "doctor/odd_175x99.h264", "realworld/phone.mp4", "realworld/vfr.mp4", "realworld/hevc_2997.mov", "realworld/phone.ts",
    ]

    /// The findings of `doctor --json` (not the summary line).
    static func findings(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try CLIRunner.run(["doctor", "--json"] + arguments)
        #expect([0, 3].contains(result.status), "\(arguments): \(result.stderr)")
        return try result.stdout.split(separator: "\n").compactMap {
            let object = try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            return object["summary"] == nil ? object : nil
        }
    }

    /// Runs a fix command line with `nalu` on the PATH, in `directory` (where `fixed.*` land).
    static func runFix(_ command: String, in directory: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLIRunner.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: inputs) func everyFixRuns(_ name: String) throws {
        let input = CLIRunner.fixture(name)
        var commands = Set<String>()
        for target in [[], ["--target", "apple"], ["--target", "web"], ["--target", "broadcast"]] {
            for finding in try Self.findings(target + [input]) {
                if let fix = finding["fix"] as? String { commands.insert(fix) }
            }
        }
        for command in commands.sorted() {
            let scratch = try Scratch()
            let run = try Self.runFix(command, in: scratch.url.path)
            #expect(run.status == 0, "\(command): \(run.output)")
            #expect(FileManager.default.fileExists(atPath: scratch.file(String(command.split(separator: " ").last ?? ""))), "\(command) wrote nothing")
        }
    }

    @Test func missingAUDFixForMP4WritesATransportStream() throws {
        let input = CLIRunner.fixture("realworld/phone.mp4")
        let fixes = try Self.findings(["--target", "broadcast", input]).filter { $0["code"] as? String == "missing-aud" }.compactMap { $0["fix"] as? String }
        #expect(fixes == ["nalu edit \(input) --aud insert -o fixed.ts"])
        let scratch = try Scratch()
        #expect(try Self.runFix(fixes[0], in: scratch.url.path).status == 0)
        // The fixed file has no missing-aud finding any more, and keeps the AAC.
        let after = try Self.findings(["--target", "broadcast", scratch.file("fixed.ts")])
        #expect(!after.contains { $0["code"] as? String == "missing-aud" })
        let streams = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", scratch.file("fixed.ts")])
        #expect(Set(streams.stdout.split(separator: "\n")) == ["h264", "aac"])
    }

    @Test func colourFollowsThePictureSize() throws {
        // 320x180 and 640x360: BT.601 (525-line values); 1280x720: BT.709; 720x576: BT.601 625-line.
        let scratch = try Scratch()
        let cases: [(size: String, expected: String)] = [
            ("640x360", "--color-primaries smpte170m --color-transfer smpte170m --color-space smpte170m"),
            ("720x576", "--color-primaries bt470bg --color-transfer smpte170m --color-space bt470bg"),
            ("1280x720", "--color-primaries bt709 --color-transfer bt709 --color-space bt709"),
        ]
        for (size, expected) in cases {
            let path = scratch.file("clip_\(size).h264")
            let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=0.2",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-y", path])
            #expect(made.status == 0)
            let fixes = try Self.findings([path]).filter { $0["code"] as? String == "no-vui-colour" }.compactMap { $0["fix"] as? String }
            #expect(fixes == ["nalu edit \(path) \(expected) -o fixed.h264"], "\(size)")
        }
    }

    @Test func ownJoinOfTwoSizesHasNoRecordError() throws {
        let scratch = try Scratch()
        let joined = scratch.file("joined.mp4")
        let run = try CLIRunner.run(["concat", CLIRunner.fixture("concat_avc_640x360.mp4"), CLIRunner.fixture("concat_avc_1280x720.mp4"), "-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try CLIRunner.run(["doctor", joined])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(!result.stdout.contains("record-mismatch"))
        #expect(!result.stdout.contains("error["))
        // The fixture made to mismatch still does.
        let mismatch = try CLIRunner.run(["doctor", CLIRunner.fixture("doctor/record_mismatch.mp4")])
        #expect(mismatch.status == 3)
        #expect(mismatch.stdout.contains("error[record-mismatch]"))
    }

    @Test func variableFrameRateIsInformationWithTheAverage() throws {
        let input = CLIRunner.fixture("realworld/vfr.mp4")
        let vfr = try Self.findings([input]).filter { $0["code"] as? String == "variable-frame-rate" }
        #expect(vfr.count == 1)
        #expect(vfr.first?["severity"] as? String == "info")
        // The average ffprobe gives (avg_frame_rate: pictures over the track's duration).
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", input])
        let parts = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Double($0) }
        #expect(parts.count == 2)
        let average = parts[0] / parts[1]
        let message = vfr.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("variable frame rate: \(String(format: "%.2f", average)) fps on average over 300 pictures"), "\(message)")
        #expect(!message.contains("60 fps (from the VUI)"))
        // A constant-rate clip has none.
        #expect(try Self.findings([CLIRunner.fixture("realworld/phone.mp4")]).allSatisfy { $0["code"] as? String != "variable-frame-rate" })
    }
}
