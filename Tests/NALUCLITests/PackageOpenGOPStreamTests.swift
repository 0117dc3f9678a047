import Foundation
import Testing

/// Issue 35 item 1, HEVC open GOP (`Tests/Fixtures/smart/hevc_open_gop.mp4`, x265 with CRA and
/// RASL pictures) in MPEG-TS segments (`--segment-type ts`) and in live mode (`--live`, an
/// Annex-B stream through a pipe): with `--open-gop keep` a segment that starts with a CRA
/// followed by RASL pictures is not claimed independent (no `EXT-X-INDEPENDENT-SEGMENTS`; in
/// live mode a `rap ` sample group and no `INDEPENDENT=YES` on its first part) and ffmpeg
/// reading the `.m3u8` decodes every picture of the source; with `--open-gop bla` the CRA is
/// rewritten as BLA, its RASL pictures dropped, and ffmpeg decodes the source's pictures less
/// those, the kept ones identical.
@Suite struct PackageOpenGOPStreamTests {
    typealias Package = PackageCommandTests
    static let source = PackageOpenGOPTests.source

    /// The number of RASL pictures the `--open-gop bla` note says were dropped.
    static func dropped(_ stderr: String) throws -> Int {
        let note = try #require(stderr.split(separator: "\n").first { $0.contains("RASL picture") && $0.contains("dropped") }, "\(stderr)")
        let words = note.split(separator: " ")
        let index = try #require(words.firstIndex { $0.hasPrefix("RASL") })
        return try #require(Int(words[index - 1]))
    }

    /// `kept` is `all` with some pictures left out, in order.
    static func isSubsequence(_ kept: [String], of all: [String]) -> Bool {
        var iterator = all.makeIterator()
        return kept.allSatisfy { picture in
            while let next = iterator.next() { if next == picture { return true } }
            return false
        }
    }

