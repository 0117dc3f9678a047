import Foundation
import Testing

/// Issue 41, items 12, 14 and 16, on the clips Scripts/make-tracks-fixtures.sh makes:
/// `tc_sub_2997.mov` (29.97 fps H.264 + AAC + a `tx3g` subtitle track + a drop-frame `tmcd`
/// timecode track starting at 01:00:00;00, a location) and `hdr10.mp4` (HEVC Main 10 with
/// mastering display and content light level SEI). Every cut carries the subtitles (their
/// packets as ffprobe reads them, clipped to the range) and the timecode, moved to the first
/// picture shown, as ffprobe's `timecode` tag reports it; a cut that cannot carry them exits 2;
/// `info` lists every track as ffprobe does.
@Suite struct TrackCutTests {
    static let movie = CLIRunner.fixture("tracks/tc_sub_2997.mov")
    static let hdr = CLIRunner.fixture("tracks/hdr10.mp4")

    static func ffprobe(_ arguments: [String]) throws -> [String: Any] {
        let result = try runTool("ffprobe", ["-v", "error", "-of", "json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static func streams(_ path: String) throws -> [[String: Any]] {
        try #require(try ffprobe(["-show_streams", path])["streams"] as? [[String: Any]])
    }

    static func tags(_ stream: [String: Any]) -> [String: String] { stream["tags"] as? [String: String] ?? [:] }

    /// The subtitle packets: (pts, duration, size) in seconds.
    static func subtitlePackets(_ path: String) throws -> [(pts: Double, duration: Double, size: Int)] {
        let packets = try #require(try ffprobe(["-select_streams", "s", "-show_packets", path])["packets"] as? [[String: Any]])
        return packets.compactMap { packet in
            guard let pts = (packet["pts_time"] as? String).flatMap(Double.init), let duration = (packet["duration_time"] as? String).flatMap(Double.init),
                  let size = (packet["size"] as? String).flatMap(Int.init) else { return nil }
            return (pts, duration, size)
        }
    }

    /// The source's subtitle packets that overlap `[start, end)`, clipped to it and counted from
    /// `start`: what a cut should hold.
    static func expectedSubtitles(start: Double, end: Double) throws -> [(pts: Double, duration: Double, size: Int)] {
        try subtitlePackets(movie).compactMap { packet in
            let from = max(packet.pts, start), to = min(packet.pts + packet.duration, end)
            return to > from + 0.0005 ? (from - start, to - from, packet.size) : nil
        }
    }

    /// `label` plus `frames` frames of drop-frame 29.97 timecode, counted one label at a time
    /// (SMPTE ST 12-1: ;00 and ;01 do not exist at the start of a minute but every tenth) — an
    /// oracle independent of the library's arithmetic.
    static func dropFrame(_ label: String, plus frames: Int) throws -> String {
        let parts = label.split(whereSeparator: { $0 == ":" || $0 == ";" }).compactMap { Int($0) }
        try #require(parts.count == 4)
        var (h, m, s, f) = (parts[0], parts[1], parts[2], parts[3])
        for _ in 0..<frames {
            f += 1
            if f == 30 { f = 0; s += 1 }
            if s == 60 { s = 0; m += 1 }
            if m == 60 { m = 0; h += 1 }
            if s == 0, f == 0, m % 10 != 0 { f = 2 }
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(h)):\(two(m)):\(two(s));\(two(f))"
    }

    /// The source's timecode (ffprobe's tag on its `tmcd` stream).
    static func sourceTimecode() throws -> String {
        try #require(try streams(movie).compactMap { tags($0)["timecode"] }.first)
    }

    /// Pictures GStreamer's `qtdemux` and `avdec_h264` output from `path`, and ffmpeg's count:
    /// the extra tracks do not disturb either player.
    static func expectPlayersAgree(_ path: String) throws {
        let gst = try runTool("gst-launch-1.0", ["-v", "filesrc", "location=\(path)", "!", "qtdemux", "name=d", "d.video_0", "!", "queue", "!",
                                                 "h264parse", "!", "avdec_h264", "!", "fakesink", "silent=false"])
        #expect(gst.status == 0, "\(gst.stderr)")
        let pictures = gst.stdout.components(separatedBy: "\n").filter { $0.contains("last-message = chain") }.count
        let ffmpeg = try runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                             "-of", "csv=p=0", path])
        #expect(pictures > 0 && "\(pictures)" == ffmpeg.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "GStreamer \(pictures), ffmpeg \(ffmpeg.stdout)")
    }

