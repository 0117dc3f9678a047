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
}
