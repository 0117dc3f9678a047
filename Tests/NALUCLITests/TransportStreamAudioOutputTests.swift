import Foundation
import Testing

/// `nalu convert in.mp4 -o out.ts` carries the MP4's AAC track as ADTS (issue 15): ffprobe
/// lists h264 + aac, every AAC sample is one audio packet, ffmpeg decodes both streams cleanly,
/// and the A/V offset is the MP4's (the AAC priming frame before the first picture).
@Suite("convert MP4 → ts with audio")
struct TransportStreamAudioOutputTests {
    /// ffprobe's CSV rows for `entries` of the streams `select` (`v:0`, `a:0`).
    static func probe(_ path: String, _ select: String, _ arguments: [String]) throws -> [[String]] {
        let ffprobe = try #require(TransportStreamOutputTests.ffprobePath)
        let result = try runProgram(ffprobe, ["-v", "error", "-select_streams", select] + arguments + ["-of", "csv=p=0", path])
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The codec of each stream, in stream order.
    static func codecs(_ path: String) throws -> [String] {
        let ffprobe = try #require(TransportStreamOutputTests.ffprobePath)
        // The program section lists the streams again: one row per stream index.
        let result = try runProgram(ffprobe, ["-v", "error", "-show_entries", "stream=index,codec_name", "-of", "csv=p=0", path])
        var codecs: [Int: String] = [:]
        for row in result.stdout.split(separator: "\n") {
            let fields = row.split(separator: ",").map(String.init)
            if fields.count == 2, let index = Int(fields[0]) { codecs[index] = fields[1] }
        }
        return codecs.keys.sorted().compactMap { codecs[$0] }
    }

    @Test(arguments: ["trim_avc_bframes_audio.mp4", "mp4_avc_audio.mp4", "tracks_avc_aac.mp4"])
    func carriesTheAACTrack(_ input: String) throws {
        let scratch = try Scratch()
        let output = scratch.file("out.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture(input), "-o", output])
        #expect(run.status == 0)
        #expect(try Self.codecs(output) == ["h264", "aac"])
        // One packet per AAC sample, the same bytes (ADTS header stripped by ffmpeg's -c copy to ADTS and back).
        // ffprobe counts the 7-byte ADTS header in the TS packet's size.
        let sourceSizes = try Self.probe(CLIRunner.fixture(input), "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        let sizes = try Self.probe(output, "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        #expect(!sizes.isEmpty)
        #expect(sizes == sourceSizes.map { $0 + 7 })
        let pts = try Self.probe(output, "a:0", ["-show_entries", "packet=pts"]).compactMap { $0.first.flatMap { Int64($0) } }
        #expect(pts.count == sizes.count)
        #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 })
        // The first audio frame is the MP4's priming frame, before the first picture by its edit.
        let videoStart = try #require(try Self.probe(output, "v:0", ["-show_entries", "stream=start_pts"]).first?.first.flatMap { Int64($0) })
        let audioStart = try #require(pts.first)
        let sourceVideo = try Self.probe(CLIRunner.fixture(input), "v:0", ["-show_entries", "stream=start_time"]).first?.first.flatMap(Double.init)
        let sourceAudio = try Self.probe(CLIRunner.fixture(input), "a:0", ["-show_entries", "packet=pts_time"]).first?.first.flatMap(Double.init)
        let offset = try #require(sourceAudio) - (try #require(sourceVideo))
        #expect(abs(Double(audioStart - videoStart) / 90_000 - offset) < 1.0 / 90_000 * 2)
        // Audio duration: every frame's samples, within one AAC frame.
        let sampleRate = try #require(try Self.probe(output, "a:0", ["-show_entries", "stream=sample_rate"]).first?.first.flatMap(Double.init))
        let durations = try Self.probe(CLIRunner.fixture(input), "a:0", ["-show_entries", "packet=duration"]).compactMap { $0.first.flatMap { Int($0) } }
        #expect(durations.count == sizes.count)
        let total = Double(durations.reduce(0, +)) / sampleRate
        let last = try #require(pts.last)
        #expect(abs(Double(last - audioStart) / 90_000 + 1024 / sampleRate - total) <= 1024 / sampleRate)
        // Both streams decode with no complaint.
        let ffmpeg = try #require(ffmpegPath)
        let decode = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }

    @Test func noAudioLeavesTheVideoOnly() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("trim_avc_bframes_audio.mp4"), "--no-audio", "-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(try Self.codecs(output) == ["h264"])
    }

    @Test func otherAudioIsNamedInANote() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("tracks_mov_aac_pcm.mov"), "-o", output])
        // The PCM track cannot go into a transport stream: exit status 2 (the file is written).
        #expect(run.status == 2)
        #expect(run.stderr.contains("track 3 (soun, sowt) not carried: the MPEG-TS output carries the video and AAC, AC-3 and MPEG audio"))
        #expect(try Self.codecs(output) == ["h264", "aac"])
    }
}
