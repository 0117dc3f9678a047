import Foundation
import Testing

/// Movie metadata carried (issue 31, item 4): the rotated phone clip (a 90° `tkhd` display
/// matrix, `creation_time`) keeps its rotation and creation times through convert, trim, concat
/// and edit, as ffprobe reads them on the source; `nalu info` shows them as ffprobe does;
/// `.mov` output is branded `qt  `; the movie's `udta` (location) is copied.
@Suite struct MetadataTests {
    static let rotated = CLIRunner.fixture("realworld/rotated.mov")

    /// What ffprobe says of a file's metadata: the video's rotation side data and creation_time
    /// tag, the audio's creation_time, the format's creation_time, major brand and location.
    struct Facts: Equatable, CustomStringConvertible {
        var rotation: String?
        var videoCreation: String?
        var audioCreation: String?
        var creation: String?
        var brand: String?
        var location: String?
        var description: String {
            "rotation \(rotation ?? "-"), video \(videoCreation ?? "-"), audio \(audioCreation ?? "-"), movie \(creation ?? "-"), brand \(brand ?? "-"), location \(location ?? "-")"
        }
    }

    static func facts(_ path: String) throws -> Facts {
        let result = try runTool("ffprobe", ["-v", "error", "-show_entries",
                                             "stream=codec_type:stream_side_data=rotation:stream_tags=creation_time:format_tags=creation_time,major_brand,location",
                                             "-of", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var facts = Facts()
        for stream in object["streams"] as? [[String: Any]] ?? [] {
            let tags = stream["tags"] as? [String: Any]
            if stream["codec_type"] as? String == "video" {
                facts.videoCreation = tags?["creation_time"] as? String
                let side = (stream["side_data_list"] as? [[String: Any]])?.first
                facts.rotation = side?["rotation"].map { "\($0)" }
            } else if stream["codec_type"] as? String == "audio" {
                facts.audioCreation = tags?["creation_time"] as? String
            }
        }
        let format = (object["format"] as? [String: Any])?["tags"] as? [String: Any]
        facts.creation = format?["creation_time"] as? String
        facts.brand = format?["major_brand"] as? String
        facts.location = format?["location"] as? String
        return facts
    }

    static func run(_ arguments: [String]) throws {
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
    }

    @Test func rotationAndCreationTimeSurviveEveryRemux() throws {
        let scratch = try Scratch()
        let source = try Self.facts(Self.rotated)
        #expect(source.rotation == "90")
        #expect(source.creation == "2023-07-14T08:09:10.000000Z")
        let outputs: [(String, [String])] = [
            ("convert.mov", ["convert", Self.rotated]),
            ("convert.mp4", ["convert", Self.rotated]),
            ("trim.mov", ["trim", Self.rotated, "--start", "0.5", "--end", "2"]),
            ("concat.mov", ["concat", Self.rotated, Self.rotated]),
            ("edit.mp4", ["edit", Self.rotated, "--color-primaries", "bt709"]),
            // Issue 41 item 11: a transcode and a smart cut keep them too.
            ("encode.mp4", ["encode", Self.rotated, "--crf", "30", "--preset", "ultrafast"]),
            ("smart.mov", ["trim", Self.rotated, "--start", "0.5", "--end", "2", "--smart"]),
        ]
        for (name, arguments) in outputs {
            let path = scratch.file(name)
            try Self.run(arguments + ["-o", path])
            var expected = source
            expected.brand = name.hasSuffix(".mov") ? "qt  " : "isom"
            #expect(try Self.facts(path) == expected, "\(name)")
        }
    }

    /// Issue 41 item 11: `package`'s init segment keeps the display matrix and creation time
    /// (ffmpeg's HLS/DASH muxers drop them: portrait phone clips stream sideways).
    @Test func packageInitSegmentKeepsTheRotation() throws {
        let scratch = try Scratch()
        let folder = scratch.file("package")
        try Self.run(["package", Self.rotated, "-o", folder, "--hls", "--segment-duration", "1"])
        var joined = try Data(contentsOf: URL(fileURLWithPath: folder + "/v0_init.mp4"))
        joined.append(try Data(contentsOf: URL(fileURLWithPath: folder + "/v0_00001.m4s")))
        try scratch.write("joined.mp4", joined)
        let facts = try Self.facts(scratch.file("joined.mp4"))
        #expect(facts.rotation == "90", "\(facts)")
        #expect(facts.creation == "2023-07-14T08:09:10.000000Z", "\(facts)")
    }

    @Test func infoShowsRotationAndCreationTimeAsFFprobe() throws {
        let info = try CLIRunner.run(["info", "--json", Self.rotated])
        #expect(info.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let container = try #require(object["container"] as? [String: Any])
        let source = try Self.facts(Self.rotated)
        #expect((container["rotation"] as? Int).map { "\($0)" } == source.rotation)
        #expect(container["creation_time"] as? String == source.creation)
        #expect(container["track_creation_time"] as? String == source.videoCreation)
        let text = try CLIRunner.run(["info", Self.rotated])
        #expect(text.stdout.contains("\nrotation:      90 (display matrix)\ncreation_time: 2023-07-14T08:09:10.000000Z\n"))
        // An unrotated clip: rotation 0, its creation time (phone.mp4's).
        let phone = try CLIRunner.run(["info", "--json", CLIRunner.fixture("realworld/phone.mp4")])
        let phoneContainer = try #require((try JSONSerialization.jsonObject(with: Data(phone.stdout.utf8)) as? [String: Any])?["container"] as? [String: Any])
        #expect(phoneContainer["rotation"] as? Int == 0)
        #expect(phoneContainer["creation_time"] as? String == (try Self.facts(CLIRunner.fixture("realworld/phone.mp4"))).creation)
    }

    /// A clip with a location in the movie's `udta` and its own creation time, made at
    /// run time: the location and the times are copied to MP4 and MOV.
    @Test func userDataIsCopied() throws {
        let scratch = try Scratch()
        let source = scratch.file("located.mp4")
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", CLIRunner.fixture("realworld/phone.mp4"), "-t", "2", "-c", "copy",
                                          "-metadata", "location=+48.8577+002.2950/", "-metadata", "creation_time=2022-02-03T04:05:06Z", "-y", source])
        #expect(made.status == 0, "\(made.stderr)")
        let before = try Self.facts(source)
        #expect(before.location == "+48.8577+002.2950/")
        for name in ["out.mp4", "out.mov"] {
            let output = scratch.file(name)
            try Self.run(["convert", source, "-o", output])
            var expected = before
            expected.brand = name.hasSuffix(".mov") ? "qt  " : "isom"
            #expect(try Self.facts(output) == expected, "\(name)")
        }
        // The QuickTime brand: ftyp major brand `qt  `, as ffmpeg's mov muxer writes it.
        let head = try Data(contentsOf: URL(fileURLWithPath: scratch.file("out.mov"))).prefix(12)
        #expect(Array(head.suffix(4)) == Array("qt  ".utf8))
    }
}
