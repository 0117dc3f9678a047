import Foundation
import Testing

/// `nalu doctor` as a user and a script see it: the text and JSON Lines forms, exit 3 for errors
/// and 0 for warnings alone, --target, standard input, and no crash on the malformed corpus.
@Suite struct DoctorCommandTests {
    static func doctor(_ arguments: [String], stdin: Data? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(["doctor"] + arguments, stdin: stdin)
    }

    @Test func textForPeopleExitThreeOnError() throws {
        let path = CLIRunner.fixture("doctor/level_too_low.h264")
        let result = try Self.doctor([path])
        #expect(result.status == 3)
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "error[level-exceeded] access unit 0, byte 4: level 1 is too low: frame size 240 macroblocks > MaxFS 99; max_dec_frame_buffering 4 > MaxDpbFrames 1 (MaxDpbMbs 396 / 240); 6000 macroblocks/s at 25 fps > MaxMBPS 1485; level 1.2 fits (H.264 A.3.1, Table A-1)")
        #expect(lines.dropFirst().first == "  fix: nalu edit \(path) --level 1.2 -o fixed.h264")
        #expect(lines.suffix(2) == ["\(path): 1 error, 1 warning", ""])
    }

    @Test func warningsAloneExitZero() throws {
        let path = CLIRunner.fixture("doctor/no_vui_colour.h265")
        let result = try Self.doctor([path])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("warning[no-vui-colour] access unit 0, byte 32: "))
        // A small (SD) picture: the BT.601 values players assume for it.
        #expect(result.stdout.contains("\n  fix: nalu edit \(path) --color-primaries smpte170m --color-transfer smpte170m --color-space smpte170m -o fixed.h265\n"))
        #expect(result.stdout.hasSuffix("\(path): 0 errors, 1 warning\n"))
        let clean = try Self.doctor([CLIRunner.fixture("colour_avc_bt709_tv.h264")])
        #expect(clean.status == 0)
        #expect(clean.stdout == "\(CLIRunner.fixture("colour_avc_bt709_tv.h264")): no problems found\n")
    }

    @Test func jsonLinesForScripts() throws {
        let result = try Self.doctor(["--json", CLIRunner.fixture("doctor/cut_mid_gop.h264")])
        #expect(result.status == 3)
        let objects = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 4)
        for finding in objects.dropLast() {
            #expect(Set(finding.keys) == ["severity", "code", "message", "access_unit", "byte_offset", "clause", "fix", "count"])
        }
        #expect(objects[0]["code"] as? String == "starts-without-keyframe")
        #expect(objects[0]["severity"] as? String == "error")
        #expect(objects[0]["fix"] is NSNull)
        #expect(objects[1]["code"] as? String == "no-parameter-sets")
        #expect(objects[1]["access_unit"] as? Int == 0)
        #expect(objects[1]["byte_offset"] as? Int == 4)
        #expect(objects[1]["count"] as? Int == 7)
        #expect(objects[1]["clause"] as? String == "H.264 7.4.1.2.1")
        #expect(objects[2]["code"] as? String == "no-vui-colour")
        #expect(objects[2]["access_unit"] as? Int == 7)
        let summary = try #require(objects[3]["summary"] as? [String: Any])
        #expect(summary["errors"] as? Int == 2)
        #expect(summary["warnings"] as? Int == 1)
    }

    @Test func targetRaisesHev1ToAnError() throws {
        let path = CLIRunner.fixture("doctor/hev1.mp4")
        #expect(try Self.doctor([path]).status == 0)
        let apple = try Self.doctor(["--target", "apple", path])
        #expect(apple.status == 3)
        #expect(apple.stdout.hasPrefix("error[hev1-sample-entry] the HEVC track's sample entry is hev1"))
        #expect(apple.stdout.contains("\n  fix: nalu convert \(path) --sample-entry hvc1 -o fixed.mp4\n"))
        let broadcast = try Self.doctor(["--target", "broadcast", "--json", CLIRunner.fixture("doctor/no_aud.h264")])
        #expect(broadcast.status == 0)
        #expect(broadcast.stdout.contains("\"code\": \"missing-aud\""))
        #expect(broadcast.stdout.contains("--aud insert -o fixed.h264"))
    }

    @Test func standardInputAndUsage() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("doctor/level_too_low.h264")))
        let piped = try Self.doctor([], stdin: data)
        #expect(piped.status == 3)
        #expect(piped.stdout.contains("  fix: nalu edit in.h264 --level 1.2 -o fixed.h264\n"))
        #expect(piped.stdout.hasSuffix("standard input: 1 error, 1 warning\n"))
        let missing = try Self.doctor(["/nonexistent/x.h264"])
        #expect(missing.status == 66)
        let badTarget = try Self.doctor(["--target", "tv", CLIRunner.fixture("avc_main.h264")])
        #expect(badTarget.status == 64)
        #expect(badTarget.stderr.hasPrefix("nalu: error: "))
    }

    /// The fix command lines that use `nalu convert` (which exists today) do fix what they name.
    @Test func convertFixesWork() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let annexB = directory.appendingPathComponent("fixed.h264").path
        let remuxed = directory.appendingPathComponent("fixed.mp4").path
        // b-frames-without-ctts: nalu convert … --to annexb -o fixed.h264 && nalu convert fixed.h264 --fps 25 -o fixed.mp4
        #expect(try CLIRunner.run(["convert", CLIRunner.fixture("doctor/b_frames_without_ctts.mp4"), "--to", "annexb", "-o", annexB]).status == 0)
        #expect(try CLIRunner.run(["convert", annexB, "--fps", "25", "-o", remuxed]).status == 0)
        let after = try Self.doctor([remuxed])
        #expect(after.status == 0)
        #expect(!after.stdout.contains("b-frames-without-ctts"))
        // hev1-sample-entry: nalu convert hev1.mp4 --sample-entry hvc1 -o fixed.mp4
        let hvc1 = directory.appendingPathComponent("hvc1.mp4").path
        #expect(try CLIRunner.run(["convert", CLIRunner.fixture("doctor/hev1.mp4"), "--sample-entry", "hvc1", "-o", hvc1]).status == 0)
        let apple = try Self.doctor(["--target", "apple", hvc1])
        #expect(apple.status == 0)
        #expect(!apple.stdout.contains("hev1-sample-entry"))
    }

    /// Every malformed and fuzz-found input: findings or a typed error, never a trap.
    @Test func malformedCorpusNeverTraps() throws {
        let root = CLIRunner.fixtures.appendingPathComponent("malformed")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted().enumerated()
            .filter { $0.offset % 8 == 0 }.map(\.element)
        #expect(!names.isEmpty)
        for name in names {
            let result = try Self.doctor([root.appendingPathComponent(name).path])
            #expect(!result.signalled, "\(name)")
            #expect([0, 3, 65].contains(result.status), "\(name): \(result.status) \(result.stderr)")
        }
    }
}
