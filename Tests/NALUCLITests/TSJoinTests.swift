import Foundation
import Testing

/// Joins with transport stream inputs keep every picture's own time (issue 41, items 1, 7–9):
/// a TS carries each picture's PTS/DTS, so a variable frame rate, two pieces of different rates,
/// a piece across the 2^33 wrap and B-frames come out with the times they had, each piece laid
/// where the one before it ends, as the MP4-only joins already did; and `concat` of an MP4 and a
/// TS joins their audio. Fixtures: Scripts/make-tsjoin-fixtures.sh (ffmpeg, libx264, AAC).
@Suite(.serialized) struct TSJoinTests {
    static func clip(_ name: String) -> String { CLIRunner.fixture("tsjoin/\(name)") }

    /// Each video packet's decoding and presentation time (s), in decoding order (ffprobe).
    static func videoTimes(_ path: String) throws -> [(dts: Double, pts: Double)] {
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time", "-of", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return ((json?["packets"] as? [[String: Any]]) ?? []).compactMap { packet in
            guard let pts = (packet["pts_time"] as? String).flatMap(Double.init) else { return nil }
            return ((packet["dts_time"] as? String).flatMap(Double.init) ?? pts, pts)
        }
    }

    /// The presentation times the pieces' pictures have when each piece's first picture
    /// presents where the previous piece's last picture ends (its pictures at their own
    /// distances; a picture lasts until the next one decodes, the last as long as the one
    /// before it): the sums of the pieces' own times, from 0, sorted; and where each piece's
    /// first picture presents.
    static func laidEndToEnd(_ pieces: [String]) throws -> (times: [Double], starts: [Double]) {
        var times: [Double] = []
        var starts: [Double] = []
        var offset = 0.0
        for piece in pieces {
            let packets = try videoTimes(piece)
            guard packets.count > 1, let earliest = packets.map(\.pts).min() else { return ([], []) }
            var end = -Double.infinity
            for (index, packet) in packets.enumerated() {
                let duration = index + 1 < packets.count ? packets[index + 1].dts - packet.dts : packet.dts - packets[index - 1].dts
                end = max(end, packet.pts + duration)
            }
            starts.append(offset)
            times += packets.map { $0.pts - earliest + offset }
            offset += end - earliest
        }
        return (times.sorted(), starts)
    }

    /// Each picture ffmpeg shows of `path` in the demuxer's time base (TimingTests.shown).
    static func shown(_ path: String) throws -> [(time: Double, md5: String)] { try TimingTests.shown(path, demuxerTimeBase: true) }

    /// The output's presentation times from its first picture, sorted.
    static func outputTimes(_ path: String) throws -> [Double] {
        let times = try videoTimes(path).map(\.pts)
        guard let first = times.min() else { return [] }
        return times.map { $0 - first }.sorted()
    }

    /// The largest difference between two lists of times (infinite when their counts differ).
    static func largestDifference(_ a: [Double], _ b: [Double]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    /// `nalu concat` of transport stream pieces (and an MP4 with a TS) into MP4 and MPEG-TS:
    /// every picture presents at the sum of the pieces' own times (within 0.5 ms: the pieces'
    /// 90 kHz ticks in the output's timescale), not at the first piece's frame rate (before: off
    /// by 393 ms for 25 + 30 fps, by 5.9 s for two VFR pieces); ffmpeg's framemd5 shows the
    /// pieces' pictures in order at those times, and GStreamer's playbin shows every picture.
    @Test(arguments: [(["vfr.ts", "vfr.ts"], "mp4"), (["vfr.ts", "vfr.ts"], "ts"),
                      (["r25.ts", "r30.ts"], "mp4"), (["r25.ts", "r30.ts"], "ts"),
                      (["wrap.ts", "r25.ts"], "mp4"), (["r25.ts", "wrap.ts"], "ts"),
                      (["head.mp4", "tail.ts"], "mp4"), (["tail.ts", "head.mp4"], "ts")])
    func joinsKeepEveryPicturesOwnTime(names: [String], ext: String) throws {
        let scratch = try Scratch()
        let pieces = names.map(Self.clip)
        let output = scratch.file("joined.\(ext)")
        let run = try CLIRunner.run(["concat"] + pieces + ["-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let (expected, starts) = try Self.laidEndToEnd(pieces)
        let got = try Self.outputTimes(output)
        #expect(Self.largestDifference(expected, got) < 0.0005, "\(names) → \(ext): \(got.count) pictures of \(expected.count), off by \(Self.largestDifference(expected, got)) s")
        // Pictures by content at their presentation times: each piece's framemd5 from its first
        // picture, moved to where that picture presents in the join.
        var pictures: [(time: Double, md5: String)] = []
        for (piece, start) in zip(pieces, starts) {
            let shown = try Self.shown(piece)
            let first = shown.map(\.time).min() ?? 0
            pictures += shown.map { ($0.time - first + start, $0.md5) }
        }
        let joined = try Self.shown(output)
        let origin = joined.map(\.time).min() ?? 0
        #expect(joined.map(\.md5) == pictures.map(\.md5), "\(names) → \(ext): pictures differ from the pieces'")
        let late = zip(joined, pictures).map { abs($0.time - origin - $1.time) }.max() ?? .infinity
        #expect(joined.count == pictures.count && late < 0.0015, "\(names) → \(ext): a picture \(late) s off")
        #expect(try GStreamerPictures.shown(output).count == pictures.count, "\(names) → \(ext): GStreamer")
    }

    /// Video-only pieces of constant rates: the presentation times are those of `ffmpeg -f concat
    /// -safe 0 -i list -c copy` of the same pieces (which lays each file after the previous one's
    /// duration). (A VFR piece's last picture has no duration in a TS: ffmpeg takes its frame
    /// rate's, nalu the distance before it, as ``laidEndToEnd(_:)`` counts.)
    @Test(arguments: [["r25.ts", "r30.ts"], ["r30.ts", "r25.ts", "r30.ts"]])
    func timesAreFFmpegConcats(names: [String]) throws {
        let scratch = try Scratch()
        var pieces: [String] = []
        for (index, name) in names.enumerated() {
            let piece = scratch.file("v\(index).ts")
            let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", Self.clip(name), "-map", "0:v", "-c", "copy", "-f", "mpegts", piece])
            #expect(made.status == 0, "\(made.stderr)")
            pieces.append(piece)
        }
        let list = scratch.file("list.txt")
        try pieces.map { "file '\($0)'\n" }.joined().write(toFile: list, atomically: true, encoding: .utf8)
        let reference = scratch.file("ffmpeg.ts")
        let concat = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", reference])
        #expect(concat.status == 0, "\(concat.stderr)")
        for ext in ["ts", "mp4"] {
            let output = scratch.file("joined.\(ext)")
            let run = try CLIRunner.run(["concat"] + pieces + ["-o", output])
            #expect(run.status == 0, "\(run.stderr)")
            let difference = Self.largestDifference(try Self.outputTimes(reference), try Self.outputTimes(output))
            #expect(difference < 0.0005, "\(names) → \(ext): \(difference) s from ffmpeg's concat")
        }
    }

    /// Audio packets (ffprobe) of the first audio stream.
    static func audioPackets(_ path: String) throws -> Int {
        try AudioCarriageTests.packetTimes(path, "a:0").count
    }

    /// `nalu concat head.mp4 tail.ts` (two ffmpeg `-c copy` cuts of one source, MP4 then MPEG-TS,
    /// and the other way round) joins the audio (before: exit 2, "tail.ts is not MP4/MOV"):
    /// exit 0; every audio packet of both pieces but those the note counts (at most one per
    /// join); A/V by content against the source ≤ 25 ms at points in both pieces; GStreamer
    /// shows every picture and decodes the audio for as long as its packets last.
    @Test(arguments: [(["head.mp4", "tail.ts"], "mp4"), (["head.mp4", "tail.ts"], "ts"), (["tail.ts", "head.mp4"], "mp4")])
    func mixedJoinCarriesTheAudio(names: [String], ext: String) throws {
        let scratch = try Scratch()
        let pieces = names.map(Self.clip)
        let output = scratch.file("joined.\(ext)")
        let run = try CLIRunner.run(["concat"] + pieces + ["-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let sum = try pieces.map(Self.audioPackets).reduce(0, +)
        let packets = try Self.audioPackets(output)
        let dropped = sum - packets
        #expect(dropped >= 0 && dropped <= 1, "\(names) → \(ext): \(packets) audio packets of \(sum)")
        if dropped > 0 {
            #expect(run.stderr.contains("\(dropped) audio frame"), "\(run.stderr)")
        }
        let source = Self.clip("source.mp4")
        for at in [1.0, 3.5, 4.5, 7.0] {
            let shift = try MultiAudioTests.shift(source, output, at: at, audio: 0)
            #expect(abs(shift) <= 25, "\(names) → \(ext) at \(at) s: A/V \(shift) ms")
        }
        let pictures = try Self.videoTimes(output).count
        #expect(try GStreamerPictures.shown(output).count == pictures, "\(names) → \(ext): GStreamer")
        // GStreamer decodes every frame of a TS, and what the edit list presents of an MP4.
        let seconds = try AudioCarriageTests.gstreamerSeconds(output, streams: 1)
        let presented = ext == "ts" ? Double(packets) * 1024 / 48_000
            : try #require(Double(try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration", "-of", "csv=p=0", output])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs((seconds.first ?? 0) - presented) < 0.05, "\(names) → \(ext): GStreamer decodes \(seconds) s of \(presented)")
    }

    /// Audio that cannot be joined stays exit status 2, named: a TS whose AAC has another sample
    /// rate, or none; `--no-audio` joins the video with exit 0.
    @Test func mixedJoinNamesAudioItCannotJoin() throws {
        let scratch = try Scratch()
        let head = Self.clip("head.mp4")
        let resampled = scratch.file("44k.ts"), silent = scratch.file("silent.ts")
        for (path, audio) in [(resampled, ["-map", "0", "-c:v", "copy", "-c:a", "aac", "-ar", "44100"]), (silent, ["-map", "0:v", "-c", "copy"])] {
            let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", Self.clip("tail.ts")] + audio + ["-f", "mpegts", path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let output = scratch.file("joined.mp4")
        let other = try CLIRunner.run(["concat", head, resampled, "-o", output])
        #expect(other.status == 2, "\(other.stderr)")
        #expect(other.stderr.contains("it is not joined (\(resampled)'s audio stream 1 is coded unlike \(head)'s (aac, 44100 Hz, 2 channels))"), "\(other.stderr)")
        let none = try CLIRunner.run(["concat", head, silent, "-o", output])
        #expect(none.status == 2, "\(none.stderr)")
        #expect(none.stderr.contains("it is not joined (\(silent) has 0 audio streams, \(head) has 1)"), "\(none.stderr)")
        let video = try CLIRunner.run(["concat", head, silent, "--no-audio", "-o", output])
        #expect(video.status == 0, "\(video.stderr)")
    }
}
