import Foundation
import Testing

/// What ffmpeg carries, carried (issue 41, item 13), on Scripts/make-audio-fixtures.sh's files:
/// AC-3 (ATSC and DVB signalling) and MPEG-1 Layer II from a transport stream into MP4 and
/// MPEG-TS, and three AAC tracks with languages. Each output is measured against the source:
/// every audio stream's packet count, its packets byte for byte (framemd5 of `-c copy`) and their
/// times from the first picture (ffprobe), the languages, A/V sync by content (Scripts/avsync.py,
/// ≤ 5 ms), and GStreamer decoding the whole audio (`decodebin`).
@Suite struct AudioCarriageTests {
    static func clip(_ name: String) -> String { CLIRunner.fixture("audio/\(name)") }

    /// One audio stream as ffprobe/ffmpeg see it.
    struct AudioStream: Equatable, CustomStringConvertible {
        var codec: String
        var language: String?
        /// MD5 of each packet's bytes (AAC without ADTS headers).
        var packets: [String]
        /// Each packet's PTS less the first picture's, in ms (rounded to 0.1 ms).
        var times: [Double]
        var description: String { "\(codec) \(language ?? "-") \(packets.count) packets" }
    }

    /// Every audio stream of `path` in order.
    static func audio(_ path: String) throws -> [AudioStream] {
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name:stream_tags=language",
                                            "-of", "json", path])
        #expect(probe.status == 0, "\(probe.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        let described = (json?["streams"] as? [[String: Any]]) ?? []
        // Times from the first picture (an audio-only file: from 0).
        let start = try packetTimes(path, "v:0").min() ?? 0
        var streams: [AudioStream] = []
        for (index, stream) in described.enumerated() {
            let codec = stream["codec_name"] as? String ?? "?"
            let language = (stream["tags"] as? [String: Any])?["language"] as? String
            let hashes = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:\(index)", "-c", "copy"]
                                     + (codec == "aac" ? ["-bsf:a", "aac_adtstoasc"] : []) + ["-f", "framemd5", "-"])
            #expect(hashes.status == 0, "\(hashes.stderr)")
            let packets = hashes.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> String? in
                let fields = line.split(separator: ",")
                return fields.count >= 6 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
            }
            let times = try packetTimes(path, "a:\(index)")
            streams.append(AudioStream(codec: codec, language: language == "und" ? nil : language, packets: packets,
                                       times: times.map { (($0 - start) * 10_000).rounded() / 10 }))
        }
        return streams
    }

    /// The PTS (s) of every packet of the stream `selector` (`v:0`, `a:1`) as ffprobe reads them.
    static func packetTimes(_ path: String, _ selector: String) throws -> [Double] {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", selector, "-show_entries", "packet=pts_time", "-of", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return ((json?["packets"] as? [[String: Any]]) ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
    }

    /// Seconds of each audio stream GStreamer decodes from `path` (`decodebin`, mono S16 at 48 kHz).
    static func gstreamerSeconds(_ path: String, streams: Int) throws -> [Double] {
        let scratch = try Scratch()
        var seconds: [Double] = []
        for index in 0..<streams {
            let raw = scratch.file("audio\(index).raw")
            var arguments = ["-q", "filesrc", "location=\(path)", "!", "decodebin", "name=d"]
            // Every decoded pad but the one measured goes to a fakesink.
            for other in 0..<streams where other != index {
                arguments += ["d.src_\(other + 1)", "!", "queue", "!", "fakesink", "sync=false"]
            }
            arguments += ["d.src_0", "!", "queue", "!", "fakesink", "sync=false",
                          "d.src_\(index + 1)", "!", "queue", "!", "audioconvert", "!", "audioresample", "!",
                          "audio/x-raw,format=S16LE,channels=1,rate=48000", "!", "filesink", "location=\(raw)"]
            let result = try runTool("gst-launch-1.0", arguments)
            #expect(result.status == 0, "gst-launch: \(result.stderr)")
            let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? nil
            seconds.append(Double(size ?? 0) / 2 / 48_000)
        }
        return seconds
    }

    /// `source` converted to `ext` carries every audio stream as ffmpeg reads it in `source`.
    func expectCarried(_ name: String, to ext: String, codecs: [String], languages: [String?]) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let output = scratch.file("out.\(ext)")
        let run = try CLIRunner.run(["convert", source, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        let expected = try Self.audio(source)
        let got = try Self.audio(output)
        #expect(got.map(\.codec) == codecs, "\(name) → \(ext)")
        #expect(got.map(\.language) == languages, "\(name) → \(ext)")
        try #require(got.count == expected.count)
        for (index, (have, want)) in zip(got, expected).enumerated() {
            #expect(have.packets.count == want.packets.count && have.packets.count > 100, "\(name) → \(ext), stream \(index): \(have.packets.count) packets, ffprobe \(want.packets.count)")
            #expect(have.packets == want.packets, "\(name) → \(ext), stream \(index): the packets' bytes differ")
            // Times from the first picture: the same to 0.1 ms (MP4 holds them in 1/48000 s).
            #expect(zip(have.times, want.times).allSatisfy { abs($0 - $1) <= 0.1 }, "\(name) → \(ext), stream \(index): \(have.times.prefix(4)) vs \(want.times.prefix(4))")
        }
        let shift = try AudioPathsTests.shift(source, output)
        #expect(abs(shift) <= 5, "\(name) → \(ext): A/V \(shift) ms")
        let decoded = try Self.gstreamerSeconds(output, streams: got.count)
        #expect(decoded.allSatisfy { abs($0 - 4) < 0.1 }, "\(name) → \(ext): GStreamer decodes \(decoded) s")
    }

    @Test(arguments: ["mp4", "ts"]) func ac3FromTransportStream(ext: String) throws {
        try expectCarried("ts_ac3.ts", to: ext, codecs: ["ac3"], languages: [nil])
    }

    @Test(arguments: ["mp4", "ts"]) func dvbAC3FromTransportStream(ext: String) throws {
        try expectCarried("ts_ac3_dvb.ts", to: ext, codecs: ["ac3"], languages: [nil])
    }

    @Test(arguments: ["mp4", "ts"]) func layerIIFromTransportStream(ext: String) throws {
        // ffmpeg names MPEG audio in MP4 (objectTypeIndication 0x6B) mp3, as it does for its own `-c copy`.
        try expectCarried("ts_mp2.ts", to: ext, codecs: [ext == "mp4" ? "mp3" : "mp2"], languages: [nil])
    }

    @Test(arguments: ["mp4", "ts"]) func threeAACStreamsFromTransportStream(ext: String) throws {
        try expectCarried("three_aac.ts", to: ext, codecs: ["aac", "aac", "aac"], languages: ["eng", "fra", "deu"])
    }

    @Test(arguments: ["ts", "mp4"]) func threeAACTracksFromMP4(ext: String) throws {
        try expectCarried("three_aac.mp4", to: ext, codecs: ["aac", "aac", "aac"], languages: ["eng", "fra", "deu"])
    }

    /// An MP4's `ac-3` track (language fra) and MPEG audio track (`mp4a`, objectTypeIndication
    /// 0x6B) into MPEG-TS: stream types 0x81 and 0x03, as ffmpeg writes them.
    @Test func ac3AndLayerIIFromMP4IntoTransportStream() throws {
        try expectCarried("ac3.mp4", to: "ts", codecs: ["ac3"], languages: ["fra"])
        try expectCarried("mp2.mp4", to: "ts", codecs: ["mp2"], languages: [nil])
    }

    /// The MP4 sample entries are the ones ffmpeg writes for the same streams: `ac-3` with a
    /// `dac3` of the same bytes, `mp4a` with objectTypeIndication 0x6B.
    @Test func sampleEntriesMatchFFmpeg() throws {
        let scratch = try Scratch()
        for (name, box) in [("ts_ac3.ts", "dac3"), ("ts_mp2.ts", "esds")] {
            let ours = scratch.file("\(name).nalu.mp4")
            let theirs = scratch.file("\(name).ffmpeg.mp4")
            #expect(try CLIRunner.run(["convert", Self.clip(name), "-o", ours]).status == 0)
            #expect(try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", Self.clip(name), "-map", "0:a", "-c", "copy", theirs]).status == 0)
            let a = try Self.box(box, in: ours), b = try Self.box(box, in: theirs)
            if box == "dac3" {
                #expect(a == b, "dac3 \(a) vs ffmpeg's \(b)")
            } else {
                // esds: the DecoderConfigDescriptor's objectTypeIndication (after tag 0x04 and its size).
                #expect(Self.objectType(a) == 0x6B && Self.objectType(b) == 0x6B, "objectTypeIndication \(Self.objectType(a)) vs ffmpeg's \(Self.objectType(b))")
            }
        }
    }

    /// `trim --start 1.3 --end 3.1` of each fixture into MP4 and MPEG-TS carries every audio
    /// stream, with its language, as one unbroken run of the source's packets (byte for byte)
    /// that covers the range (1.8 s, two frames more at each end at most: the frames overlapping the ends and the decoder's lead-in), in sync by content.
    @Test(arguments: [("ts_ac3.ts", "mp4"), ("ts_ac3.ts", "ts"), ("ts_mp2.ts", "mp4"), ("ts_mp2.ts", "ts"),
                      ("three_aac.ts", "mp4"), ("three_aac.ts", "ts"), ("three_aac.mp4", "ts"), ("three_aac.mp4", "mp4")])
    func trimCarriesEveryAudioStream(name: String, ext: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let output = scratch.file("cut.\(ext)")
        let run = try CLIRunner.run(["trim", source, "--start", "1.3", "--end", "3.1", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.audio(source)
        let got = try Self.audio(output)
        #expect(got.map(\.language) == expected.map(\.language), "\(name) → \(ext)")
        try #require(got.count == expected.count, "\(name) → \(ext): \(got.count) audio streams, the source has \(expected.count)")
        for (index, (have, want)) in zip(got, expected).enumerated() {
            let first = try #require(have.packets.first)
            let at = try #require(want.packets.firstIndex(of: first), "\(name) → \(ext), stream \(index): a packet not in the source")
            #expect(Array(want.packets[at..<min(want.packets.count, at + have.packets.count)]) == have.packets,
                    "\(name) → \(ext), stream \(index): not one run of the source's packets")
            // Frame durations: 32 ms (AC-3), 24 ms (Layer II), 21.3 ms (AAC) at 48 kHz.
            let frame = have.codec == "ac3" ? 0.032 : have.codec == "aac" ? 1024.0 / 48_000 : 0.024
            let covered = Double(have.packets.count) * frame
            #expect(covered >= 1.8 && covered <= 1.8 + 4 * frame, "\(name) → \(ext), stream \(index): \(covered) s of audio")
        }
        // Past the lead-in pictures a transport stream shows before --start (it has no edit list).
        let shift = try AudioPathsTests.shift(source, output, at: ext == "ts" ? 1.6 : 0.5)
        #expect(abs(shift) <= 5, "\(name) → \(ext): A/V \(shift) ms")
    }

    /// `concat` of two cuts of the three-track MP4 into MP4 and MPEG-TS: three joined tracks with
    /// their languages, each the source's packets in order (byte for byte, every packet of the
    /// source but at most one per join), in sync by content after the join (≤ 25 ms).
    @Test(arguments: ["mp4", "ts"]) func concatJoinsEveryAudioTrack(ext: String) throws {
        let scratch = try Scratch()
        let source = Self.clip("three_aac.mp4")
        let first = scratch.file("a.mp4"), second = scratch.file("b.mp4"), output = scratch.file("joined.\(ext)")
        #expect(try CLIRunner.run(["trim", source, "--end", "2", "-o", first]).status == 0)
        #expect(try CLIRunner.run(["trim", source, "--start", "2", "-o", second]).status == 0)
        let run = try CLIRunner.run(["concat", first, second, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.audio(source)
        let got = try Self.audio(output)
        #expect(got.map(\.language) == ["eng", "fra", "deu"], "concat → \(ext)")
        for (index, (have, want)) in zip(got, expected).enumerated() {
            // In source order: each packet found after the one before it.
            var position = 0
            var ordered = true
            for packet in have.packets {
                guard let at = want.packets[position...].firstIndex(of: packet) else { ordered = false; break }
                position = at + 1
            }
            #expect(ordered, "concat → \(ext), stream \(index): packets not the source's in order")
            #expect(have.packets.count >= want.packets.count - 2 && have.packets.count <= want.packets.count,
                    "concat → \(ext), stream \(index): \(have.packets.count) packets, the source has \(want.packets.count)")
        }
        let shift = try AudioPathsTests.shift(source, output, at: 3)
        #expect(abs(shift) <= 25, "concat → \(ext): A/V \(shift) ms after the join")
    }

    /// `trim --keep A-B,C-D` of each fixture carries every audio stream (AC-3, Layer II, three
    /// AAC with languages) joined, in sync after the join (≤ 25 ms: half an AC-3 frame is 16 ms),
    /// and GStreamer decodes each as long as the two ranges.
    @Test(arguments: [("three_aac.mp4", "mp4"), ("three_aac.ts", "ts"), ("three_aac.ts", "mp4"),
                      ("ts_ac3.ts", "mp4"), ("ts_ac3.ts", "ts"), ("ts_mp2.ts", "mp4"), ("ts_mp2.ts", "ts")])
    func keepJoinsEveryAudioStream(name: String, ext: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let output = scratch.file("kept.\(ext)")
        let run = try CLIRunner.run(["trim", source, "--keep", "0.5-1.5,2.5-3.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.audio(source)
        let got = try Self.audio(output)
        #expect(got.map(\.codec) == expected.map { ext == "mp4" && $0.codec == "mp2" ? "mp3" : $0.codec }, "\(name) → \(ext)")
        #expect(got.map(\.language) == expected.map(\.language), "\(name) → \(ext)")
        for (index, have) in got.enumerated() {
            let inSource = Set(expected[index].packets)
            #expect(have.packets.allSatisfy(inSource.contains), "\(name) → \(ext), stream \(index): a packet not in the source")
        }
        let shift = try AudioPathsTests.shift(source, output, at: 1.5)
        #expect(abs(shift) <= 25, "\(name) → \(ext): A/V \(shift) ms after the join")
        let decoded = try Self.gstreamerSeconds(output, streams: got.count)
        #expect(decoded.allSatisfy { abs($0 - 2) < 0.1 }, "\(name) → \(ext): GStreamer decodes \(decoded) s")
    }

    /// `package --hls --dash` makes every audio track its own rendition: `EXT-X-MEDIA` with
    /// `LANGUAGE`, a DASH audio `AdaptationSet` with `lang`; ffprobe reads every rendition through
    /// the master playlist with its language, each rendition's packets are its source track's
    /// byte for byte, and `nalu doctor` finds no problem in the package.
    @Test(arguments: [("three_aac.mp4", ["eng", "fra", "deu"], "mp4a.40.2"), ("three_aac.ts", ["eng", "fra", "deu"], "mp4a.40.2"),
                      ("ts_ac3.ts", [nil], "ac-3"), ("ts_mp2.ts", [nil], "mp4a.6B")] as [(String, [String?], String)])
    func packageMakesARenditionPerAudioTrack(name: String, languages: [String?], codec: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let folder = scratch.file("package")
        let run = try CLIRunner.run(["package", source, "-o", folder, "--hls", "--dash"])
        #expect(run.status == 0, "\(run.stderr)")
        let master = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
        let media = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(media.count == languages.count, "\(master)")
        for (index, language) in languages.enumerated() where index < media.count {
            #expect(media[index].contains("URI=\"a\(index).m3u8\""))
            #expect(media[index].contains("LANGUAGE=") == (language != nil) && (language.map { media[index].contains("LANGUAGE=\"\($0)\"") } ?? true),
                    "\(media[index])")
        }
        #expect(master.contains("CODECS=\"avc1.64000c,\(codec)\""), "\(master)")
        let mpd = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
        let sets = mpd.split(separator: "\n").filter { $0.contains("contentType=\"audio\"") }
        #expect(sets.count == languages.count)
        for (set, language) in zip(sets, languages) {
            #expect(set.contains("lang=") == (language != nil) && (language.map { set.contains("lang=\"\($0)\"") } ?? true), "\(set)")
        }
        // ffprobe through the master playlist: every audio rendition, with its language.
        let streams = try Self.audio(folder + "/master.m3u8")
        #expect(streams.map(\.language) == languages)
        let expected = try Self.audio(source)
        for index in languages.indices {
            let rendition = try Self.audio(folder + "/a\(index).m3u8")
            #expect(rendition.first?.packets == expected[index].packets, "\(name): a\(index)'s packets differ from the source's")
        }
        let doctor = try CLIRunner.run(["doctor", folder])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        // The first audio rendition against the video, by content.
        let shift = try AudioPathsTests.shift(source, folder + "/master.m3u8")
        #expect(abs(shift) <= 5, "\(name): package A/V \(shift) ms")
    }

    /// A transport stream's AC-3 or Layer II with `--no-audio`: the video is packaged alone (exit 0).
    @Test(arguments: ["ts_ac3.ts", "ts_mp2.ts"]) func packageWithoutAudio(name: String) throws {
        let scratch = try Scratch()
        let folder = scratch.file("package")
        let run = try CLIRunner.run(["package", Self.clip(name), "-o", folder, "--hls", "--no-audio"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/a0.m3u8"))
        #expect(try Self.audio(folder + "/master.m3u8").isEmpty)
        #expect(try Self.packetTimes(folder + "/master.m3u8", "v:0").count == 100)
    }

    /// A MOV with a subtitle and a timecode track is packaged (video and audio renditions, which
    /// ffprobe plays); the two tracks are named with exit status 2, or left out on purpose with
    /// --no-subtitles --no-timecode (exit 0).
    @Test func packageNamesSubtitleAndTimecodeTracks() throws {
        let scratch = try Scratch()
        let source = Self.clip("subs_tc.mov")
        let folder = scratch.file("package")
        let run = try CLIRunner.run(["package", source, "-o", folder, "--hls"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("track 3 (text, text)") && run.stderr.contains("track 4 (tmcd, tmcd)"), "\(run.stderr)")
        #expect(try Self.audio(folder + "/master.m3u8").count == 1)
        let chosen = try CLIRunner.run(["package", source, "-o", scratch.file("chosen"), "--hls", "--no-subtitles", "--no-timecode"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(chosen.stderr == "")
        let subtitlesOnly = try CLIRunner.run(["package", source, "-o", scratch.file("half"), "--hls", "--no-subtitles"])
        #expect(subtitlesOnly.status == 2 && subtitlesOnly.stderr.contains("tmcd") && !subtitlesOnly.stderr.contains("(text"), "\(subtitlesOnly.stderr)")
    }

    /// The payload of the first box of type `type` anywhere in `path` (found by its type bytes).
    static func box(_ type: String, in path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array(type.utf8)
        for index in 4..<(bytes.count - 4) where Array(bytes[index..<(index + 4)]) == tag {
            let size = Int(bytes[index - 4]) << 24 | Int(bytes[index - 3]) << 16 | Int(bytes[index - 2]) << 8 | Int(bytes[index - 1])
            guard size >= 8, index - 4 + size <= bytes.count else { continue }
            return Array(bytes[(index + 4)..<(index - 4 + size)])
        }
        Issue.record("no \(type) in \(path)")
        return []
    }

    static func objectType(_ esds: [UInt8]) -> UInt8? {
        guard let at = esds.firstIndex(of: 0x04) else { return nil }
        var index = at + 1
        while index < esds.count, esds[index] & 0x80 != 0 { index += 1 }
        return index + 1 < esds.count ? esds[index + 1] : nil
    }
}
