import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 41 item 17: `… -c:v libx264 -c:a aac -f mpegts - | nalu package - --live` carries the
/// AAC stream as its own rendition (`a0`, as `package` of a file), read in the same pass over the
/// pipe: its init segment and segments cut at the video's segment starts, `EXT-X-MEDIA:TYPE=AUDIO`
/// in the multivariant playlist, an audio adaptation set in the MPD, the sliding window and
/// deletion applied to it, both playlists ended on every exit path. Measured against the input
/// TS: every audio packet after the first picture present byte for byte (ffmpeg through both
/// manifests), A/V sync by content with Scripts/avsync.py, GStreamer playing the HLS package,
/// `nalu doctor` clean.
@Suite(.serialized) struct PackageLiveAudioTests {
    /// A 12 s transport stream from ffmpeg: testsrc2 at 30 fps (libx264, a keyframe every
    /// second, 2 B-frames) and 48 kHz AAC of seeded pink noise plus a rising tone (every window
    /// different, so Scripts/avsync.py can place it), `-f mpegts` as a live encoder writes it.
    static func stream(_ scratch: Scratch, seconds: Int = 12, mp2: Bool = false) throws -> String {
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file("live-av.ts")
        let audio = "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=\(seconds)[n];"
            + "aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=\(seconds)[t];[n][t]amix=inputs=2:normalize=0[a]"
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30"]
        if mp2 { arguments += ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"] }
        arguments += ["-filter_complex", audio, "-map", "0:v", "-map", "[a]"]
        if mp2 { arguments += ["-map", "1:a", "-c:a:1", "mp2"] }
        arguments += ["-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
                      "-bf", "2", "-c:a:0", "aac", "-b:a:0", "128k", "-f", "mpegts", "-y", path]
        let result = try runProgram(ffmpeg, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// The audio packets of `path` (md5 of each packet's bytes, ADTS headers removed for a TS).
    static func audioPackets(_ path: String, adts: Bool = false) throws -> [String] {
        try AudioPathsTests.audioPackets(path, adts: adts)
    }

    /// The first packaged AAC frame is the source's frame number `dropped` (those before the
    /// first picture are left out, with a note), and every one after it is there, in order.
    static func checkAudioPackets(_ packaged: [String], source: [String], note: String) {
        let start = packaged.first.flatMap { source.firstIndex(of: $0) }
        #expect(start != nil, "\(note): the first packaged AAC frame is none of the source's")
        guard let start else { return }
        #expect(start <= 3, "\(note): \(start) frames of the source before the first packaged one")
        #expect(packaged == Array(source[start...]), "\(note): \(packaged.count) packets, the source has \(source.count - start) from its frame \(start)")
    }

    @Test func audioAndVideoFromOnePassOverThePipe() throws {
        let scratch = try Scratch()
        let source = try Self.stream(scratch)
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--dash", "--live", "--window", "100", "--segment-duration", "2"],
                                       stdin: try Data(contentsOf: URL(fileURLWithPath: source)))
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.contains("a0_init.mp4") && names.contains("a0.m3u8") && names.contains("a0_00006.m4s"), "\(names.sorted())")
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(names)")
        // The multivariant playlist's audio group, as `package` of a file writes it.
        let parsed = try PackageCommandTests.parsePlaylists(dir)
        let media = try #require(parsed["media"] as? [[String: Any]])
        #expect(media.count == 1 && media.first?["type"] as? String == "AUDIO" && media.first?["uri"] as? String == "a0.m3u8", "\(media)")
        let variants = try #require(parsed["variants"] as? [[String: Any]])
        #expect(variants.first?["audio"] as? String == "audio" && (variants.first?["codecs"] as? String)?.hasSuffix(",mp4a.40.2") == true, "\(variants)")
        // Both media playlists ended, six segments each, cut at the same places (within a frame).
        let video = try PackageLowLatencyTests.parseMedia(dir + "/v0.m3u8")
        let audio = try PackageLowLatencyTests.parseMedia(dir + "/a0.m3u8")
        #expect(video["endlist"] as? Bool == true && audio["endlist"] as? Bool == true)
        let videoSegments = try #require(video["segments"] as? [[String: Any]])
        let audioSegments = try #require(audio["segments"] as? [[String: Any]])
        #expect(videoSegments.count == 6 && audioSegments.count == 6, "\(videoSegments.count) video, \(audioSegments.count) audio segments")
        for (v, a) in zip(videoSegments, audioSegments).dropLast() {
            let difference = abs((v["duration"] as? Double ?? 0) - (a["duration"] as? Double ?? 9))
            #expect(difference < 0.0214, "segment durations \(v["duration"] ?? "-") and \(a["duration"] ?? "-"): more than one AAC frame apart")
        }
        // ffmpeg through both manifests: the source's pictures, and its AAC packets byte for byte.
        let sourcePictures = try PackageCommandTests.md5s(source, map: "0:v:0")
        let sourceAudio = try Self.audioPackets(source, adts: true)
        #expect(sourcePictures.count == 360 && sourceAudio.count > 560)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try PackageCommandTests.md5s(dir + "/" + manifest, map: "0:v:0") == sourcePictures, "\(manifest)")
            Self.checkAudioPackets(try Self.audioPackets(dir + "/" + manifest), source: sourceAudio, note: manifest)
        }
        // A/V by content, on the playlist itself and on a file ffmpeg made from it.
        for at in [1.0, 6.0, 10.0] {
            let shift = try AudioPathsTests.shift(source, dir + "/master.m3u8", at: at)
            #expect(abs(shift) <= 5, "master.m3u8 at \(at) s: A/V \(shift) ms")
        }
        let copied = scratch.file("copied.mp4")
        let copy = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", dir + "/master.m3u8", "-c", "copy", "-y", copied])
        #expect(copy.status == 0, "\(copy.stderr)")
        let shift = try AudioPathsTests.shift(source, copied, at: 5)
        #expect(abs(shift) <= 5, "ffmpeg -c copy of the package: A/V \(shift) ms")
        try PackageLowLatencyTests.gstreamerPlays(dir + "/master.m3u8")
        let doctor = try CLIRunner.run(["doctor", dir])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
    }

