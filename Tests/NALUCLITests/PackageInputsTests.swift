import Foundation
import Testing

/// Issue 35, inputs of `nalu package` other than MP4: an MPEG-TS with AAC (the audio its own
/// rendition group, `mp4a.40.2`, its packets byte for byte), Annex-B and length-prefixed
/// streams, and a stream whose resolution changes (in-band parameter sets, `avc3`). ffmpeg
/// reading the `.m3u8` and the `.mpd` from disk decodes the source's pictures (framemd5);
/// GStreamer plays them.
@Suite struct PackageInputsTests {
    typealias Package = PackageCommandTests

    /// The md5 column of ffmpeg's framemd5 of `path`'s stream `map`, with `extra` options before
    /// the output (a bitstream filter).
    static func md5s(_ path: String, map: String, extra: [String]) throws -> [String] {
        let ffmpeg = try #require(ffmpegPath)
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", map] + extra + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "ffmpeg \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count >= 6 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// ffprobe's video packets' decoding times of every segment of `playlist`, each read with its
    /// init segment.
    static func segmentTimes(_ dir: String, playlist: [String: Any], scratch: Scratch) throws -> [Int] {
        let initName = try #require(playlist["map"] as? String)
        let header = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + initName))
        var times: [Int] = []
        for uri in try #require(playlist["uris"] as? [String]) {
            var data = header
            data.append(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + uri)))
            try scratch.write("segment.mp4", data)
            let packets = try Package.packets(scratch.file("segment.mp4"))
            #expect(packets.first?.key == true, "\(uri) does not start with a keyframe")
            times += packets.map(\.dts)
        }
        return times
    }

    static func gstreamerPlays(_ dir: String) throws {
        let gst = ["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let launch = try #require(gst, "GStreamer is needed to play the package")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let play = try runProgram(launch, ["-q", "playbin", "uri=file://" + dir + "/" + manifest, "video-sink=fakesink", "audio-sink=fakesink"])
            #expect(play.status == 0, "\(manifest): \(play.stdout) \(play.stderr)")
            #expect(!play.stdout.contains("ERROR") && !play.stderr.contains("ERROR"), "\(manifest): \(play.stdout) \(play.stderr)")
        }
    }

    /// A 10 s H.264 + AAC transport stream: the pictures through both manifests, the AAC packets
    /// byte for byte (the ADTS headers made an AudioSpecificConfig, as ffmpeg's aac_adtstoasc
    /// does), the audio as its own rendition group, every segment starting with a keyframe at
    /// the PES decoding times of the source (relative to the first).
    @Test func transportStreamWithAACPlaysFromTheHLSAndDASHManifests() throws {
        let scratch = try Scratch()
        let source = Package.realWorld("phone.ts")
        let (dir, result) = try Package.package([source], ["--hls", "--dash", "--segment-duration", "2"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let video = try Package.md5s(source, map: "0:v:0")
        let audio = try Self.md5s(source, map: "0:a:0", extra: ["-c", "copy", "-bsf:a", "aac_adtstoasc"])
        #expect(video.count == 300 && audio.count > 400)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Package.md5s(dir + "/" + manifest, map: "0:v:0") == video, "\(manifest): pictures differ")
            #expect(try Package.md5s(dir + "/" + manifest, map: "0:a:0", copy: true) == audio, "\(manifest): audio packets differ")
        }
        let parsed = try Package.parsePlaylists(dir)
        let variant = try #require((parsed["variants"] as? [[String: Any]])?.first)
        let codecs = try #require(variant["codecs"] as? String)
        #expect(codecs.hasPrefix("avc1.") && codecs.hasSuffix(",mp4a.40.2"), "\(codecs)")
        #expect(variant["audio"] as? String == "audio")
        let media = try #require(parsed["media"] as? [[String: Any]])
        #expect(media.count == 1 && media.first?["type"] as? String == "AUDIO" && media.first?["uri"] as? String == "a0.m3u8")
        // The segments' decoding times are the PES DTS, at 90 kHz, from the first.
        let playlists = try #require(parsed["playlists"] as? [String: [String: Any]])
        let times = try Self.segmentTimes(dir, playlist: try #require(playlists["v0.m3u8"]), scratch: scratch)
        let sourceTimes = try Package.packets(source).map(\.dts)
        #expect(times.count == sourceTimes.count && times.count == 300)
        #expect(times.map { $0 - times[0] } == sourceTimes.map { $0 - sourceTimes[0] })
        // No temporary MP4 is left beside the package.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.hasPrefix(".") })
        try Self.gstreamerPlays(dir)
    }

    /// Raw streams: Annex-B H.265 timed from its VUI, Annex-B H.264 with B-frames timed by
    /// `--fps`, and a length-prefixed stream with its avcC record (`--extradata`).
    @Test func annexBAndLengthPrefixedStreams() throws {
        let scratch = try Scratch()
        let hevc = CLIRunner.fixture("hevc_main.h265")
        let (hevcDir, hevcRun) = try Package.package([hevc], ["--hls", "--dash", "--segment-duration", "1"], in: scratch)
        #expect(hevcRun.status == 0, "\(hevcRun.stderr)")
        let hevcFrames = try Package.md5s(hevc, map: "0:v:0")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Package.md5s(hevcDir + "/" + manifest, map: "0:v:0") == hevcFrames, "\(manifest): pictures differ")
        }
        let hevcVariant = try #require((try Package.parsePlaylists(hevcDir)["variants"] as? [[String: Any]])?.first)
        #expect((hevcVariant["codecs"] as? String)?.hasPrefix("hvc1.") == true)

        let avc = CLIRunner.fixture("avc_high_bframes.h264")
        let other = try Scratch()
        let (avcDir, avcRun) = try Package.package([avc], ["--hls", "--dash", "--fps", "24", "--segment-duration", "1"], in: other)
        #expect(avcRun.status == 0, "\(avcRun.stderr)")
        let avcFrames = try Package.md5s(avc, map: "0:v:0")
        #expect(try Package.md5s(avcDir + "/master.m3u8", map: "0:v:0") == avcFrames)
        let avcPlaylist = try #require((try Package.parsePlaylists(avcDir)["playlists"] as? [String: [String: Any]])?["v0.m3u8"])
        let total = try #require(avcPlaylist["durations"] as? [Double]).reduce(0, +)
        #expect(abs(total - Double(avcFrames.count) / 24) < 0.001, "\(total) s for \(avcFrames.count) pictures at 24 fps")

        let third = try Scratch()
        let (lpDir, lpRun) = try Package.package([CLIRunner.fixture("avc_high_bframes.lp")],
                                                 ["--hls", "--extradata", CLIRunner.fixture("avc_high_bframes.avcC"), "--fps", "24"], in: third)
        #expect(lpRun.status == 0, "\(lpRun.stderr)")
        #expect(try Package.md5s(lpDir + "/master.m3u8", map: "0:v:0") == avcFrames)
    }

    /// A stream whose resolution changes (two x264 streams of 640x360 and 1280x720 joined):
    /// `avc3` with the parameter sets in band, said in a note; ffmpeg decodes every picture.
    @Test func resolutionChangeGoesInBandWithAvc3() throws {
        let scratch = try Scratch()
        var joined = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_640x360.h264")))
        joined.append(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_1280x720.h264"))))
        try scratch.write("joined.h264", joined)
        let source = scratch.file("joined.h264")
        let (dir, result) = try Package.package([source], ["--hls", "--dash", "--segment-duration", "1"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note:") && result.stderr.contains("avc3") && result.stderr.contains("joined.h264")
                && !result.stderr.contains("_input.mp4"), "\(result.stderr)")
        let frames = try Package.md5s(source, map: "0:v:0")
        #expect(frames.count == 50)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Package.md5s(dir + "/" + manifest, map: "0:v:0") == frames, "\(manifest): pictures differ")
        }
        let variant = try #require((try Package.parsePlaylists(dir)["variants"] as? [[String: Any]])?.first)
        #expect((variant["codecs"] as? String)?.hasPrefix("avc3.") == true)
        #expect(variant["resolution"] as? [Int] == [1280, 720])
        let header = try Data(contentsOf: URL(fileURLWithPath: dir + "/v0_init.mp4"))
        #expect(header.range(of: Data("avc3".utf8)) != nil)
        try Self.gstreamerPlays(dir)
    }

    /// The same stream in MPEG-TS segments: the parameter sets in band at each segment start and
    /// at the change, so ffmpeg decodes every picture through the playlist and each segment on
    /// its own decodes all of its pictures (none needs a parameter set of another segment).
    @Test func resolutionChangeInTransportStreamSegments() throws {
        let scratch = try Scratch()
        var joined = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_640x360.h264")))
        joined.append(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_1280x720.h264"))))
        try scratch.write("joined.h264", joined)
        let source = scratch.file("joined.h264")
        let (dir, result) = try Package.package([source], ["--hls", "--segment-type", "ts", "--segment-duration", "0.5"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note:") && result.stderr.contains("in band") && !result.stderr.contains("avc3"), "\(result.stderr)")
        let frames = try Package.md5s(source, map: "0:v:0")
        #expect(frames.count == 50)
        #expect(try Package.md5s(dir + "/master.m3u8", map: "0:v:0") == frames)
        let parsed = try Package.parsePlaylists(dir)
        let variant = try #require((parsed["variants"] as? [[String: Any]])?.first)
        #expect((variant["codecs"] as? String)?.hasPrefix("avc1.") == true)
        #expect(variant["resolution"] as? [Int] == [1280, 720])
        let uris = try #require((parsed["playlists"] as? [String: [String: Any]])?["v0.m3u8"]?["uris"] as? [String])
        #expect(uris.count > 2)
        var decoded: [String] = []
        for uri in uris {
            #expect(try Package.packets(dir + "/" + uri).first?.key == true, "\(uri) does not start with a keyframe")
            decoded += try Package.md5s(dir + "/" + uri, map: "0:v:0")
        }
        // (ffmpeg scales a whole stream's pictures to its first size; one segment keeps its own,
        // so the count is compared here and the pictures through the playlist above.)
        #expect(decoded.count == frames.count, "the segments decoded one by one: \(decoded.count) pictures")
        #expect(Array(decoded.prefix(25)) == Array(frames.prefix(25)))
    }

    /// A transport stream's audio needs a second pass: from standard input it is refused unless
    /// `--no-audio` (nothing is dropped silently).
    @Test func transportStreamAudioFromStandardInputIsRefused() throws {
        let scratch = try Scratch()
        let source = CLIRunner.fixture("ts_avc_aac.ts")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let refused = try CLIRunner.run(["package", "-", "-o", scratch.file("a"), "--hls"], stdin: bytes)
        #expect(refused.status == 65 || refused.status == 69, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("--no-audio"), "\(refused.stderr)")
        let taken = try CLIRunner.run(["package", "-", "-o", scratch.file("b"), "--hls", "--no-audio"], stdin: bytes)
        #expect(taken.status == 0, "\(taken.stderr)")
    }
}
