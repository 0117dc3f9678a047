import Foundation
import Testing

/// A fixture's ffprobe facts (see Scripts/make-fixtures.sh).
struct ProbeFacts: Decodable {
    let profile: String?
    let level: Int?
    let width: Int
    let height: Int
    let chroma_format_idc: Int
    let bit_depth: Int
    let r_frame_rate: String?
    let frames: Int
    let key_packets: [Int]

    static func load(_ name: String) throws -> ProbeFacts {
        try JSONDecoder().decode(ProbeFacts.self, from: Data(contentsOf: CLIRunner.fixtures.appendingPathComponent("\(name).ffprobe.json")))
    }
}

let fixtureNames: [String] = {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: CLIRunner.fixtures.path)) ?? []
    return files.filter { $0.hasSuffix(".ffprobe.json") }.map { String($0.dropLast(".ffprobe.json".count)) }.sorted()
}()

func streamFile(_ name: String) -> String {
    CLIRunner.fixture(name + (name.hasPrefix("hevc") ? ".h265" : ".h264"))
}

func jsonObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}

@Suite struct InfoCommandTests {
    /// `nalu info --json` agrees with ffprobe on every fixture, Annex-B and length-prefixed.
    @Test(arguments: fixtureNames) func infoMatchesFFprobe(name: String) throws {
        let facts = try ProbeFacts.load(name)
        for input in [streamFile(name), CLIRunner.fixture(name + ".lp")] {
            let result = try CLIRunner.run(["info", "--json", input])
            #expect(result.status == 0, "\(result.stderr)")
            let info = try jsonObject(result.stdout)
            #expect(info["format"] as? String == (input.hasSuffix(".lp") ? "length-prefixed" : "annexb"))
            #expect(info["codec"] as? String == (name.hasPrefix("hevc") ? "hevc" : "h264"))
            #expect(info["profile"] as? String == facts.profile)
            #expect(info["level_idc"] as? Int == facts.level)
            #expect(info["width"] as? Int == facts.width)
            #expect(info["height"] as? Int == facts.height)
            #expect(info["chroma_format_idc"] as? Int == facts.chroma_format_idc)
            #expect(info["bit_depth_luma"] as? Int == facts.bit_depth)
            #expect(info["bit_depth_chroma"] as? Int == facts.bit_depth)
            #expect(info["access_units"] as? Int == facts.frames)
            #expect(info["keyframes"] as? Int == facts.key_packets.count)
            #expect(info["profile_idc"] is Int)
            #expect(info["nal_units"] is Int)
            #expect(info["nal_type_counts"] is [String: Any])
        }
    }

    @Test func humanSummary() throws {
        let result = try CLIRunner.run(["info", CLIRunner.fixture("avc_ntsc_aud.h264")])
        #expect(result.status == 0)
        #expect(result.stdout == """
        format:        Annex-B
        codec:         H.264/AVC
        profile:       High (profile_idc 100)
        level:         1.1 (level_idc 11)
        resolution:    176x144
        chroma format: 4:2:0 (chroma_format_idc 1)
        bit depth:     8
        frame rate:    29.97 fps (30000/1001, from the VUI)
        colour:        unspecified
        aspect:        SAR 1:1, DAR 11:9
        VUI timing:    num_units_in_tick 1001, time_scale 60000
        reordering:    max_num_reorder_frames 2, max_dec_frame_buffering 4
        field order:   progressive
        encoder:       x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft 2003-2…
        access units:  15 (3 I, 5 P, 7 B)
        keyframes:     3 (3 idr)
        bytes:         17278
        NAL units:     37
            1  Non-IDR                 12
            5  IDR                      3
            6  SEI                      1
            7  SPS                      3
            8  PPS                      3
            9  AUD                     15

        """)
    }

    @Test func readsStandardInput() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: streamFile("hevc_main")))
        let result = try CLIRunner.run(["info", "--json", "-"], stdin: bytes)
        #expect(result.status == 0)
        let info = try jsonObject(result.stdout)
        #expect(info["codec"] as? String == "hevc")
        #expect(info["access_units"] as? Int == 20)
    }
}

@Suite struct NalsCommandTests {
    @Test func jsonLinesListEveryNALUnit() throws {
        let result = try CLIRunner.run(["nals", "--json", CLIRunner.fixture("avc_ntsc_aud.h264")])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 37)
        #expect(lines.first == #"{"offset": 4, "size": 2, "type": 9, "name": "AUD", "nal_ref_idc": 0}"#)
        #expect(lines[1].hasPrefix(#"{"offset": 10, "size": 23, "type": 7, "name": "SPS", "nal_ref_idc": 3, "fields": {"profile_idc": 100, "level_idc": 11, "#))
    }

    @Test func textListingShowsLayerAndTemporalIdForHEVC() throws {
        let result = try CLIRunner.run(["nals", CLIRunner.fixture("hevc_wpp_aud.h265")])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines[0] == "    offset       size  type  name           layer  tid")
        #expect(lines[1] == "         4          3    35  AUD                0    0")
        #expect(lines[2] == "        11         24    32  VPS                0    0")
    }

    @Test func codecOverride() throws {
        // Read H.265 as H.264 on purpose: headers decode differently but nothing traps.
        let result = try CLIRunner.run(["nals", "--codec", "h264", "--json", streamFile("hevc_main")])
        #expect(result.status == 0 || result.status == 65)
        #expect(!result.signalled)
    }
}

@Suite struct CLIErrorTests {
    @Test func missingFileIsAnIOError() throws {
        let result = try CLIRunner.run(["info", "/nonexistent/file.h264"])
        #expect(result.status == 66)
        #expect(result.stderr == "nalu: error: /nonexistent/file.h264: No such file or directory\n")
    }

    @Test func lengthPastEndNamesTheByte() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-past-end-\(getpid()).lp")
        // A valid SPS-looking first unit, then a length of 4096 with 2 bytes behind it.
        try Data([0, 0, 0, 2, 0x67, 0x64, 0, 0, 0x10, 0, 0xAA, 0xBB]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CLIRunner.run(["nals", "--length-size", "4", url.path])
        #expect(result.status == 65)
        #expect(result.stderr == "nalu: error: NAL unit length: length past end (length 4096, 2 bytes left) at byte 6\n")
    }

    @Test func garbageInputIsUnrecognised() throws {
        let result = try CLIRunner.run(["info", "-"], stdin: Data([0xFF, 0xEE, 0xDD, 0xCC]))
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("nalu: error: input: unrecognised format"))
        #expect(result.stderr.hasSuffix("at byte 0\n"))
    }

    @Test func badLengthSizeIsAUsageError() throws {
        let result = try CLIRunner.run(["info", "--length-size", "3", streamFile("avc_main")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--length-size must be 1, 2 or 4"))
    }

    @Test func unknownOptionIsAUsageError() throws {
        let result = try CLIRunner.run(["nals", "--bogus"])
        #expect(result.status == 64)
    }
}
