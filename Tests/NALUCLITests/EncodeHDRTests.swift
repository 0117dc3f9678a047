import Foundation
import Testing

/// `nalu encode IN` carries HDR10 static metadata (issue 33, item 4): the source's mastering
/// display colour volume and content light level SEI reach x265 (`master-display`, `max-cll`)
/// and x264 (`mastering-display`, `cll`), and the output stream carries them, as ffprobe's frame
/// side data and `nalu info --json` report. Source: colour_hevc_hdr10.h265 (Scripts/make-fixtures.sh:
/// x265 with master-display and max-cll, 10-bit, 5 frames of 176x144).
@Suite struct EncodeHDRTests {
    static let source = CLIRunner.fixture("colour_hevc_hdr10.h265")

    /// ffprobe's side data of the first frame: mastering display and content light level lines.
    static func sideData(_ path: String) throws -> [String] {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames", path])
        #expect(result.status == 0, "\(result.stderr)")
        let keys = ["side_data_type=Mastering", "side_data_type=Content", "red_", "green_", "blue_", "white_point_", "min_luminance", "max_luminance",
                    "max_content", "max_average"]
        return result.stdout.split(separator: "\n").map(String.init).filter { line in keys.contains { line.hasPrefix($0) } }
    }

    /// The two messages' syntax elements as ffmpeg's `trace_headers` reads them (first of each):
    /// `display_primaries_x[0]=13250`… (ffmpeg 5.1's H.264 decoder exports no side data for them,
    /// its bitstream reader does).
    static func traced(_ path: String) throws -> [String: String] {
        // The trace goes to standard error; through the shell into the one pipe read (two pipes
        // read one after the other would fill the second).
        let result = try runTool("sh", ["-c", "ffmpeg -nostdin -v trace -i \"$0\" -map 0:v:0 -c copy -bsf:v trace_headers -f null - 2>&1", path])
        #expect(result.status == 0)
        let names = ["display_primaries_x", "display_primaries_y", "white_point_x", "white_point_y", "max_display_mastering_luminance",
                     "min_display_mastering_luminance", "max_content_light_level", "max_pic_average_light_level"]
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") where line.contains("trace_headers") {
            let words = line.split(separator: " ")
            guard words.count >= 4, let name = words.first(where: { word in names.contains { word.hasPrefix($0) } }),
                  let value = words.last, fields[String(name)] == nil else { continue }
            fields[String(name)] = String(value)
        }
        return fields
    }

    /// `nalu info --json`'s `sei` member.
    static func infoSEI(_ path: String) throws -> [String: Any] {
        let result = try CLIRunner.run(["info", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try #require(object?["sei"] as? [String: Any], "\(result.stdout.prefix(400))")
    }

    @Test(arguments: [("hevc", "out.mp4"), ("h264", "out.mp4"), ("hevc", "out.ts")])
    func masteringDisplayAndLightLevelCarried(codec: String, output name: String) throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent(name).path
        let result = try CLIRunner.run(["encode", Self.source, "--codec", codec, "-o", output, "--preset", "ultrafast", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try Self.sideData(Self.source)
        #expect(expected.contains("red_x=34000/50000") && expected.contains("max_content=1000") && expected.contains("max_average=400"), "\(expected)")
        if codec == "hevc" { #expect(try Self.sideData(output) == expected) }
        let fields = try Self.traced(Self.source)
        #expect(fields.count == 12 && fields["display_primaries_x[2]"] == "34000" && fields["max_pic_average_light_level"] == "400", "\(fields)")
        #expect(try Self.traced(output) == fields)
        let (got, want) = (try Self.infoSEI(output), try Self.infoSEI(Self.source))
        #expect(got["mastering_display"] as? [String: String] == want["mastering_display"] as? [String: String])
        #expect(got["content_light_level"] as? [String: Int] == want["content_light_level"] as? [String: Int])
        #expect(got["mastering_display"] != nil)
    }

    /// A source without the messages gives an output without them.
    @Test func noMetadataNoMessages() throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.mp4").path
        let result = try CLIRunner.run(["encode", CLIRunner.fixture("colour_hevc_hlg_sar.h265"), "--codec", "hevc", "-o", output,
                                        "--preset", "ultrafast", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.sideData(output).isEmpty)
        #expect(try Self.traced(output).isEmpty)
    }
}