    static func expectTracks(_ output: String, start: Double, end: Double, firstPicture: Int, subtitlesFrom: Double? = nil) throws {
        try expectPlayersAgree(output)
        let streams = try Self.streams(output)
        #expect(streams.compactMap { $0["codec_tag_string"] as? String } == ["avc1", "mp4a", "tx3g", "tmcd"])
        // The timecode of the first picture shown: the source's plus the pictures before it.
        let timecode = try #require(streams.first { $0["codec_tag_string"] as? String == "tmcd" }.map { tags($0)["timecode"] } ?? nil)
        #expect(timecode == (try dropFrame(try sourceTimecode(), plus: firstPicture)))
        // The video track refers to it (`tref`), so ffprobe shows it on the video as on the source's.
        #expect(tags(streams[0])["timecode"] == timecode)
        // The subtitle packets overlapping the range, clipped to it, times from the cut's start.
        let got = try subtitlePackets(output)
        let expected = try expectedSubtitles(start: subtitlesFrom ?? start, end: end)
        #expect(got.count == expected.count, "\(got) vs \(expected)")
        for (a, b) in zip(got, expected) {
            #expect(abs(a.pts - b.pts) < 0.001 && abs(a.duration - b.duration) < 0.001 && a.size == b.size, "\(got) vs \(expected)")
        }
        #expect(tags(streams[2])["language"] == "eng")
    }

