import Foundation
import Testing

/// Issue 35: `nalu package` writes CMAF segments with HLS playlists and a DASH MPD. Checked with
/// real tools on the real-world fixtures: ffmpeg reading the `.m3u8` and the `.mpd` from disk
/// decodes the source's pictures (framemd5) and copies its audio packets byte for byte, ffprobe
/// finds a keyframe first in every segment and the source's decoding time in its `tfdt`, the
/// playlists parse with the `m3u8` Python package, GStreamer's playbin plays them.
@Suite struct PackageCommandTests {
    static func realWorld(_ name: String) -> String { CLIRunner.fixture("realworld/" + name) }
    static let ffprobePath = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe", "/opt/homebrew/bin/ffprobe"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The md5 column of ffmpeg's framemd5 of `path`'s stream `map` (decoded video, or copied
    /// packets with `copy`).
    static func md5s(_ path: String, map: String, copy: Bool = false) throws -> [String] {
        let ffmpeg = try #require(ffmpegPath, "ffmpeg is needed to compare pictures")
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", map] + (copy ? ["-c", "copy"] : [])
                                    + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "ffmpeg \(path): \(result.stderr)")
        #expect(result.stderr.isEmpty, "ffmpeg \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { line in
                // stream, dts, pts, duration, size, hash (then side data, which a copy may not keep).
                let fields = line.split(separator: ",")
                return fields.count >= 6 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
            }
    }

    /// Packages `inputs` into a new folder; returns it and the run.
    static func package(_ inputs: [String], _ extra: [String] = ["--hls", "--dash"], in scratch: Scratch) throws -> (dir: String, result: CLIRunner.Result) {
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package"] + inputs + ["-o", dir] + extra)
        return (dir, result)
    }

    /// The playlists parsed by the `m3u8` package (PyPI): per media playlist, its version, target
    /// duration, EXTINF durations, segment URIs, map URI, endlist and independent-segments
    /// flags; for the multivariant playlist, each variant's attributes and the media renditions.
    static func parsePlaylists(_ dir: String) throws -> [String: Any] {
        let script = """
        import json, sys, m3u8
        d = sys.argv[1]
        master = m3u8.load(d + '/master.m3u8')
        out = {'variants': [], 'media': [], 'playlists': {}}
        assert master.is_variant
        for p in master.playlists:
            si = p.stream_info
            out['variants'].append({'uri': p.uri, 'bandwidth': si.bandwidth, 'average': si.average_bandwidth,
                                    'codecs': si.codecs, 'resolution': list(si.resolution), 'frame_rate': si.frame_rate, 'audio': si.audio})
        for m in master.media:
            out['media'].append({'type': m.type, 'uri': m.uri, 'group': m.group_id})
        for uri in [p.uri for p in master.playlists] + [m.uri for m in master.media]:
            pl = m3u8.load(d + '/' + uri)
            out['playlists'][uri] = {'version': pl.version, 'target': pl.target_duration, 'durations': [s.duration for s in pl.segments],
                                     'uris': [s.uri for s in pl.segments], 'map': pl.segment_map[0].uri if pl.segment_map else None,
                                     'endlist': pl.is_endlist, 'independent': pl.is_independent_segments}
        print(json.dumps(out))
        """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, dir])
        #expect(result.status == 0, "m3u8: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// ffprobe's packets of `path` (first stream): dts and whether each is a keyframe.
    static func packets(_ path: String, stream: String = "v:0") throws -> [(dts: Int, key: Bool)] {
        let ffprobe = try #require(ffprobePath)
        let result = try runProgram(ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", "packet=dts,flags", "-of", "csv=p=0", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let dts = Int(fields[0]) else { return nil }
            return (dts, fields[1].hasPrefix("K"))
        }
    }

    /// Each segment of `playlist` concatenated with its init segment, as ffprobe reads it: the
    /// first packet of every segment is a keyframe, and its decoding time is one the source has.
    static func checkSegments(_ dir: String, playlist: [String: Any], source: String, scratch: Scratch) throws -> Int {
        let sourceTimes = Set(try packets(source).map(\.dts))
        let initName = try #require(playlist["map"] as? String)
        let header = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + initName))
        let uris = try #require(playlist["uris"] as? [String])
        var checked = 0
        for uri in uris {
            var data = header
            data.append(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + uri)))
            try scratch.write("segment.mp4", data)
            let list = try packets(scratch.file("segment.mp4"))
            let first = try #require(list.first, "\(uri) has no video packet")
            #expect(first.key, "\(uri) does not start with a keyframe")
            #expect(sourceTimes.contains(first.dts), "\(uri) starts at dts \(first.dts), a time the source has no sample at")
            checked += 1
        }
        return checked
    }

    @Test func h264WithBFramesAndAACPlaysFromTheHLSAndDASHManifests() throws {
        let scratch = try Scratch()
        let source = Self.realWorld("phone.mp4")
        let (dir, result) = try Self.package([source], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        // Pictures and audio packets, through each manifest.
        let video = try Self.md5s(source, map: "0:v:0")
        let audio = try Self.md5s(source, map: "0:a:0", copy: true)
        #expect(video.count == 300)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Self.md5s(dir + "/" + manifest, map: "0:v:0") == video, "\(manifest): pictures differ")
            #expect(try Self.md5s(dir + "/" + manifest, map: "0:a:0", copy: true) == audio, "\(manifest): audio packets differ")
        }
        let parsed = try Self.parsePlaylists(dir)
        let variants = try #require(parsed["variants"] as? [[String: Any]])
        #expect(variants.count == 1)
        let variant = try #require(variants.first)
        // avc1.PPCCLL from the SPS: ffprobe says High (100 = 0x64) at level 13 (0x0d).
        #expect(variant["codecs"] as? String == "avc1.64000d,mp4a.40.2")
        #expect(variant["resolution"] as? [Int] == [320, 180])
        #expect(variant["frame_rate"] as? Double == 30)
        #expect(variant["audio"] as? String == "audio")
        let peak = try #require(variant["bandwidth"] as? Int)
        let average = try #require(variant["average"] as? Int)
        #expect(peak >= average && average > 0)
        // The measured average: all segment bytes over the duration.
        var bytes = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name.hasSuffix(".m4s") {
            bytes += try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)).count
        }
        #expect(abs(Double(average) - Double(bytes) * 8 / 10.0) < 2000, "average \(average) vs \(bytes) bytes in 10 s")
        let media = try #require(parsed["media"] as? [[String: Any]])
        #expect(media.count == 1 && media.first?["type"] as? String == "AUDIO")
        let playlists = try #require(parsed["playlists"] as? [String: [String: Any]])
        for (uri, playlist) in playlists {
            let durations = try #require(playlist["durations"] as? [Double])
            let target = try #require(playlist["target"] as? Int)
            #expect(target == durations.map { Int($0.rounded()) }.max(), "\(uri): target \(target) for \(durations)")
            #expect(playlist["endlist"] as? Bool == true && playlist["independent"] as? Bool == true)
            #expect(playlist["version"] as? Int == 7)
            #expect(abs(durations.reduce(0, +) - 10) < 0.05, "\(uri): \(durations) do not sum to the 10 s source")
        }
        let v0 = try #require(playlists["v0.m3u8"])
        #expect(try Self.checkSegments(dir, playlist: v0, source: source, scratch: scratch) == (v0["uris"] as? [String])?.count)
        // The audio segments start where the video's do on the presentation timeline (within one
        // AAC frame, 1024 / 48000 s): the audio's first 1024 samples (ffprobe's first packet at
        // -1024) are priming, before time 0.
        let priming = -Double(try Self.packets(source, stream: "a:0").first?.dts ?? 0) / 48000
        #expect(priming > 0)
        let videoDurations = try #require(v0["durations"] as? [Double])
        let audioDurations = try #require(playlists["a0.m3u8"]?["durations"] as? [Double])
        #expect(videoDurations.count == audioDurations.count)
        var videoEnd = 0.0, audioEnd = 0.0
        for (videoDuration, audioDuration) in zip(videoDurations, audioDurations).dropLast() {
            videoEnd += videoDuration
            audioEnd += audioDuration
            #expect(abs(videoEnd - (audioEnd - priming)) <= 1024.0 / 48000 + 0.0001, "segment ends \(videoEnd) (video) and \(audioEnd) (audio)")
        }
    }

    @Test func variableFrameRateSegmentsKeepTheSourceTimes() throws {
        let scratch = try Scratch()
        let source = Self.realWorld("vfr.mp4")
        let (dir, result) = try Self.package([source], ["--hls", "--segment-duration", "2"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.md5s(dir + "/master.m3u8", map: "0:v:0") == Self.md5s(source, map: "0:v:0"))
        let playlists = try #require(try Self.parsePlaylists(dir)["playlists"] as? [String: [String: Any]])
        let v0 = try #require(playlists["v0.m3u8"])
        // Each segment's EXTINF is the distance between the source's keyframes that start it.
        let packets = try Self.packets(source)
        let keyTimes = packets.filter(\.key).map(\.dts)
        let ffprobe = try #require(Self.ffprobePath)
        let timeBase = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", source])
        let parts = timeBase.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Double($0) }
        let tick = try #require(parts.count == 2 ? parts[0] / parts[1] : nil)
        let durations = try #require(v0["durations"] as? [Double])
        var starts = [0.0]
        for duration in durations.dropLast() { starts.append(starts.last! + duration) }
        let origin = Double(packets.first?.dts ?? 0) * tick
        for start in starts {
            #expect(keyTimes.contains { abs(Double($0) * tick - origin - start) < 0.000_5 }, "a segment starts at \(start) s, where the source has no keyframe")
        }
        #expect(try Self.checkSegments(dir, playlist: v0, source: source, scratch: scratch) == durations.count)
    }

    @Test func hevcSegmentsAreHvc1WithTheCodecStringOfTheSPS() throws {
        let scratch = try Scratch()
        let source = Self.realWorld("hevc_2997.mov")
        let (dir, result) = try Self.package([source], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Self.md5s(dir + "/" + manifest, map: "0:v:0") == Self.md5s(source, map: "0:v:0"), "\(manifest)")
            #expect(try Self.md5s(dir + "/" + manifest, map: "0:a:0", copy: true) == Self.md5s(source, map: "0:a:0", copy: true), "\(manifest)")
        }
        let ffprobe = try #require(Self.ffprobePath)
        let probe = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string,profile,level",
                                             "-of", "default=nw=1", dir + "/v0_init.mp4"])
        #expect(probe.stdout.contains("codec_tag_string=hvc1"), "\(probe.stdout)")
        #expect(probe.stdout.contains("profile=Main\n") && probe.stdout.contains("level=60"), "\(probe.stdout)")
        let variants = try #require(try Self.parsePlaylists(dir)["variants"] as? [[String: Any]])
        // Main (general_profile_idc 1, compatibility flags 1 and 2: 6), Main tier, level 60 (2).
        #expect((variants.first?["codecs"] as? String)?.hasPrefix("hvc1.1.6.L60.") == true, "\(variants)")
    }

    /// Two renditions of one source: x264 at two bit rates with the same fixed GOP align; with a
    /// different GOP they do not, and `package` names the rendition and the time (exit 65).
    @Test func renditionsMustHaveAlignedKeyframes() throws {
        let scratch = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        let source = Self.realWorld("phone.mp4")
        func encode(_ name: String, bitrate: String, gop: String) throws -> String {
            let path = scratch.file(name)
            let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", source, "-t", "6", "-c:v", "libx264", "-preset", "ultrafast",
                                                 "-b:v", bitrate, "-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-c:a", "copy", "-y", path])
            #expect(result.status == 0, "\(result.stderr)")
            return path
        }
        let high = try encode("high.mp4", bitrate: "400k", gop: "60")
        let low = try encode("low.mp4", bitrate: "100k", gop: "60")
        let odd = try encode("odd.mp4", bitrate: "100k", gop: "45")
        let (dir, aligned) = try Self.package([high, low], ["--hls", "--segment-duration", "2"], in: scratch)
        #expect(aligned.status == 0, "\(aligned.stderr)")
        let variants = try #require(try Self.parsePlaylists(dir)["variants"] as? [[String: Any]])
        #expect(variants.count == 2)
        let bandwidths = variants.compactMap { $0["bandwidth"] as? Int }
        #expect(bandwidths.count == 2 && bandwidths[0] > bandwidths[1], "\(bandwidths)")
        #expect(try Self.md5s(dir + "/v1.m3u8", map: "0:v:0") == Self.md5s(low, map: "0:v:0"))

        let other = try Scratch()
        let (_, refused) = try Self.package([high, odd], ["--hls", "--segment-duration", "2"], in: other)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("rendition v1") && refused.stderr.contains("odd.mp4") && refused.stderr.contains("2.000 s"), "\(refused.stderr)")
        let third = try Scratch()
        let (_, forced) = try Self.package([high, odd], ["--hls", "--segment-duration", "2", "--no-align-check"], in: third)
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    /// `--segment-type ts`: each segment starts with PAT and PMT, then a keyframe; continuity
    /// counters run on across segments; the pictures and the decoded audio are the source's
    /// (the AAC priming frame, hidden by the source's edit list, plays in a transport stream).
    @Test func transportStreamSegments() throws {
        let scratch = try Scratch()
        let source = Self.realWorld("phone.mp4")
        let (dir, result) = try Self.package([source], ["--hls", "--segment-type", "ts"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.md5s(dir + "/master.m3u8", map: "0:v:0") == Self.md5s(source, map: "0:v:0"))
        let sourceAudio = try Self.md5s(source, map: "0:a:0")
        let audio = try Self.md5s(dir + "/master.m3u8", map: "0:a:0")
        #expect(audio.count == sourceAudio.count + 1 && Array(audio.dropFirst()) == sourceAudio)
        let playlists = try #require(try Self.parsePlaylists(dir)["playlists"] as? [String: [String: Any]])
        let uris = try #require(playlists["v0.m3u8"]?["uris"] as? [String])
        #expect(uris.count == 3 && uris.allSatisfy { $0.hasSuffix(".ts") })
        var patContinuity: [Int] = []
        for uri in uris {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + uri)))
            #expect(data.count % 188 == 0 && data.count >= 376)
            // PAT (PID 0), then PMT (PID 0x1000, FFmpeg's), first.
            #expect(data[0] == 0x47 && Int(data[1] & 0x1F) << 8 | Int(data[2]) == 0, "\(uri)")
            #expect(Int(data[189] & 0x1F) << 8 | Int(data[190]) == 0x1000, "\(uri)")
            patContinuity.append(Int(data[3] & 0x0F))
            try scratch.write("segment.ts", Data(data))
            #expect(try Self.packets(scratch.file("segment.ts")).first?.key == true, "\(uri) does not start with a keyframe")
        }
        // The PAT's continuity counter goes on from segment to segment (never restarts at 0).
        #expect(Set(patContinuity).count == patContinuity.count, "\(patContinuity)")
    }

    @Test func gstreamerPlaysTheHLSAndDASHPackages() throws {
        let gst = ["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let launch = try #require(gst, "GStreamer is needed to play the package")
        let scratch = try Scratch()
        let (dir, result) = try Self.package([Self.realWorld("phone.mp4")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let play = try runProgram(launch, ["-q", "playbin", "uri=file://" + dir + "/" + manifest, "video-sink=fakesink", "audio-sink=fakesink"])
            #expect(play.status == 0, "\(manifest): \(play.stdout) \(play.stderr)")
            #expect(!play.stdout.contains("ERROR") && !play.stderr.contains("ERROR"), "\(manifest): \(play.stdout) \(play.stderr)")
        }
    }

    @Test func usageErrors() throws {
        let scratch = try Scratch()
        let source = Self.realWorld("phone.mp4")
        #expect(try CLIRunner.run(["package", source, "-o", scratch.file("a")]).status == 64)
        #expect(try CLIRunner.run(["package", source, "-o", scratch.file("b"), "--hls", "--segment-type", "mkv"]).status == 64)
        #expect(try CLIRunner.run(["package", scratch.file("missing.mp4"), "-o", scratch.file("c"), "--hls"]).status == 66)
        // Nothing is left under a temporary name.
        let (dir, result) = try Self.package([source], ["--hls"], in: scratch)
        #expect(result.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.hasPrefix(".") })
    }
}