    /// LL-HLS with a sliding window of 3: the audio's window slides with the video's, its old
    /// segments and parts are deleted, its playlist lists parts; the window plays in sync.
    @Test func slidingWindowWithParts() throws {
        let scratch = try Scratch()
        let source = try Self.stream(scratch)
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir] + PackageLiveTests.liveArguments,
                                       stdin: try Data(contentsOf: URL(fileURLWithPath: source)))
        #expect(result.status == 0, "\(result.stderr)")
        let audio = try PackageLowLatencyTests.parseMedia(dir + "/a0.m3u8")
        #expect(audio["endlist"] as? Bool == true && audio["sequence"] as? Int == 10, "\(audio)")
        #expect((audio["segments"] as? [Any])?.count == 3)
        try PackageLowLatencyTests.checkParts(audio, dir: dir, partTarget: 0.5, scratch: scratch)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        for number in 1...5 { #expect(!names.contains(String(format: "a0_%05d.m4s", number)), "audio segment \(number) is still there") }
        for number in 6...12 { #expect(names.contains(String(format: "a0_%05d.m4s", number)), "audio segment \(number) is missing") }
        #expect(!names.contains { $0.hasPrefix("a0_00001.p") }, "parts of a deleted audio segment left")
        let mpd = try PackageLiveTests.parseMPD(dir + "/manifest.mpd")
        #expect((mpd["attributes"] as? [String: String])?["type"] == "static")
        let manifest = try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8)
        #expect(manifest.contains("contentType=\"audio\"") && manifest.contains("a0_$Number%05d$.m4s"))
        // Every AAC packet of the window's span is there: through either manifest, the source's
        // frames from where the window starts to the end, byte for byte, lasting the window's 3 s
        // (within a frame).
        let sourceAudio = try Self.audioPackets(source, adts: true)
        for name in ["master.m3u8", "manifest.mpd"] {
            let packaged = try Self.audioPackets(dir + "/" + name)
            let start = try #require(packaged.first.flatMap { sourceAudio.firstIndex(of: $0) }, "\(name): the first AAC frame is none of the source's")
            #expect(packaged == Array(sourceAudio[start...]), "\(name): \(packaged.count) packets, the source has \(sourceAudio.count - start) from frame \(start)")
            let seconds = Double(packaged.count) * 1024 / 48_000
            #expect(abs(seconds - 3) < 0.043, "\(name): \(packaged.count) AAC frames (\(seconds) s) in a 3 s window")
        }
        // The window (the last 3 s) in sync, through HLS and DASH.
        for name in ["master.m3u8", "manifest.mpd"] {
            let copied = scratch.file(name + ".mp4")
            let copy = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", dir + "/" + name, "-c", "copy", "-y", copied])
            #expect(copy.status == 0, "\(copy.stderr)")
            let shift = try AudioPathsTests.shift(source, copied, at: 1)
            #expect(abs(shift) <= 5, "\(name) window: A/V \(shift) ms")
        }
    }

    /// SIGINT mid-stream: both playlists end (EXT-X-ENDLIST), every segment they name is there.
    @Test func sigintEndsBothPlaylists() throws {
        let scratch = try Scratch()
        let data = try Data(contentsOf: URL(fileURLWithPath: try Self.stream(scratch)))
        let dir = scratch.file("out")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = Pipe()
        let run = try RunningNalu(["package", "-", "-o", dir] + PackageLiveTests.liveArguments, stdin: input)
        try input.fileHandleForReading.close()
        input.fileHandleForWriting.write(data[0..<(data.count / 2 / 188 * 188)])
        PackageLiveTests.waitUntil { FileManager.default.fileExists(atPath: dir + "/a0_00002.m4s") }
        usleep(300_000)
        run.signal(SIGINT)
        #expect(run.wait() == 130, "\(run.stderr)")
        for name in ["v0", "a0"] {
            let playlist = try PackageLowLatencyTests.parseMedia(dir + "/\(name).m3u8")
            #expect(playlist["endlist"] as? Bool == true && playlist["hint"] is NSNull, "\(name)")
            let segments = try #require(playlist["segments"] as? [[String: Any]])
            #expect(!segments.isEmpty)
            for segment in segments {
                #expect(FileManager.default.fileExists(atPath: dir + "/" + (segment["uri"] as? String ?? "")), "\(name): \(segment)")
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(names)")
        try input.fileHandleForWriting.close()
    }

    /// A stream that is not AAC (here MP2 beside the AAC) is refused, named; `--no-audio`
    /// packages the video alone, by request.
    @Test func otherStreamsAreRefusedByName() throws {
        let scratch = try Scratch()
        let source = try Self.stream(scratch, seconds: 4, mp2: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let refused = try CLIRunner.run(["package", "-", "-o", scratch.file("a"), "--hls", "--live"], stdin: data)
        #expect(refused.status == 65 && (refused.stderr.contains("MPEG-1 audio") || refused.stderr.contains("MPEG-2 audio")) && refused.stderr.contains("--no-audio"),
                "\(refused.status) \(refused.stderr)")
        let dropped = try CLIRunner.run(["package", "-", "-o", scratch.file("b"), "--hls", "--live", "--no-audio"], stdin: data)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b") + "/a0.m3u8"))
    }

    /// Issue 41 item 17, second part: two ffmpeg encodes of different sizes (320x180 for 0–4 s,
    /// then 480x270 for 4–8 s, times running on) joined as one transport stream. The parameter
    /// sets change at the second piece's IDR: a new init segment (`v0_init_2.mp4`, `avc3` with
    /// the sets in band), `EXT-X-DISCONTINUITY` + the new `EXT-X-MAP` in the video playlist (and
    /// the discontinuity in the audio's at the same segment), a second DASH Period. ffmpeg
    /// through the playlist decodes every picture of the joined stream (md5) and every AAC
    /// packet, A/V in sync by content on both sides of the change; GStreamer plays it.
    @Test func parameterSetChangeStartsANewPeriod() throws {
        let scratch = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        let audio = "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=8,atrim=start=%START%:end=%END%,asetpts=PTS-STARTPTS[n];"
            + "aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=8,atrim=start=%START%:end=%END%,asetpts=PTS-STARTPTS[t];[n][t]amix=inputs=2:normalize=0[a]"
        var joined = Data()
        for (index, piece) in [("320x180", 0, ["-output_ts_offset", "0"]), ("480x270", 4, ["-output_ts_offset", "4.1"])].enumerated() {
            let path = scratch.file("piece\(index).ts")
            let graph = audio.replacingOccurrences(of: "%START%", with: "\(piece.1)").replacingOccurrences(of: "%END%", with: "\(piece.1 + 4)")
            let video = "testsrc2=size=\(piece.0):rate=30,trim=start=\(piece.1):end=\(piece.1 + 4),setpts=PTS-STARTPTS"
            let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", video, "-filter_complex", graph,
                                                 "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30",
                                                 "-keyint_min", "30", "-sc_threshold", "0", "-bf", "2", "-c:a", "aac"] + piece.2
                                                + ["-f", "mpegts", "-y", path])
            #expect(result.status == 0, "\(result.stderr)")
            joined.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        try scratch.write("joined.ts", joined)
        let source = scratch.file("joined.ts")
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--dash", "--live", "--window", "100", "--segment-duration", "1"],
                                       stdin: joined)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("v0_init_2.mp4"), "\(result.stderr)")
        let video = try String(contentsOfFile: dir + "/v0.m3u8", encoding: .utf8)
        #expect(video.components(separatedBy: "#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"v0_init_2.mp4\"").count == 2, "\(video)")
        let audioPlaylist = try String(contentsOfFile: dir + "/a0.m3u8", encoding: .utf8)
        #expect(audioPlaylist.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 2, "\(audioPlaylist)")
        // The discontinuity is at the same segment number in both playlists.
        func numberAfterDiscontinuity(_ text: String) -> String? {
            let lines = text.split(separator: "\n")
            guard let at = lines.firstIndex(of: "#EXT-X-DISCONTINUITY") else { return nil }
            return lines[at...].first { $0.hasSuffix(".m4s") }.map { String($0.suffix(9)) }
        }
        #expect(numberAfterDiscontinuity(video) != nil && numberAfterDiscontinuity(video) == numberAfterDiscontinuity(audioPlaylist))
        // CODECS names both periods' video (RFC 8216 4.3.4.2); RESOLUTION the larger.
        let master = try String(contentsOfFile: dir + "/master.m3u8", encoding: .utf8)
        #expect(master.contains("RESOLUTION=480x270") && master.contains("CODECS=\"avc1.") && master.contains(",avc3."), "\(master)")
        let mpd = try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8)
        #expect(mpd.components(separatedBy: "<Period ").count == 3 && mpd.contains("initialization=\"v0_init_2.mp4\""), "\(mpd)")
        #expect(mpd.contains("width=\"320\" height=\"180\"") && mpd.contains("width=\"480\" height=\"270\""), "\(mpd)")
        // doctor: each init segment's codec declared, each period's renditions aligned on their own.
        let doctor = try CLIRunner.run(["doctor", dir])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
        // Every picture and AAC packet, through the playlist, and A/V in sync before and after the change.
        #expect(try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0") == PackageCommandTests.md5s(source, map: "0:v:0"))
        Self.checkAudioPackets(try Self.audioPackets(dir + "/master.m3u8"), source: try Self.audioPackets(source, adts: true), note: "master.m3u8")
        for at in [2.0, 6.0] {
            let shift = try AudioPathsTests.shift(source, dir + "/master.m3u8", at: at)
            #expect(abs(shift) <= 5, "at \(at) s: A/V \(shift) ms")
        }
        try PackageLowLatencyTests.gstreamerPlays(dir + "/master.m3u8")
        // A window that starts after the change counts it in EXT-X-DISCONTINUITY-SEQUENCE and maps the new init.
        let window = scratch.file("window")
        let slid = try CLIRunner.run(["package", "-", "-o", window, "--hls", "--live", "--window", "2", "--segment-duration", "1"], stdin: joined)
        #expect(slid.status == 0, "\(slid.stderr)")
        let last = try String(contentsOfFile: window + "/v0.m3u8", encoding: .utf8)
        #expect(last.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n") && last.contains("#EXT-X-MAP:URI=\"v0_init_2.mp4\"")
                && !last.contains("#EXT-X-DISCONTINUITY\n"), "\(last)")
    }

    /// A stream joined mid-GOP whose next keyframe is 18 s away (GOP of 20 s): the audio before
    /// the first picture is left out with a note (it was held until then, and would have grown
    /// past the limit), the audio from the first keyframe on is packaged, in sync.
    @Test func joinedFarBeforeTheFirstKeyframe() throws {
        let scratch = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file("long-gop.ts")
        let audio = "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=26[n];"
            + "aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=26[t];[n][t]amix=inputs=2:normalize=0[a]"
        let made = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-filter_complex", audio,
                                           "-map", "0:v", "-map", "[a]", "-t", "26", "-c:v", "libx264", "-preset", "ultrafast", "-g", "600",
                                           "-keyint_min", "600", "-sc_threshold", "0", "-bf", "0", "-c:a", "aac", "-f", "mpegts", "-y", path])
        #expect(made.status == 0, "\(made.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        // From about 2 s in (a packet boundary): the next keyframe is at 20 s.
        let joined = data[(data.count * 2 / 26 / 188 * 188)...]
        try scratch.write("joined.ts", Data(joined))
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--live", "--window", "100", "--segment-duration", "2"], stdin: Data(joined))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("AAC frame(s) before the first packaged picture were not packaged"), "\(result.stderr)")
        let packaged = try Self.audioPackets(dir + "/master.m3u8")
        let sourceAudio = try Self.audioPackets(path, adts: true)
        let start = try #require(packaged.first.flatMap { sourceAudio.firstIndex(of: $0) })
        // The first packaged frame is the one at the keyframe (20 s: frame 937 or so of 48 kHz AAC).
        #expect(abs(Double(start) * 1024 / 48_000 - 20) < 0.1, "the audio starts at frame \(start)")
        #expect(packaged == Array(sourceAudio[start...]))
        // The pictures: the source's from its second keyframe (20 s) on, 6 s of them; the
        // slices before the stream's first parameter sets are counted in a note.
        #expect(result.stderr.contains("slice NAL unit(s) before the stream's first parameter sets"), "\(result.stderr)")
        let pictures = try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0")
        #expect(pictures == Array(try PackageCommandTests.md5s(path, map: "0:v:0").suffix(180)), "\(pictures.count) pictures")
        let shift = try AudioPathsTests.shift(path, dir + "/master.m3u8", at: 2)
        #expect(abs(shift) <= 5, "A/V \(shift) ms")
    }

    /// The video ends after 2 s while the AAC runs on to 16 s: memory stays bounded (the audio
    /// is placed without waiting past 10 s) and nothing is dropped: every AAC packet from the
    /// first picture on, the 60 pictures.
    @Test func audioThatOutlastsTheVideo() throws {
        let scratch = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file("short-video.ts")
        let audio = "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=16[n];"
            + "aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=16[t];[n][t]amix=inputs=2:normalize=0[a]"
        let made = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-t", "2", "-i", "testsrc2=size=160x90:rate=30",
                                           "-filter_complex", audio, "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast",
                                           "-g", "30", "-bf", "0", "-c:a", "aac", "-f", "mpegts", "-y", path])
        #expect(made.status == 0, "\(made.stderr)")
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--live", "--window", "100", "--segment-duration", "1"],
                                       stdin: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(result.status == 0, "\(result.stderr)")
        let sourceAudio = try Self.audioPackets(path, adts: true)
        #expect(sourceAudio.count > 740)
        Self.checkAudioPackets(try Self.audioPackets(dir + "/a0.m3u8"), source: sourceAudio, note: "a0.m3u8")
        #expect(try PackageCommandTests.md5s(dir + "/v0.m3u8", map: "0:v:0").count == 60)
    }

    /// The same change in an Annex-B pipe (two ffmpeg encodes, 64x64 then 96x96, the shape
    /// `nalu encode … -o -` restarted with another size gives): every picture through the
    /// playlist, `doctor` clean. (Before, exit 65 "live packaging keeps one set per stream".)
    @Test func parameterSetChangeInAnAnnexBPipe() throws {
        let scratch = try Scratch()
        let data = try PackageHardeningTests.annexB(scratch, name: "a.h264") + PackageHardeningTests.annexB(scratch, name: "b.h264", size: "96x96")
        try scratch.write("ab.h264", data)
        let dir = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", dir, "--hls", "--dash", "--live", "--window", "100", "--segment-duration", "1"], stdin: data)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/v0_init_2.mp4"))
        let pictures = try PackageCommandTests.md5s(dir + "/master.m3u8", map: "0:v:0")
        let sourcePictures = try PackageCommandTests.md5s(scratch.file("ab.h264"), map: "0:v:0")
        #expect(pictures.count == 120 && pictures == sourcePictures)
        let doctor = try CLIRunner.run(["doctor", dir])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
    }
}