    /// Item 12 and 14: a plain trim keeps the subtitle and timecode tracks: the subtitles clipped
    /// to [3.3, 5.5), the timecode at picture 99's (the first at or after 3.3 s at 29.97 fps).
    @Test func trimCarriesSubtitlesAndTimecode() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.mov")
        let run = try CLIRunner.run(["trim", Self.movie, "--start", "3.3", "--end", "5.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectTracks(output, start: 3.3, end: 5.5, firstPicture: 99)
    }

    /// The same through `trim --smart`: the output starts with picture 99 (at 3.3033 s), its
    /// subtitles from there to the last picture's end.
    @Test func smartTrimCarriesSubtitlesAndTimecode() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.mov")
        let run = try CLIRunner.run(["trim", "--smart", Self.movie, "--start", "3.3", "--end", "5.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        // (No edit list: the tracks run to the last picture's end, picture 165's start.)
        try Self.expectTracks(output, start: 3.3, end: 165.0 * 1001 / 30000, firstPicture: 99, subtitlesFrom: 99.0 * 1001 / 30000)
    }

    /// Item 14: `encode --start 3.3` writes the timecode of its first picture, not the source's
    /// start (01:00:03;09 rather than 01:00:00;00), and the subtitles from 3.3 s.
    @Test func encodeMovesTheTimecode() throws {
        let scratch = try Scratch()
        let output = scratch.file("encoded.mov")
        let run = try CLIRunner.run(["encode", Self.movie, "--start", "3.3", "--end", "5.5", "--preset", "ultrafast", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectTracks(output, start: 3.3, end: 5.5, firstPicture: 99)
    }

    /// The frame numbers of the timecode samples of `path` (ffprobe's packet data: 32-bit big-endian).
    static func timecodeFrames(_ path: String) throws -> [Int] {
        let packets = try #require(try ffprobe(["-select_streams", "d", "-show_packets", "-show_data", path])["packets"] as? [[String: Any]])
        return packets.compactMap { packet in
            guard let dump = packet["data"] as? String, let colon = dump.firstIndex(of: ":") else { return nil }
            let hex = dump[dump.index(after: colon)...].split(separator: " ").prefix(2).joined()
            return Int(hex, radix: 16)
        }
    }

    /// Source subtitle packets of each `[start, end)` clipped to it and laid one after the other.
    static func joinedSubtitles(_ ranges: [(Double, Double)]) throws -> [(pts: Double, duration: Double, size: Int)] {
        var offset = 0.0
        var joined: [(pts: Double, duration: Double, size: Int)] = []
        for (start, end) in ranges {
            joined += try expectedSubtitles(start: start, end: end).map { ($0.pts + offset, $0.duration, $0.size) }
            offset += end - start
        }
        return joined
    }

    /// Item 12 and 14: `trim --keep` joins the subtitle and timecode tracks with the pieces:
    /// each piece's subtitles clipped to it, and one timecode sample per piece holding the
    /// timecode of its first picture (pictures 15 and 90: the first at or after 0.5 s and 3 s).
    @Test func keepJoinsSubtitlesAndTimecode() throws {
        let scratch = try Scratch()
        let output = scratch.file("kept.mov")
        let run = try CLIRunner.run(["trim", Self.movie, "--keep", "0.5-1.5,3-4", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectPlayersAgree(output)
        let streams = try Self.streams(output)
        #expect(streams.compactMap { $0["codec_tag_string"] as? String } == ["avc1", "mp4a", "tx3g", "tmcd"])
        let timecode = try #require(streams.compactMap { Self.tags($0)["timecode"] }.first)
        #expect(timecode == (try Self.dropFrame(try Self.sourceTimecode(), plus: 15)))
        let frames = try Self.timecodeFrames(output)
        #expect(frames.count == 2 && frames[1] - frames[0] == 90 - 15, "\(frames)")
        // Piece k shows pictures [first at/after start, first at/after end): 29.97 fps.
        func picture(_ seconds: Double) -> Double { (seconds * 30000 / 1001).rounded(.up) * 1001 / 30000 }
        let expected = try Self.joinedSubtitles([(picture(0.5), picture(1.5)), (picture(3), picture(4))])
        let got = try Self.subtitlePackets(output)
        #expect(got.count == expected.count, "\(got) vs \(expected)")
        for (a, b) in zip(got, expected) {
            #expect(abs(a.pts - b.pts) < 0.001 && abs(a.duration - b.duration) < 0.001 && a.size == b.size, "\(got) vs \(expected)")
        }
    }

    /// Item 12: `concat` of two such files carries both inputs' subtitles (each input's at its
    /// video's start in the join) and timecode, where it used to drop them with a note and exit 0.
    @Test func concatJoinsSubtitlesAndTimecode() throws {
        let scratch = try Scratch()
        let output = scratch.file("joined.mov")
        let run = try CLIRunner.run(["concat", Self.movie, Self.movie, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let streams = try Self.streams(output)
        #expect(streams.compactMap { $0["codec_tag_string"] as? String } == ["avc1", "mp4a", "tx3g", "tmcd"])
        let video = try #require((streams[0]["duration"] as? String).flatMap(Double.init)) / 2
        // The cues (an empty `tx3g` sample, 2 bytes, is the gap between them; the source's edit
        // ends before its last one, the join shows it up to the next input's video).
        let source = try Self.subtitlePackets(Self.movie).filter { $0.size > 2 }
        let got = try Self.subtitlePackets(output).filter { $0.size > 2 }
        #expect(got.count == 2 * source.count, "\(got)")
        for (index, packet) in got.enumerated() {
            let original = source[index % source.count]
            #expect(abs(packet.pts - (original.pts + Double(index / source.count) * video)) < 0.001 && packet.size == original.size, "\(got)")
        }
        let frames = try Self.timecodeFrames(output)
        #expect(frames.count == 2 && frames[0] == frames[1], "\(frames)")
    }

    /// Item 16: `info --json` lists every track with what ffprobe reports of it (codec, rate,
    /// channels, language, the timecode) and the location.
    @Test func infoListsEveryTrack() throws {
        let run = try CLIRunner.run(["info", "--json", Self.movie])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let container = try #require(object["container"] as? [String: Any])
        let tracks = try #require(container["tracks"] as? [[String: Any]])
        let streams = try Self.streams(Self.movie)
        #expect(tracks.count == streams.count)
        let codecs = ["h264": "h264", "aac": "aac", "mov_text": "mov_text"]
        for (track, stream) in zip(tracks, streams) {
            if let name = stream["codec_name"] as? String, let codec = codecs[name] { #expect(track["codec"] as? String == codec) }
            #expect(track["language"] as? String == Self.tags(stream)["language"])
            if stream["codec_type"] as? String == "audio" {
                #expect(track["sample_rate"] as? Int == (stream["sample_rate"] as? String).flatMap(Int.init))
                #expect(track["channels"] as? Int == stream["channels"] as? Int)
            }
            if let timecode = Self.tags(stream)["timecode"], stream["codec_type"] as? String == "data" {
                #expect(track["timecode"] as? String == timecode)
            }
        }
        let format = try #require(try Self.ffprobe(["-show_format", Self.movie])["format"] as? [String: Any])
        #expect(container["location"] as? String == Self.tags(format)["location"])
        let text = try CLIRunner.run(["info", Self.movie]).stdout
        #expect(text.contains("starts 01:00:00;00 (drop frame)") && text.contains("mov_text") && text.contains("location:"), "\(text)")
    }

    /// Item 14: the pictures `trim --smart` re-encodes at the head keep the source's HDR10
    /// mastering display and content light level SEI: every keyframe of the output carries
    /// both, as ffprobe reads them (the source has them on every IRAP picture).
    @Test func smartTrimKeepsHDRMetadata() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", "--smart", Self.hdr, "--start", "0.5", "--end", "2.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try #require(try Self.ffprobe(["-select_streams", "v", "-show_frames", "-show_entries", "frame=key_frame,side_data_list", output])["frames"]
                                    as? [[String: Any]])
        let keyframes = frames.filter { $0["key_frame"] as? Int == 1 }
        #expect(keyframes.count >= 2)
        for frame in keyframes {
            let types = (frame["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
            #expect(types.contains("Mastering display metadata") && types.contains("Content light level metadata"), "\(types)")
        }
    }

    /// Item 16: `concat` and `package` take `--pid` as `info`, `convert` and `trim` do: the
    /// second program of a two-program transport stream (its HEVC video and its AAC) is read.
    @Test func concatAndPackageTakePID() throws {
        let scratch = try Scratch()
        let input = try TransportStreamProgramsTests.twoPrograms(in: scratch)
        let joined = scratch.file("joined.mp4")
        // (concat joins MP4/MOV inputs' audio only: --no-audio leaves it out on purpose.)
        let run = try CLIRunner.run(["concat", input, input, "--pid", "0x102", "--no-audio", "-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try AudioPathsTests.codecs(joined) == ["hevc"])
        let folder = scratch.file("package")
        let packaged = try CLIRunner.run(["package", input, "--pid", "0x102", "--hls", "-o", folder])
        #expect(packaged.status == 0, "\(packaged.stderr)")
        let master = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
        #expect(master.contains("hvc1") || master.contains("hev1"), "\(master)")
        // encode takes it too: the second program's pictures decoded, its audio carried.
        let encoded = scratch.file("encoded.mp4")
        let encode = try CLIRunner.run(["encode", input, "--pid", "0x102", "--preset", "ultrafast", "--end", "1", "-o", encoded])
        #expect(encode.status == 0, "\(encode.stderr)")
        #expect(try AudioPathsTests.codecs(encoded) == ["h264", "aac"])
        // The second program's pictures: 29.97 fps (the first program's are 30 fps).
        let rate = try runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", encoded])
        #expect(rate.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "30000/1001", "\(rate.stdout)")
        // Without --pid, the program not read is named with exit status 2.
        let unchosen = try CLIRunner.run(["package", input, "--hls", "-o", scratch.file("package2")])
        #expect(unchosen.status == 2 && unchosen.stderr.contains("program 2 (PMT PID 0x1001) not read"), "\(unchosen.stderr)")
    }

    /// GStreamer's reading of the HDR10 messages of `path` (its parser's caps:
    /// `mastering-display-info` and `content-light-level`), for H.264, which ffprobe 5.1 does not read.
    static func gstreamerHDR(_ path: String, parser: String) throws -> [String] {
        let run = try runTool("gst-launch-1.0", ["-v", "filesrc", "location=\(path)", "!", "qtdemux", "!", parser, "!", "fakesink"])
        #expect(run.status == 0, "\(run.stderr)")
        var found: [String] = []
        for key in ["mastering-display-info=(string)", "content-light-level=(string)"] {
            guard let range = run.stdout.range(of: key) else { continue }
            let value = run.stdout[range.upperBound...].prefix { $0 != "," && $0 != "\"" && $0 != " " }
            found.append(key + value)
        }
        return found
    }

    /// Item 14: `encode` with x264 writes the source's mastering display and content light level
    /// SEI (x264's `mastering-display` and `cll`): GStreamer reads the same values from the
    /// H.264 output as from the HEVC source.
    @Test func encodeWithX264KeepsHDRMetadata() throws {
        let scratch = try Scratch()
        let output = scratch.file("x264.mp4")
        let run = try CLIRunner.run(["encode", Self.hdr, "--encoder", "x264", "--preset", "ultrafast", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try Self.gstreamerHDR(Self.hdr, parser: "h265parse")
        #expect(source.count == 2)
        #expect(try Self.gstreamerHDR(output, parser: "h264parse") == source)
    }

    /// Item 14: `trim --keep` re-encodes the head of each range: every keyframe of the joined
    /// output carries the HDR10 messages, as in the source.
    @Test func keepKeepsHDRMetadata() throws {
        let scratch = try Scratch()
        let output = scratch.file("kept.mp4")
        let run = try CLIRunner.run(["trim", Self.hdr, "--keep", "0.3-1.2,1.7-2.6", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try #require(try Self.ffprobe(["-select_streams", "v", "-show_frames", "-show_entries", "frame=key_frame,side_data_list", output])["frames"]
                                    as? [[String: Any]])
        let keyframes = frames.filter { $0["key_frame"] as? Int == 1 }
        #expect(keyframes.count >= 2)
        for frame in keyframes {
            let types = (frame["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
            #expect(types.contains("Mastering display metadata") && types.contains("Content light level metadata"), "\(types)")
        }
    }

    /// Item 16: `info` lists every program of a transport stream with its streams, as ffprobe's
    /// `-show_programs` does: program 2's HEVC video and AAC, not only its number.
    @Test func infoListsEveryProgramsStreams() throws {
        let scratch = try Scratch()
        let input = try TransportStreamProgramsTests.twoPrograms(in: scratch)
        let run = try CLIRunner.run(["info", "--json", input])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let container = try #require(object["container"] as? [String: Any])
        let programs = try #require(container["programs"] as? [[String: Any]])
        let probed = try #require(try Self.ffprobe(["-show_programs", input])["programs"] as? [[String: Any]])
        #expect(programs.count == probed.count)
        for program in probed {
            let number = try #require(program["program_num"] as? Int)
            let ours = try #require(programs.first { $0["program_number"] as? Int == number }, "program \(number)")
            let pids = Set((program["streams"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? String).flatMap { Int($0.dropFirst(2), radix: 16) } })
            let listed = Set((ours["streams"] as? [[String: Any]] ?? []).compactMap { $0["pid"] as? Int })
            #expect(listed == pids, "program \(number): \(listed) vs ffprobe's \(pids)")
        }
        let text = try CLIRunner.run(["info", input]).stdout
        #expect(text.contains("  stream:"), "\(text)")
    }

    /// Item 12: `trim --keep` and `concat --smart` of a transport stream with AAC and AC-3 join
    /// both streams (before: the AAC only, the AC-3 dropped with exit 0); `--no-audio` leaves the
    /// audio out on purpose (exit 0).
    @Test func keepJoinsTransportStreamAACAndAC3() throws {
        let scratch = try Scratch()
        let input = scratch.file("ac3.ts")
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=3",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-map", "0:v", "-map", "1:a", "-map", "1:a",
                                          "-c:v", "libx264", "-g", "25", "-c:a:0", "aac", "-c:a:1", "ac3", "-f", "mpegts", input])
        #expect(made.status == 0, "\(made.stderr)")
        for arguments in [["trim", input, "--keep", "0.5-1,2-2.5"], ["concat", "--smart", input + "@0.5-1", input + "@2-2.5"]] {
            let output = scratch.file("kept.mp4")
            let run = try CLIRunner.run(arguments + ["-o", output])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(try AudioPathsTests.codecs(output) == ["h264", "aac", "ac3"])
            let quiet = try CLIRunner.run(arguments + ["--no-audio", "-o", scratch.file("quiet.mp4")])
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(try AudioPathsTests.codecs(scratch.file("quiet.mp4")) == ["h264"])
        }
    }

    /// Item 12: an output that cannot hold subtitle and timecode tracks (MPEG-TS, Annex-B) is
    /// written, and the exit status 2 names them, never 0 with a note.
    @Test func transportStreamOutputNamesTheTracksItCannotHold() throws {
        let scratch = try Scratch()
        for (name, arguments) in [("cut.ts", ["trim", Self.movie, "--start", "1", "--end", "2"]), ("whole.ts", ["convert", Self.movie]),
                                  ("cut.h264", ["trim", Self.movie, "--start", "1", "--end", "2", "--no-audio"])] {
            let output = scratch.file(name)
            let run = try CLIRunner.run(arguments + ["-o", output])
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("track 3 (sbtl, tx3g)") && run.stderr.contains("track 4 (tmcd, tmcd)") && run.stderr.contains("MP4 output"),
                    "\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: output))
        }
    }

    /// Item 14: the chunks of a distributed encode (`encode --chunk I/2`) each carry the
    /// timecode of their first picture (the second starts at picture 90 of 180), and their join
    /// holds one timecode sample per chunk and every cue where the source has it.
    @Test func chunksCarryTheirTimecode() throws {
        let scratch = try Scratch()
        var parts: [String] = []
        for index in 0..<2 {
            let part = scratch.file("part\(index).mov")
            let run = try CLIRunner.run(["encode", Self.movie, "--chunk", "\(index)/2", "--preset", "ultrafast", "-o", part])
            #expect(run.status == 0, "\(run.stderr)")
            let timecode = try Self.streams(part).compactMap { Self.tags($0)["timecode"] }.first
            #expect(timecode == (try Self.dropFrame(try Self.sourceTimecode(), plus: 90 * index)))
            parts.append(part)
        }
        let joined = scratch.file("joined.mov")
        let run = try CLIRunner.run(["concat"] + parts + ["-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Self.timecodeFrames(joined)
        #expect(frames.count == 2 && frames[1] - frames[0] == 90, "\(frames)")
        // Each source cue is shown from its start to its end (a cue across the chunks' boundary
        // in two samples of the same text).
        let got = try Self.subtitlePackets(joined).filter { $0.size > 2 }
        for cue in try Self.subtitlePackets(Self.movie).filter({ $0.size > 2 }) {
            let covering = got.filter { $0.size == cue.size && $0.pts < cue.pts + cue.duration - 0.0005 && $0.pts + $0.duration > cue.pts + 0.0005 }
            let start = covering.map(\.pts).min() ?? -1, end = covering.map { $0.pts + $0.duration }.max() ?? -1
            #expect(abs(start - cue.pts) < 0.001 && abs(end - (cue.pts + cue.duration)) < 0.001, "cue \(cue) shown as \(covering)")
        }
    }
}
