import Foundation
import Testing

/// Issue 35: low-latency HLS parts (`--part-duration`) and one file per track (`--single-file`).
/// The playlists are parsed with the `m3u8` Python package and every LL-HLS tag is checked
/// against RFC 8216bis (4.4.3.7, 4.4.3.8, 4.4.4.9, 4.4.5.3); ffmpeg reading the playlists and the
/// MPD from disk decodes the source's pictures and copies its audio packets exactly; GStreamer
/// (hlsdemux2, which reads LL-HLS; dashdemux) plays them.
@Suite struct PackageLowLatencyTests {
    static let phone = CLIRunner.fixture("realworld/phone.mp4")

    /// A media playlist as the `m3u8` package reads it: version, target duration, media
    /// sequence, endlist, part target, server control, preload hint, the map (URI, byte range)
    /// and each segment (URI or `nil` for the open one, duration, byte range, parts with
    /// duration, URI and independence).
    static func parseMedia(_ path: String) throws -> [String: Any] {
        let script = """
        import json, sys, m3u8
        pl = m3u8.load(sys.argv[1])
        out = {'version': pl.version, 'target': pl.target_duration, 'sequence': pl.media_sequence, 'endlist': pl.is_endlist,
               'independent': pl.is_independent_segments, 'type': pl.playlist_type,
               'part_target': pl.part_inf.part_target if pl.part_inf else None,
               'block_reload': pl.server_control.can_block_reload if pl.server_control else None,
               'part_hold_back': pl.server_control.part_hold_back if pl.server_control else None,
               'hint': {'type': pl.preload_hint.hint_type, 'uri': pl.preload_hint.uri} if pl.preload_hint else None,
               'map': {'uri': pl.segment_map[0].uri, 'range': pl.segment_map[0].byterange} if pl.segment_map else None,
               'segments': [{'uri': s.uri, 'duration': s.duration, 'range': s.byterange,
                             'parts': [{'duration': p.duration, 'uri': p.uri, 'independent': p.independent == 'YES', 'range': p.byterange}
                                       for p in s.parts]}
                            for s in pl.segments]}
        print(json.dumps(out))
        """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, path])
        #expect(result.status == 0, "m3u8 \(path): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// Checks the LL-HLS rules on a parsed playlist whose files are in `dir`; returns its parts.
    /// - Parts: each lasts at most `PART-TARGET`; `PART-HOLD-BACK` is at least three part
    ///   targets; `CAN-BLOCK-RELOAD=YES`; a complete segment's parts sum to its `EXTINF`, their
    ///   files joined are its file byte for byte, the first is `INDEPENDENT=YES`; parts are
    ///   listed only within three target durations of the playlist's end; each part file is
    ///   on disk, and `INDEPENDENT=YES` exactly when ffprobe finds a keyframe first in it.
    ///   `openGOP`: a segment's first part may be a CRA kept as a SAP of type 3 (not independent).
    @discardableResult
    static func checkParts(_ playlist: [String: Any], dir: String, partTarget: Double, scratch: Scratch,
                           checkIndependence: Bool = true, openGOP: Bool = false) throws -> [[String: Any]] {
        #expect(playlist["part_target"] as? Double == partTarget)
        #expect(playlist["block_reload"] as? String == "YES")
        let holdBack = try #require(playlist["part_hold_back"] as? Double)
        #expect(holdBack >= 3 * partTarget - 1e-9)
        let target = try #require(playlist["target"] as? Int)
        let map = try #require((playlist["map"] as? [String: Any])?["uri"] as? String)
        let header = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + map))
        let segments = try #require(playlist["segments"] as? [[String: Any]])
        let total = segments.map { segment -> Double in
            let parts = segment["parts"] as? [[String: Any]] ?? []
            return segment["uri"] is String ? (segment["duration"] as? Double ?? 0) : parts.reduce(0) { $0 + ($1["duration"] as? Double ?? 0) }
        }.reduce(0, +)
        var start = 0.0
        var all: [[String: Any]] = []
        for segment in segments {
            let parts = try #require(segment["parts"] as? [[String: Any]])
            var joined = Data()
            var partStart = start
            for part in parts {
                let duration = try #require(part["duration"] as? Double)
                let uri = try #require(part["uri"] as? String)
                #expect(duration <= partTarget + 1e-9, "\(uri) lasts \(duration) s, past PART-TARGET \(partTarget)")
                #expect(total - partStart <= 3 * Double(target) + 1e-6, "\(uri) starts \(total - partStart) s before the end: more than 3 target durations")
                let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + uri))
                joined.append(data)
                if checkIndependence {
                    try scratch.write("part.mp4", header + data)
                    let first = try PackageCommandTests.packets(scratch.file("part.mp4"), stream: "0").first
                    #expect(first?.key == (part["independent"] as? Bool), "\(uri): INDEPENDENT \(part["independent"] ?? "") but keyframe first: \(first?.key as Any)")
                }
                partStart += duration
                all.append(part)
            }
            if let uri = segment["uri"] as? String {
                let duration = try #require(segment["duration"] as? Double)
                if !parts.isEmpty {
                    // An open-GOP CRA kept as a SAP of type 3 starts a part that is not independent.
                    #expect(openGOP || parts.first?["independent"] as? Bool == true, "\(uri): its first part is not independent")
                    #expect(abs(partStart - start - duration) < 1e-5, "\(uri): parts sum to \(partStart - start), EXTINF \(duration)")
                    #expect(joined == (try Data(contentsOf: URL(fileURLWithPath: dir + "/" + uri))), "\(uri) is not its parts joined")
                }
                start += duration
            } else {
                start = partStart
            }
        }
        return all
    }

    @Test func staticLowLatencyPartsFollowTheSpecAndPlay() throws {
        let scratch = try Scratch()
        let (dir, result) = try PackageCommandTests.package([Self.phone], ["--hls", "--dash", "--segment-duration", "2", "--part-duration", "0.5"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        // ffmpeg plays the segments (it skips EXT-X-PART): the source's pictures and audio packets.
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try PackageCommandTests.md5s(dir + "/" + manifest, map: "0:v:0") == PackageCommandTests.md5s(Self.phone, map: "0:v:0"), "\(manifest)")
            #expect(try PackageCommandTests.md5s(dir + "/" + manifest, map: "0:a:0", copy: true)
                    == PackageCommandTests.md5s(Self.phone, map: "0:a:0", copy: true), "\(manifest)")
        }
        for name in ["v0.m3u8", "a0.m3u8"] {
            let playlist = try Self.parseMedia(dir + "/" + name)
            #expect(playlist["endlist"] as? Bool == true && playlist["hint"] is NSNull, "\(name): a VOD playlist has no preload hint")
            #expect(playlist["version"] as? Int == 7)
            let parts = try Self.checkParts(playlist, dir: dir, partTarget: 0.5, scratch: scratch, checkIndependence: name == "v0.m3u8")
            // 10 s at a 2 s target: the last 6 s (three segments) list their parts.
            let segments = try #require(playlist["segments"] as? [[String: Any]])
            #expect(segments.count == 5)
            #expect(segments.map { ($0["parts"] as? [Any])?.count ?? 0 }.filter { $0 > 0 }.count == 3, "\(name)")
            #expect(parts.count >= 12)
        }
        // No part file is left that the playlists do not list.
        let listed = Set(try ["v0.m3u8", "a0.m3u8"].flatMap { name in
            try String(contentsOfFile: dir + "/" + name, encoding: .utf8).split(separator: "\"").map(String.init)
        })
        for file in try FileManager.default.contentsOfDirectory(atPath: dir) where file.contains(".p") {
            #expect(listed.contains(file), "\(file) is on disk but in no playlist")
        }
        try Self.gstreamerPlays(dir + "/master.m3u8")
    }

    /// GStreamer's playbin (hlsdemux2 / dashdemux) plays `path` to fakesinks without error.
    static func gstreamerPlays(_ path: String) throws {
        let gst = ["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let launch = try #require(gst, "GStreamer is needed to play the package")
        let play = try runProgram(launch, ["-q", "playbin", "uri=file://" + path, "video-sink=fakesink", "audio-sink=fakesink"])
        #expect(play.status == 0, "\(path): \(play.stdout) \(play.stderr)")
        #expect(!play.stdout.contains("ERROR") && !play.stderr.contains("ERROR"), "\(path): \(play.stdout) \(play.stderr)")
    }

    @Test func singleFileByteRangesAndSegmentIndexPlay() throws {
        let scratch = try Scratch()
        let (dir, result) = try PackageCommandTests.package([Self.phone], ["--hls", "--dash", "--segment-duration", "2", "--single-file"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                == ["a0.m3u8", "a0.mp4", "manifest.mpd", "master.m3u8", "v0.m3u8", "v0.mp4"])
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try PackageCommandTests.md5s(dir + "/" + manifest, map: "0:v:0") == PackageCommandTests.md5s(Self.phone, map: "0:v:0"), "\(manifest)")
            #expect(try PackageCommandTests.md5s(dir + "/" + manifest, map: "0:a:0", copy: true)
                    == PackageCommandTests.md5s(Self.phone, map: "0:a:0", copy: true), "\(manifest)")
            try Self.gstreamerPlays(dir + "/" + manifest)
        }
        for name in ["v0", "a0"] {
            let playlist = try Self.parseMedia(dir + "/\(name).m3u8")
            let file = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(name).mp4"))
            let map = try #require(playlist["map"] as? [String: Any])
            #expect(map["uri"] as? String == "\(name).mp4")
            let mapRange = try #require((map["range"] as? String)?.split(separator: "@").compactMap { Int($0) })
            #expect(mapRange.count == 2 && mapRange[1] == 0)
            // Byte ranges: in order, inside the file, each a segment that starts with `styp`
            // and a keyframe; the last ends at the end of the file.
            var end = mapRange[0]
            for segment in try #require(playlist["segments"] as? [[String: Any]]) {
                #expect(segment["uri"] as? String == "\(name).mp4")
                let range = try #require((segment["range"] as? String)?.split(separator: "@").compactMap { Int($0) })
                #expect(range.count == 2 && range[1] >= end && range[0] + range[1] <= file.count, "\(range)")
                #expect(String(decoding: file[(range[1] + 4)..<(range[1] + 8)], as: UTF8.self) == "styp")
                end = range[0] + range[1]
            }
            #expect(end == file.count)
            // The MPD's indexRange is the sidx between the init segment and the first segment.
            let mpd = try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8)
            #expect(mpd.contains("urn:mpeg:dash:profile:isoff-on-demand:2011"))
            #expect(mpd.contains("<BaseURL>\(name).mp4</BaseURL>"))
            #expect(mpd.contains("indexRange=\"\(mapRange[0])-"), "\(mpd)")
            #expect(String(decoding: file[(mapRange[0] + 4)..<(mapRange[0] + 8)], as: UTF8.self) == "sidx")
        }
        // ffprobe reads the video file on its own, through its sidx.
        #expect(try PackageCommandTests.md5s(dir + "/v0.mp4", map: "0:v:0") == PackageCommandTests.md5s(Self.phone, map: "0:v:0"))
    }

    /// Parts in one file: `EXT-X-PART` with `BYTERANGE`, one after the other, covering their
    /// segment's range exactly.
    @Test func singleFileWithPartsUsesByteRanges() throws {
        let scratch = try Scratch()
        let (dir, result) = try PackageCommandTests.package([Self.phone], ["--hls", "--segment-duration", "2", "--part-duration", "0.5",
                                                                           "--single-file", "--no-audio"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["master.m3u8", "v0.m3u8", "v0.mp4"])
        #expect(try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0") == PackageCommandTests.md5s(Self.phone, map: "0:v:0"))
        let playlist = try Self.parseMedia(dir + "/v0.m3u8")
        var withParts = 0
        for segment in try #require(playlist["segments"] as? [[String: Any]]) {
            let range = try #require((segment["range"] as? String)?.split(separator: "@").compactMap { Int($0) })
            try #require(range.count == 2)
            let parts = try #require(segment["parts"] as? [[String: Any]])
            guard !parts.isEmpty else { continue }
            withParts += 1
            var next = range[1]
            for part in parts {
                #expect(part["uri"] as? String == "v0.mp4")
                // (The m3u8 package keeps the attribute's quotes.)
                let text = try #require(part["range"] as? String).replacingOccurrences(of: "\"", with: "")
                let partRange = text.split(separator: "@").compactMap { Int($0) }
                try #require(partRange.count == 2, "\(text)")
                #expect(partRange[1] == next, "\(partRange) after \(next)")
                next = partRange[0] + partRange[1]
            }
            #expect(next == range[0] + range[1])
        }
        #expect(withParts == 3)
    }

    @Test func transportStreamSegmentsInOneFile() throws {
        let scratch = try Scratch()
        let (dir, result) = try PackageCommandTests.package([Self.phone], ["--hls", "--segment-type", "ts", "--single-file"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["master.m3u8", "v0.m3u8", "v0.ts"])
        #expect(try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0") == PackageCommandTests.md5s(Self.phone, map: "0:v:0"))
        let playlist = try Self.parseMedia(dir + "/v0.m3u8")
        let segments = try #require(playlist["segments"] as? [[String: Any]])
        #expect(segments.count == 3 && segments.allSatisfy { ($0["range"] as? String)?.contains("@") == true })
    }

    @Test func usageErrors() throws {
        let scratch = try Scratch()
        let out = scratch.file("o")
        #expect(try CLIRunner.run(["package", Self.phone, "-o", out, "--hls", "--segment-type", "ts", "--part-duration", "0.5"]).status == 64)
        #expect(try CLIRunner.run(["package", Self.phone, "-o", out, "--hls", "--segment-duration", "2", "--part-duration", "3"]).status == 64)
        #expect(try CLIRunner.run(["package", Self.phone, "-o", out, "--hls", "--part-duration", "0"]).status == 64)
        #expect(try CLIRunner.run(["package", "-", "-o", out, "--hls", "--live", "--single-file"]).status == 64)
        #expect(try CLIRunner.run(["package", "-", "-o", out, "--hls", "--live", "--window", "0"]).status == 64)
        #expect(try CLIRunner.run(["package", Self.phone, Self.phone, "-o", out, "--hls", "--live"]).status == 64)
    }
}
