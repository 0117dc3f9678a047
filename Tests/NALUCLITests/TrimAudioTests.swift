import Foundation
import Testing

/// `nalu trim` cuts the audio of an MP4 with the video (issue 15, item 2): the audio samples
/// around the range are copied byte for byte, and the audio track's edit list presents exactly
/// the video's range, so ffprobe sees both streams start together and last the cut's duration.
@Suite struct TrimAudioTests {
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try runTool("ffprobe", ["-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The MD5 of each audio packet (`-c copy`), in order, every sample (edit lists ignored).
    static func audioPacketHashes(_ path: String) throws -> [String] {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-ignore_editlist", "1", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// `(start_time, duration)` of the stream `select`.
    static func startAndDuration(_ path: String, _ select: String) throws -> (Double, Double) {
        let line = try ffprobe(["-select_streams", select, "-show_entries", "stream=start_time,duration", "-of", "csv=p=0", path])
        let fields = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Double($0) }
        try #require(fields.count == 2)
        return (fields[0], fields[1])
    }

    @Test func oneSecondWithAudio() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let video = try Self.startAndDuration(output, "v:0")
        let audio = try Self.startAndDuration(output, "a:0")
        #expect(video.0 == 0)
        #expect(video.1 == 1)
        #expect(audio.0 == video.0)
        #expect(abs(audio.1 - 1) <= 1024.0 / 48_000)
        // The kept packets are the source's, in order: the ones overlapping [1 s, 2 s] on the
        // source's presentation timeline (its edit starts at media time 1024: priming), one
        // more each side. Samples are 1024 ticks: 48128 + 1024 − 1024 … → packets 46 to 95.
        let source = try Self.audioPacketHashes(input)
        let cut = try Self.audioPacketHashes(output)
        #expect(cut.count == 50)
        #expect(cut == Array(source[46..<96]))
        // ffmpeg decodes both streams cleanly.
        let decode = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }

    @Test func transportStreamCutCarriesTheAAC() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.ts")
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "-o", output])
        #expect(run.status == 0)
        #expect(!run.stderr.contains("not carried"))
        #expect(try TransportStreamAudioOutputTests.codecs(output) == ["h264", "aac"])
        // The same 50 AAC frames as the MP4 cut (sizes + the 7-byte ADTS header).
        let sourceSizes = try TransportStreamAudioOutputTests.probe(input, "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        let sizes = try TransportStreamAudioOutputTests.probe(output, "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        #expect(sizes == sourceSizes[46..<96].map { $0 + 7 })
        // The TS shows the 1 lead-in picture (0.96 s) first, at PTS 126000; the first AAC frame
        // kept starts 1920 samples (0.04 s) before 1 s, so at 0.96 s too: the same PTS.
        let videoStart = try TransportStreamAudioOutputTests.probe(output, "v:0", ["-show_entries", "stream=start_pts"]).first?.first
        let audioStart = try TransportStreamAudioOutputTests.probe(output, "a:0", ["-show_entries", "packet=pts"]).first?.first
        #expect(videoStart == "126000")
        #expect(audioStart == "126000")
        let decode = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }

    @Test func noAudioLeavesTheVideoOnly() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", CLIRunner.fixture("trim_avc_bframes_audio.mp4"), "--start", "1", "--end", "2", "--no-audio", "-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let streams = try Self.ffprobe(["-show_entries", "stream=codec_type", "-of", "csv=p=0", output])
        #expect(streams.split(separator: "\n") == ["video"])
    }

    @Test func elementaryOutputKeepsTheNote() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.h264")
        let run = try CLIRunner.run(["trim", CLIRunner.fixture("trim_avc_bframes_audio.mp4"), "--start", "1", "--end", "2", "-o", output])
        // Annex-B cannot hold the audio: the cut is written, exit status 2 says what was lost.
        #expect(run.status == 2)
        #expect(run.stderr.contains("track 2 (soun, mp4a) not carried: an elementary stream holds one video track; the video was written"))
    }
}