    /// The `nal_unit_type` of the first VCL NAL unit of a TS segment's video (copied out by ffmpeg
    /// as an H.265 elementary stream).
    static func firstPictureType(_ segment: String, scratch: Scratch) throws -> Int {
        let ffmpeg = try #require(ffmpegPath)
        let out = scratch.file("first.h265")
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", segment, "-map", "0:v:0", "-c", "copy", "-f", "hevc", "-y", out])
        #expect(result.status == 0, "\(result.stderr)")
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        var index = 0
        while index + 3 < data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1 {
                let type = Int(data[index + 3] >> 1) & 0x3F
                if type < 32 { return type }
                index += 3
            } else {
                index += 1
            }
        }
        return -1
    }

    @Test func transportStreamSegmentsKeep() throws {
        let scratch = try Scratch()
        let (dir, result) = try Package.package([Self.source], ["--hls", "--segment-type", "ts", "--segment-duration", "1"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("EXT-X-INDEPENDENT-SEGMENTS") && !result.stderr.contains("'rap '"), "\(result.stderr)")
        let frames = try Package.md5s(Self.source, map: "0:v:0")
        #expect(frames.count == 75)
        #expect(try Package.md5s(dir + "/master.m3u8", map: "0:v:0") == frames)
        let parsed = try Package.parsePlaylists(dir)
        let playlist = try #require((parsed["playlists"] as? [String: [String: Any]])?["v0.m3u8"])
        #expect(playlist["independent"] as? Bool == false)
        #expect(!(try String(contentsOfFile: dir + "/master.m3u8", encoding: .utf8)).contains("EXT-X-INDEPENDENT-SEGMENTS"))
        var cra = 0
        for uri in try #require(playlist["uris"] as? [String]) {
            let type = try Self.firstPictureType(dir + "/" + uri, scratch: scratch)
            #expect([19, 20, 21].contains(type), "\(uri): NAL type \(type)")
            if type == 21 { cra += 1 }
        }
        #expect(cra > 0)
    }

    @Test func transportStreamSegmentsBLA() throws {
        let scratch = try Scratch()
        let (dir, result) = try Package.package([Self.source], ["--hls", "--segment-type", "ts", "--segment-duration", "1", "--open-gop", "bla"],
                                                in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let dropped = try Self.dropped(result.stderr)
        #expect(dropped > 0)
        let frames = try Package.md5s(Self.source, map: "0:v:0")
        let kept = try Package.md5s(dir + "/master.m3u8", map: "0:v:0")
        #expect(kept.count == frames.count - dropped, "\(kept.count) pictures")
        #expect(Self.isSubsequence(kept, of: frames), "a picture is not the source's")
        let parsed = try Package.parsePlaylists(dir)
        let playlist = try #require((parsed["playlists"] as? [String: [String: Any]])?["v0.m3u8"])
        #expect(playlist["independent"] as? Bool == true)
        var rewritten = 0
        for uri in try #require(playlist["uris"] as? [String]) {
            let type = try Self.firstPictureType(dir + "/" + uri, scratch: scratch)
            #expect([17, 18, 19, 20, 21].contains(type), "\(uri): NAL type \(type)")
            if type == 17 || type == 18 { rewritten += 1 }
        }
        #expect(rewritten > 0)
    }

    /// The fixture as `nalu convert --to annexb` writes it, packaged live from a pipe.
    static func live(_ policy: String, scratch: Scratch) throws -> (dir: String, result: CLIRunner.Result, stream: String) {
        let stream = scratch.file("open_gop.h265")
        let converted = try CLIRunner.run(["convert", Self.source, "--to", "annexb", "-o", stream])
        #expect(converted.status == 0, "\(converted.stderr)")
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--dash", "--live", "--window", "100", "--segment-duration", "1",
                                        "--part-duration", "0.5", "--open-gop", policy],
                                       stdin: try Data(contentsOf: URL(fileURLWithPath: stream)))
        return (dir, result, stream)
    }

    @Test func liveKeep() throws {
        let scratch = try Scratch()
        let (dir, result, stream) = try Self.live("keep", scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("SAP type 3"), "\(result.stderr)")
        let frames = try Package.md5s(stream, map: "0:v:0")
        #expect(frames.count == 75)
        #expect(try Package.md5s(dir + "/master.m3u8", map: "0:v:0") == frames)
        let playlist = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        #expect(playlist["independent"] as? Bool == false)
        #expect(playlist["endlist"] as? Bool == true)
        try PackageLowLatencyTests.checkParts(playlist, dir: dir, partTarget: 0.5, scratch: scratch, checkIndependence: false, openGOP: true)
        var grouped = 0
        for segment in try #require(playlist["segments"] as? [[String: Any]]) {
            let uri = try #require(segment["uri"] as? String)
            let start = try PackageOpenGOPTests.segmentStart(dir + "/" + uri)
            let firstPart = (segment["parts"] as? [[String: Any]])?.first
            if start.sync {
                #expect(start.rapLeading == nil)
                #expect(firstPart?["independent"] as? Bool == true, "\(uri)")
            } else {
                grouped += 1
                #expect(start.nalType == 21 && (start.rapLeading ?? 0) > 0, "\(uri): NAL type \(start.nalType), rap \(String(describing: start.rapLeading))")
                #expect(firstPart?["independent"] as? Bool == false, "\(uri): its first part is INDEPENDENT=YES")
            }
        }
        #expect(grouped > 0)
        #expect(try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8).contains("startWithSAP=\"3\""))
    }

    @Test func liveBLA() throws {
        let scratch = try Scratch()
        let (dir, result, stream) = try Self.live("bla", scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let dropped = try Self.dropped(result.stderr)
        #expect(dropped > 0)
        let frames = try Package.md5s(stream, map: "0:v:0")
        let kept = try Package.md5s(dir + "/master.m3u8", map: "0:v:0")
        #expect(kept.count == frames.count - dropped, "\(kept.count) pictures")
        #expect(Self.isSubsequence(kept, of: frames), "a picture is not the source's")
        let playlist = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        #expect(playlist["independent"] as? Bool == true)
        try PackageLowLatencyTests.checkParts(playlist, dir: dir, partTarget: 0.5, scratch: scratch)
        var rewritten = 0
        for segment in try #require(playlist["segments"] as? [[String: Any]]) {
            let uri = try #require(segment["uri"] as? String)
            let start = try PackageOpenGOPTests.segmentStart(dir + "/" + uri)
            #expect(start.sync && start.rapLeading == nil, "\(uri)")
            if start.nalType == 17 || start.nalType == 18 { rewritten += 1 }
        }
        #expect(rewritten > 0)
    }
}
