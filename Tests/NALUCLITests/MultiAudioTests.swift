import Foundation
import Testing

/// Every audio stream carried where ffmpeg carries it (issue 41, items 12 and 13), on
/// Scripts/make-audio-fixtures.sh's files: `three_audio.mov` (AAC eng, AC-3 fra, Layer II spa in
/// QuickTime), `ts_ac3_mp2.ts` (AC-3 eng + Layer II fra), `three_aac.mp4`. Each output is
/// measured against the source and against ffmpeg doing the same job: the audio streams' codecs,
/// languages and packet counts (ffprobe), their packets byte for byte, and A/V sync by content
/// on each stream (`Scripts/avsync.py --audio N`).
@Suite struct MultiAudioTests {
    static func clip(_ name: String) -> String { CLIRunner.fixture("audio/\(name)") }

    /// A/V shift (ms) of audio stream `audio` of `output` against the same stream of `source`.
    static func shift(_ source: String, _ output: String, at: Double, audio: Int) throws -> Double {
        let result = try runTool("python3", [AudioPathsTests.avsync, source, output, "--at", "\(at)", "--audio", "\(audio)", "--json"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try #require(json?["shift_ms"] as? Double, "avsync said \(result.stdout)")
    }

    /// `nalu encode IN -o out.ts` (lossless, so avsync finds its pictures by MD5) carries every
    /// audio stream of the input, as `ffmpeg -map 0:v -map 0:a -c:a copy -f mpegts` does: the
    /// same codecs and languages as ffmpeg's output, each stream every packet of the source's
    /// byte for byte, each in sync by content (≤ 5 ms) early and late.
    @Test(arguments: [("three_audio.mov", ["aac", "ac3", "mp2"], ["eng", "fra", "spa"]),
                      ("ts_ac3_mp2.ts", ["ac3", "mp2"], ["eng", "fra"]),
                      ("three_aac.mp4", ["aac", "aac", "aac"], ["eng", "fra", "deu"])] as [(String, [String], [String?])])
    func encodeIntoTransportStreamCarriesEveryAudioStream(name: String, codecs: [String], languages: [String?]) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let output = scratch.file("out.ts"), reference = scratch.file("ffmpeg.ts")
        let run = try CLIRunner.run(["encode", source, "-o", output, "--preset", "ultrafast", "--qp", "0", "--profile", "high444", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "", "\(run.stderr)")
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", source, "-map", "0:v", "-map", "0:a", "-c:v", "libx264",
                                          "-preset", "ultrafast", "-c:a", "copy", "-f", "mpegts", reference])
        #expect(made.status == 0, "\(made.stderr)")
        let expected = try AudioCarriageTests.audio(source)
        let theirs = try AudioCarriageTests.audio(reference)
        let got = try AudioCarriageTests.audio(output)
        #expect(got.map(\.codec) == codecs && theirs.map(\.codec) == codecs, "\(name): \(got) (ffmpeg: \(theirs))")
        #expect(got.map(\.language) == languages && theirs.map(\.language) == languages, "\(name): \(got.map(\.language)) (ffmpeg: \(theirs.map(\.language)))")
        try #require(got.count == expected.count, "\(name): \(got.count) audio streams, the source has \(expected.count)")
        for (index, (have, want)) in zip(got, expected).enumerated() {
            #expect(have.packets.count == want.packets.count && have.packets.count == theirs[index].packets.count && have.packets.count > 100,
                    "\(name), stream \(index): \(have.packets.count) packets, the source \(want.packets.count), ffmpeg's \(theirs[index].packets.count)")
            #expect(have.packets == want.packets, "\(name), stream \(index): the packets' bytes differ from the source's")
            for at in [0.5, 3.0] {
                let shift = try Self.shift(source, output, at: at, audio: index)
                #expect(abs(shift) <= 5, "\(name), stream \(index) at \(at) s: A/V \(shift) ms")
            }
        }
    }

    /// `nalu encode ts_ac3_mp2.ts -o out.mp4`: both streams become sound tracks (`ac-3`, `mp4a`
    /// Layer II) with their languages, every packet, in sync (ffmpeg's own `-c:a copy` into MP4
    /// carries both too).
    @Test func encodeTransportStreamIntoMP4CarriesEveryAudioStream() throws {
        let scratch = try Scratch()
        let source = Self.clip("ts_ac3_mp2.ts")
        let output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["encode", source, "-o", output, "--preset", "ultrafast", "--qp", "0", "--profile", "high444", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try AudioCarriageTests.audio(source)
        let got = try AudioCarriageTests.audio(output)
        // ffmpeg names MPEG audio in MP4 (objectTypeIndication 0x6B) mp3.
        #expect(got.map(\.codec) == ["ac3", "mp3"], "\(got)")
        #expect(got.map(\.language) == ["eng", "fra"])
        for (index, (have, want)) in zip(got, expected).enumerated() {
            #expect(have.packets == want.packets, "stream \(index): \(have.packets.count) packets, the source \(want.packets.count)")
            let shift = try Self.shift(source, output, at: 2, audio: index)
            #expect(abs(shift) <= 5, "stream \(index): A/V \(shift) ms")
        }
    }

    /// `encode --start 1.3 --end 3.1` into MPEG-TS: every stream cut to the range, one unbroken
    /// run of the source's packets covering it (1.8 s, at most two frames more at each end), in sync.
    @Test(arguments: ["three_audio.mov", "ts_ac3_mp2.ts"])
    func encodeRangeIntoTransportStream(name: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let output = scratch.file("cut.ts")
        let run = try CLIRunner.run(["encode", source, "--start", "1.3", "--end", "3.1", "-o", output,
                                     "--preset", "ultrafast", "--qp", "0", "--profile", "high444", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try AudioCarriageTests.audio(source)
        let got = try AudioCarriageTests.audio(output)
        #expect(got.map(\.language) == expected.map(\.language))
        try #require(got.count == expected.count)
        for (index, (have, want)) in zip(got, expected).enumerated() {
            let first = try #require(have.packets.first)
            let at = try #require(want.packets.firstIndex(of: first), "\(name), stream \(index): a packet not in the source")
            #expect(Array(want.packets[at..<min(want.packets.count, at + have.packets.count)]) == have.packets,
                    "\(name), stream \(index): not one run of the source's packets")
            let frame = have.codec == "ac3" ? 0.032 : have.codec == "aac" ? 1024.0 / 48_000 : 0.024
            let covered = Double(have.packets.count) * frame
            #expect(covered >= 1.8 && covered <= 1.8 + 4 * frame, "\(name), stream \(index): \(covered) s of audio")
            let shift = try Self.shift(source, output, at: 0.8, audio: index)
            #expect(abs(shift) <= 5, "\(name), stream \(index): A/V \(shift) ms")
        }
    }

    /// Two pieces of `name` cut by ffmpeg as a user would (`-t 2` and `-ss 2`, `-c copy -f mpegts`).
    static func ffmpegPieces(_ name: String, in scratch: Scratch) throws -> [String] {
        let source = Self.clip(name)
        let first = scratch.file("a.ts"), second = scratch.file("b.ts")
        for (path, range) in [(first, ["-i", source, "-t", "2"]), (second, ["-ss", "2", "-i", source])] {
            let made = try runTool("ffmpeg", ["-nostdin", "-v", "error"] + range + ["-map", "0", "-c", "copy", "-f", "mpegts", path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        return [first, second]
    }

    /// `nalu concat` of two ffmpeg cuts of a transport stream (three AAC streams; AC-3 + Layer II)
    /// into MPEG-TS and MP4 joins every audio stream with its language, as `ffmpeg -f concat`
    /// does: each piece's audio stays with its pictures (A/V by content ≤ 25 ms in both pieces,
    /// each stream), every packet of the source is there byte for byte, the first piece's
    /// packets all and in order, then the second's — but those that start inside the first
    /// piece's audio (ffmpeg's `-t 2` keeps two pictures past 2 s, and the audio with them, which
    /// the second piece has again), counted in the note; ffmpeg's concat keeps those twice. GStreamer
    /// plays every picture (as many as ffprobe counts) and decodes each stream as long as its packets last.
    @Test(arguments: [("three_aac.ts", "ts"), ("three_aac.ts", "mp4"), ("ts_ac3_mp2.ts", "ts"), ("ts_ac3_mp2.ts", "mp4")])
    func concatJoinsTransportStreamAudio(name: String, ext: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let pieces = try Self.ffmpegPieces(name, in: scratch)
        let output = scratch.file("joined.\(ext)")
        let run = try CLIRunner.run(["concat"] + pieces + ["-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try AudioCarriageTests.audio(source)
        let cuts = try pieces.map { try AudioCarriageTests.audio($0) }
        let got = try AudioCarriageTests.audio(output)
        #expect(got.map(\.codec) == expected.map { ext == "mp4" && $0.codec == "mp2" ? "mp3" : $0.codec }, "\(got)")
        #expect(got.map(\.language) == expected.map(\.language))
        try #require(got.count == expected.count)
        var dropped: [Int] = []
        for (index, have) in got.enumerated() {
            let (a, b) = (cuts[0][index].packets, cuts[1][index].packets)
            // Every source packet, the first piece whole, then the second's last ones.
            #expect(Set(have.packets) == Set(expected[index].packets), "\(name) → \(ext), stream \(index): not every source packet")
            #expect(Array(have.packets.prefix(a.count)) == a, "\(name) → \(ext), stream \(index): the first piece's packets differ")
            let rest = have.packets.count - a.count
            #expect(rest > 0 && rest <= b.count && Array(have.packets.suffix(rest)) == Array(b.suffix(rest)),
                    "\(name) → \(ext), stream \(index): the second piece's packets differ")
            // Only what the pieces both have is left out.
            dropped.append(a.count + b.count - have.packets.count)
            #expect(dropped[index] <= Set(a).intersection(b).count, "\(name) → \(ext), stream \(index): \(have.packets.count) packets of \(a.count) + \(b.count)")
            for at in [1.0, 3.0] {
                let shift = try Self.shift(source, output, at: at, audio: index)
                #expect(abs(shift) <= 25, "\(name) → \(ext), stream \(index) at \(at) s: A/V \(shift) ms")
            }
        }
        if dropped.contains(where: { $0 > 0 }) {
            #expect(run.stderr.contains("\(dropped.reduce(0, +)) audio frames (\(dropped.map(String.init).joined(separator: ", ")) by stream)"), "\(run.stderr)")
        }
        // GStreamer: every picture, and each stream decoded as long as its frames.
        let pictures = try AudioCarriageTests.packetTimes(output, "v:0").count
        #expect(try GStreamerPictures.shown(output).count == pictures && pictures == 102, "\(pictures) pictures")
        let decoded = try AudioCarriageTests.gstreamerSeconds(output, streams: got.count)
        for (index, seconds) in decoded.enumerated() {
            let frame = got[index].codec == "ac3" ? 0.032 : got[index].codec == "aac" ? 1024.0 / 48_000 : 0.024
            #expect(abs(seconds - Double(got[index].packets.count) * frame) < 0.1, "\(name) → \(ext), stream \(index): GStreamer decodes \(seconds) s")
        }
    }

    /// Transport stream inputs whose audio streams differ in number: the video is joined, the
    /// exit status 2 says why the audio is not (nothing joined in part); `--no-audio` exit 0.
    @Test func concatNamesTransportStreamAudioItCannotJoin() throws {
        let scratch = try Scratch()
        let first = try Self.ffmpegPieces("three_aac.ts", in: scratch)[0]
        let other = scratch.file("other.ts")
        #expect(try runTool("ffmpeg", ["-nostdin", "-v", "error", "-ss", "2", "-i", Self.clip("ts_ac3_mp2.ts"), "-map", "0", "-c", "copy", "-f", "mpegts", other]).status == 0)
        let output = scratch.file("joined.ts")
        let run = try CLIRunner.run(["concat", first, other, "-o", output])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("it is not joined (\(other) has 2 audio streams, \(first) has 3)"), "\(run.stderr)")
        #expect(try AudioCarriageTests.packetTimes(output, "v:0").count == 102)
        let silent = try CLIRunner.run(["concat", first, other, "--no-audio", "-o", output])
        #expect(silent.status == 0, "\(silent.stderr)")
    }

    /// `package --segment-type ts` of an input with several audio tracks: each track its own
    /// rendition of audio-only MPEG-TS segments (`a0.m3u8`, …: `EXT-X-MEDIA TYPE=AUDIO` with
    /// `LANGUAGE`, the segments' program map with the ISO 639 descriptor, the PCR on the audio
    /// PID), cut at the video's segment times, as fMP4 segments give each its rendition; the video
    /// segments hold the video. Before, the tracks past the first gave exit status 2. Measured:
    /// exit 0; every rendition the source track's packets byte for byte; A/V by content ≤ 5 ms on
    /// each through the master playlist; `nalu doctor` content; GStreamer's playbin shows the 100
    /// pictures and decodes the default rendition's 4 s; ffmpeg's hls muxer (`-map 0 -c copy`)
    /// carries as many audio streams.
    @Test(arguments: [("three_audio.mov", ["aac", "ac3", "mp2"], ["eng", "fra", "spa"], "mp4a.40.2,ac-3,mp4a.6B"),
                      ("ts_ac3_mp2.ts", ["ac3", "mp2"], ["eng", "fra"], "ac-3,mp4a.6B"),
                      ("three_aac.mp4", ["aac", "aac", "aac"], ["eng", "fra", "deu"], "mp4a.40.2")] as [(String, [String], [String?], String)])
    func packageTransportStreamSegmentsGiveEachAudioTrackItsRendition(name: String, codecs: [String], languages: [String?], codecString: String) throws {
        let scratch = try Scratch()
        let source = Self.clip(name)
        let folder = scratch.file("package")
        let run = try CLIRunner.run(["package", source, "-o", folder, "--hls", "--segment-type", "ts", "--segment-duration", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "", "\(run.stderr)")
        let master = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
        #expect(master.contains("CODECS=\"avc1.64000c,\(codecString)\""), "\(master)")
        let media = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(media.count == languages.count, "\(master)")
        for (index, (line, language)) in zip(media, languages).enumerated() {
            #expect(line.contains("URI=\"a\(index).m3u8\"") && language.map { line.contains("LANGUAGE=\"\($0)\"") } ?? true, "\(line)")
        }
        // ffmpeg's hls muxer carries as many audio streams.
        let reference = scratch.file("ffmpeg")
        try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", source, "-map", "0:v", "-map", "0:a", "-c", "copy", "-f", "hls",
                                          "-hls_segment_type", "mpegts", "-hls_time", "2", "-hls_segment_filename", reference + "/s%d.ts", reference + "/out.m3u8"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try AudioCarriageTests.audio(reference + "/out.m3u8").map(\.codec) == codecs)
        let expected = try AudioCarriageTests.audio(source)
        try #require(expected.count == languages.count)
        // The video segments hold the video only.
        #expect(try AudioCarriageTests.audio(folder + "/v0.m3u8").isEmpty)
        for index in languages.indices {
            let rendition = try AudioCarriageTests.audio(folder + "/a\(index).m3u8")
            #expect(rendition.first?.packets == expected[index].packets,
                    "a\(index): \(rendition.first?.packets.count ?? 0) packets, the source \(expected[index].packets.count)")
            // A segment: one audio stream of the coding, with the language in its program map
            // (ffmpeg's hls demuxer names a Layer II stream mp3; the segment itself, mp2).
            let segment = try AudioCarriageTests.audio(folder + "/a\(index)_00001.ts")
            #expect(segment.map(\.codec) == [codecs[index]] && segment.first?.language == languages[index], "a\(index): \(segment)")
            let shift = try Self.shift(source, folder + "/master.m3u8", at: 2.5, audio: index)
            #expect(abs(shift) <= 5, "\(name), a\(index): A/V \(shift) ms")
        }
        let doctor = try CLIRunner.run(["doctor", folder])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(try GStreamerPictures.shown(folder + "/master.m3u8").count == 100)
        let raw = scratch.file("audio.raw")
        let played = try runTool("gst-launch-1.0", ["-q", "playbin", "uri=" + URL(fileURLWithPath: folder + "/master.m3u8").absoluteString,
                                                     "video-sink=fakesink sync=false",
                                                     "audio-sink=audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=48000 ! filesink location=\(raw)"])
        #expect(played.status == 0, "\(played.stderr)")
        let bytes = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? nil
        #expect(abs(Double(bytes ?? 0) / 96_000 - 4) < 0.1, "GStreamer decodes \(Double(bytes ?? 0) / 96_000) s of the default rendition")
    }

    /// `package --hls --dash` (fMP4) of the QuickTime file: each audio track its own rendition with
    /// `LANGUAGE`, the Layer II track (QuickTime `.mp2`, no `esds`) included as the `mp4a` entry
    /// (objectTypeIndication 0x6B) ISO files use — it was left out with exit 2. Each rendition is
    /// its track's packets byte for byte, in sync by content (≤ 5 ms); `nalu doctor` content.
    @Test func packageGivesTheQuickTimeLayerIITrackItsRendition() throws {
        let scratch = try Scratch()
        let source = Self.clip("three_audio.mov")
        let folder = scratch.file("package")
        let run = try CLIRunner.run(["package", source, "-o", folder, "--hls", "--dash"])
        #expect(run.status == 0, "\(run.stderr)")
        let master = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
        let media = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(media.count == 3 && zip(media, ["eng", "fra", "spa"]).allSatisfy { $0.contains("LANGUAGE=\"\($1)\"") }, "\(master)")
        #expect(master.contains("CODECS=\"avc1.64000c,mp4a.40.2,ac-3,mp4a.6B\""), "\(master)")
        let expected = try AudioCarriageTests.audio(source)
        for index in 0..<3 {
            let rendition = try AudioCarriageTests.audio(folder + "/a\(index).m3u8")
            #expect(rendition.first?.packets == expected[index].packets, "a\(index)'s packets differ from the source's")
            let shift = try Self.shift(source, folder + "/master.m3u8", at: 2, audio: index)
            #expect(abs(shift) <= 5, "a\(index): A/V \(shift) ms")
        }
        let doctor = try CLIRunner.run(["doctor", folder])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
    }
}
