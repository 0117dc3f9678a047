import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35 item 5: `nalu package - --live` reads an MPEG-TS stream (x264 through ffmpeg: 12 s,
/// a keyframe every second, B-frames) or an Annex-B stream (`nalu encode -o -`) from a pipe and writes each segment and part as soon as
/// it is complete, with a sliding-window LL-HLS playlist and a dynamic MPD; `EXT-X-ENDLIST`
/// when the input ends or on SIGTERM. Checked with the `m3u8` package, Python's XML parser and
/// ffmpeg decoding the segments.
@Suite(.serialized) struct PackageLiveTests {
    /// A 12 s, 30 fps H.264 transport stream from ffmpeg (libx264, GOP 30, 2 B-frames), with an
    /// AAC track when `audio`.
    static func stream(_ scratch: Scratch, audio: Bool = false) throws -> String {
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file(audio ? "live-audio.ts" : "live.ts")
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=192x108:rate=30"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"] }
        arguments += ["-t", "12", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0", "-bf", "2"]
        arguments += audio ? ["-c:a", "aac"] : ["-an"]
        let result = try runProgram(ffmpeg, arguments + ["-f", "mpegts", "-y", path])
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    static let liveArguments = ["--hls", "--dash", "--live", "--window", "3", "--segment-duration", "1", "--part-duration", "0.5"]

    /// Waits (at most 20 s) until `ready` holds.
    static func waitUntil(_ ready: () -> Bool) {
        for _ in 0..<2000 {
            if ready() { return }
            usleep(10_000)
        }
    }

    /// The dynamic MPD's attributes and its timeline (`startNumber`, the `S` elements' t, d, r).
    static func parseMPD(_ path: String) throws -> [String: Any] {
        let script = """
        import json, sys, xml.etree.ElementTree as ET
        ns = {'d': 'urn:mpeg:dash:schema:mpd:2011'}
        root = ET.parse(sys.argv[1]).getroot()
        template = root.find('.//d:SegmentTemplate', ns)
        print(json.dumps({'attributes': root.attrib, 'startNumber': int(template.get('startNumber')),
                          'timeline': [dict(s.attrib) for s in template.findall('.//d:S', ns)]}))
        """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// Segments the `S` elements describe (1 + r each).
    static func timelineCount(_ mpd: [String: Any]) -> Int {
        (mpd["timeline"] as? [[String: String]] ?? []).reduce(0) { $0 + 1 + Int($1["r"] ?? "0")! }
    }

    @Test func aPipeThatStallsAndResumes() throws {
        let scratch = try Scratch()
        let source = try Self.stream(scratch)
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let dir = scratch.file("out")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = Pipe()
        let run = try RunningNalu(["package", "-", "-o", dir] + Self.liveArguments, stdin: input)
        try input.fileHandleForReading.close()
        // Half the stream, then a stall.
        let half = data.count / 2 / 188 * 188
        input.fileHandleForWriting.write(data[0..<half])
        let playlistPath = dir + "/v0.m3u8"
        Self.waitUntil { (try? String(contentsOfFile: playlistPath, encoding: .utf8))?.contains("v0_00004.m4s\n") == true }
        usleep(300_000)
        let middle = try PackageLowLatencyTests.parseMedia(playlistPath)
        #expect(middle["endlist"] as? Bool == false, "the playlist ended while the pipe is open")
        #expect(middle["type"] is NSNull, "a sliding-window playlist has no EXT-X-PLAYLIST-TYPE")
        let hint = try #require(middle["hint"] as? [String: Any], "no EXT-X-PRELOAD-HINT mid-stream")
        #expect(hint["type"] as? String == "PART")
        let hinted = try #require(hint["uri"] as? String)
        #expect(!FileManager.default.fileExists(atPath: dir + "/" + hinted), "the hinted part \(hinted) exists already")
        let middleSegments = try #require(middle["segments"] as? [[String: Any]])
        #expect(middleSegments.filter { $0["uri"] is String }.count == 3, "window of 3: \(middleSegments)")
        try PackageLowLatencyTests.checkParts(middle, dir: dir, partTarget: 0.5, scratch: scratch)
        let middleMPD = try Self.parseMPD(dir + "/manifest.mpd")
        let attributes = try #require(middleMPD["attributes"] as? [String: String])
        #expect(attributes["type"] == "dynamic")
        #expect(attributes["availabilityStartTime"]?.hasSuffix("Z") == true && attributes["publishTime"] != nil)
        #expect(attributes["minimumUpdatePeriod"] == "PT1.000S" && attributes["timeShiftBufferDepth"] == "PT3.000S")
        #expect(attributes["mediaPresentationDuration"] == nil)
        #expect(Self.timelineCount(middleMPD) == 3)
        #expect(middleMPD["startNumber"] as? Int == middle["sequence"] as? Int)
        // The rest, then the end of the input.
        input.fileHandleForWriting.write(data[half...])
        try input.fileHandleForWriting.close()
        #expect(run.wait() == 0, "\(run.stderr)")
        let final = try PackageLowLatencyTests.parseMedia(playlistPath)
        #expect(final["endlist"] as? Bool == true && final["hint"] is NSNull)
        let segments = try #require(final["segments"] as? [[String: Any]])
        #expect(segments.count == 3)
        #expect(final["sequence"] as? Int == 10, "12 one-second segments, the last 3 listed")
        try PackageLowLatencyTests.checkParts(final, dir: dir, partTarget: 0.5, scratch: scratch)
        // The window slid: segments 1–5 are gone (kept: the window and as many again, plus one).
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.contains(hinted), "the part hinted mid-stream, \(hinted), never came")
        for number in 1...5 { #expect(!names.contains(String(format: "v0_%05d.m4s", number)), "segment \(number) is still there") }
        for number in 6...12 { #expect(names.contains(String(format: "v0_%05d.m4s", number)), "segment \(number) is missing") }
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(names)")
        let finalMPD = try Self.parseMPD(dir + "/manifest.mpd")
        let finalAttributes = try #require(finalMPD["attributes"] as? [String: String])
        // Ended: static (issue 41 item 18), lasting the 3 s of the window it lists.
        #expect(finalAttributes["type"] == "static", "\(finalAttributes)")
        #expect(finalAttributes["mediaPresentationDuration"] == "PT3.000S" && finalAttributes["minimumUpdatePeriod"] == nil)
        #expect(finalAttributes["timeShiftBufferDepth"] == nil)
        #expect(finalMPD["startNumber"] as? Int == 10 && Self.timelineCount(finalMPD) == 3)
        // ffmpeg's DASH demuxer reads it to the end (a finished MPD left dynamic kept it
        // waiting for updates at 100% CPU): the window's 90 pictures.
        let played = try runTool("/usr/bin/timeout", ["60", "ffmpeg", "-nostdin", "-v", "error", "-i", dir + "/manifest.mpd",
                                                      "-map", "0:v:0", "-f", "framemd5", "-"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 90)
        // The window's pictures are the source's last 90.
        let sourceFrames = try PackageCommandTests.md5s(source, map: "0:v:0")
        #expect(sourceFrames.count == 360)
        var joined = try Data(contentsOf: URL(fileURLWithPath: dir + "/v0_init.mp4"))
        for segment in segments { joined.append(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + (segment["uri"] as? String ?? "")))) }
        try scratch.write("window.mp4", joined)
        #expect(try PackageCommandTests.md5s(scratch.file("window.mp4"), map: "0:v:0") == Array(sourceFrames.suffix(90)))
    }

    /// A window that holds everything: ffmpeg reading the final playlist decodes every picture;
    /// GStreamer plays it. (The dynamic MPD is checked by its structure: players take it by the
    /// wall clock, and a stream packaged faster than real time is not available yet.)
    @Test func everyPictureOfTheStream() throws {
        let scratch = try Scratch()
        let source = try Self.stream(scratch)
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--live", "--window", "100", "--segment-duration", "2"],
                                       stdin: try Data(contentsOf: URL(fileURLWithPath: source)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0") == PackageCommandTests.md5s(source, map: "0:v:0"))
        let playlist = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        #expect((playlist["segments"] as? [Any])?.count == 6 && playlist["sequence"] as? Int == 1 && playlist["endlist"] as? Bool == true)
        #expect(playlist["part_target"] is NSNull)
        let variants = try #require(try PackageCommandTests.parsePlaylists(dir)["variants"] as? [[String: Any]])
        #expect((variants.first?["codecs"] as? String)?.hasPrefix("avc1.") == true)
        #expect(variants.first?["resolution"] as? [Int] == [192, 108])
        try PackageLowLatencyTests.gstreamerPlays(dir + "/master.m3u8")
    }

    /// What `nalu encode … -o -` writes (Annex-B, here HEVC with B-frames): timed from the SPS's
    /// VUI frame rate, presented in picture-order-count order; the pictures are the stream's.
    @Test(arguments: ["h264", "h265"]) func annexBFromNaluEncode(codec: String) throws {
        let scratch = try Scratch()
        let encoded = try CLIRunner.run(["encode", "--codec", codec, "--test-pattern", "--size", "192x108", "--frames", "120", "--keyint", "30",
                                         "--bframes", "3", "--preset", "fast", "--quiet", "-o", "-"])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        try scratch.write("stream.bin", encoded.stdoutBytes)
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--live", "--window", "100", "--segment-duration", "1",
                                        "--part-duration", "0.5"], stdin: encoded.stdoutBytes)
        #expect(result.status == 0, "\(result.stderr)")
        let source = try PackageCommandTests.md5s(scratch.file("stream.bin"), map: "0:v:0")
        #expect(source.count == 120)
        #expect(try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0") == source)
        let playlist = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        #expect((playlist["segments"] as? [Any])?.count == 4 && playlist["endlist"] as? Bool == true)
        try PackageLowLatencyTests.checkParts(playlist, dir: dir, partTarget: 0.5, scratch: scratch)
        let variants = try #require(try PackageCommandTests.parsePlaylists(dir)["variants"] as? [[String: Any]])
        #expect((variants.first?["codecs"] as? String)?.hasPrefix(codec == "h264" ? "avc1." : "hvc1.") == true, "\(variants)")
        #expect(variants.first?["frame_rate"] as? Double == 30)
    }

    @Test func sigtermEndsThePlaylist() throws {
        let scratch = try Scratch()
        let data = try Data(contentsOf: URL(fileURLWithPath: try Self.stream(scratch)))
        let dir = scratch.file("out")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = Pipe()
        let run = try RunningNalu(["package", "-", "-o", dir] + Self.liveArguments, stdin: input)
        try input.fileHandleForReading.close()
        input.fileHandleForWriting.write(data[0..<(data.count / 2 / 188 * 188)])
        Self.waitUntil { FileManager.default.fileExists(atPath: dir + "/v0_00002.m4s") }
        usleep(300_000)
        run.signal(SIGTERM)
        #expect(run.wait() == 143, "\(run.stderr)")
        let playlist = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        #expect(playlist["endlist"] as? Bool == true && playlist["hint"] is NSNull)
        let segments = try #require(playlist["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty && segments.allSatisfy { $0["uri"] is String })
        for segment in segments {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + (segment["uri"] as? String ?? "")))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(names)")
        // The picture being read when the signal came is left out, not cut short: the window
        // decodes without an error (md5s checks ffmpeg's stderr), every picture one of the source's.
        var joined = try Data(contentsOf: URL(fileURLWithPath: dir + "/v0_init.mp4"))
        for segment in segments { joined.append(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + (segment["uri"] as? String ?? "")))) }
        try scratch.write("window.mp4", joined)
        let pictures = try PackageCommandTests.md5s(scratch.file("window.mp4"), map: "0:v:0")
        let source = Set(try PackageCommandTests.md5s(scratch.file("live.ts"), map: "0:v:0"))
        #expect(!pictures.isEmpty && pictures.allSatisfy(source.contains))
        #expect(run.stderr.contains("not packaged: it may be incomplete") || run.stderr.isEmpty, "\(run.stderr)")
        #expect(try Self.parseMPD(dir + "/manifest.mpd")["attributes"].flatMap { ($0 as? [String: String])?["mediaPresentationDuration"] } != nil)
        try input.fileHandleForWriting.close()
    }

    /// Other streams are not dropped silently: AAC becomes the audio rendition (issue 41 item
    /// 17; PackageLiveAudioTests), --no-audio leaves it out by request; an input that is no
    /// transport stream is refused.
    @Test func refusals() throws {
        let scratch = try Scratch()
        let withAudio = try Data(contentsOf: URL(fileURLWithPath: try Self.stream(scratch, audio: true)))
        let carried = try CLIRunner.run(["package", "-", "-o", scratch.file("a"), "--hls", "--live"], stdin: withAudio)
        #expect(carried.status == 0 && FileManager.default.fileExists(atPath: scratch.file("a") + "/a0.m3u8"), "\(carried.status) \(carried.stderr)")
        let dropped = try CLIRunner.run(["package", "-", "-o", scratch.file("b"), "--hls", "--live", "--no-audio"], stdin: withAudio)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b") + "/a0.m3u8"))
        let mp4 = try Data(contentsOf: URL(fileURLWithPath: PackageLowLatencyTests.phone))
        let notTS = try CLIRunner.run(["package", "-", "-o", scratch.file("c"), "--hls", "--live"], stdin: mp4)
        #expect(notTS.status == 65 && notTS.stderr.contains("MPEG transport stream") && notTS.stderr.contains("Annex-B"), "\(notTS.status) \(notTS.stderr)")
    }
}
