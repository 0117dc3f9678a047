import Foundation
import Testing

/// `nalu convert in.mp4 -o out.mp4` copies every audio track (issue 15, item 1): ffprobe sees the
/// same streams, the audio packets are the input's byte for byte, timing and start times
/// equal, the video decodes to the same frames; `--no-audio` leaves the video alone.
@Suite struct MP4PassthroughTests {
    static let files = ["tracks_avc_aac.mp4", "tracks_hevc_aac.mp4", "tracks_mov_aac_pcm.mov", "mp4_avc_audio.mp4"]
    static let layouts: [[String]] = [[], ["--faststart"], ["--fragmented"]]

    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try runTool("ffprobe", ["-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout
    }

    static func ffmpeg(_ arguments: [String]) throws -> String {
        let result = try runTool("ffmpeg", ["-v", "error", "-nostdin"] + arguments)
        #expect(result.status == 0, "ffmpeg \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// Codec, tag, time base, sample rate, channels, language of the audio streams in order
    /// (the video stream may come first or not: the output's video is track 1).
    static func audioStreams(_ path: String) throws -> String {
        try ffprobe(["-select_streams", "a", "-show_entries", "stream=codec_name,codec_tag_string,time_base,sample_rate,channels:stream_tags=language",
                     "-of", "compact", path])
    }

    /// Start time and duration of the streams `selector` picks (`v`, `a`).
    static func timing(_ path: String, _ selector: String) throws -> String {
        try ffprobe(["-select_streams", selector, "-show_entries", "stream=start_time,duration,duration_ts", "-of", "compact", path])
    }

    /// The md5 of audio stream `index`'s packets, copied (the bytes of every sample in order, the
    /// edit list not applied), and the packets' sizes (for PCM, the total: ffmpeg makes a
    /// packet per chunk).
    static func audio(_ path: String, stream index: Int) throws -> (md5: String, sizes: [Int]) {
        let md5 = try ffmpeg(["-ignore_editlist", "1", "-i", path, "-map", "0:a:\(index)", "-c", "copy", "-f", "md5", "-"])
        let sizes = try ffprobe(["-ignore_editlist", "1", "-select_streams", "a:\(index)", "-show_entries", "packet=size", "-of", "csv=p=0", path])
            .split(separator: "\n").compactMap { Int($0) }
        return (md5, sizes)
    }

    static func videoFrames(_ path: String) throws -> [String] {
        try ffmpeg(["-i", path, "-map", "0:v", "-f", "framemd5", "-"]).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }
    }

    static func audioCount(_ path: String) throws -> Int {
        try ffprobe(["-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0", path]).split(separator: "\n").count
    }

    @Test(arguments: files, layouts) func audioTracksAreCopied(file: String, layout: [String]) throws {
        let input = CLIRunner.fixture(file)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-passthrough-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLIRunner.run(["convert", input, "-o", output] + layout)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(try Self.audioStreams(output) == Self.audioStreams(input))
        let audioTracks = try Self.audioCount(input)
        #expect(audioTracks >= 1)
        for index in 0..<audioTracks {
            let (inMD5, inSizes) = try Self.audio(input, stream: index)
            let (outMD5, outSizes) = try Self.audio(output, stream: index)
            #expect(outMD5 == inMD5)
            if file.hasSuffix(".mov") && index == 1 {
                #expect(outSizes.reduce(0, +) == inSizes.reduce(0, +))
            } else {
                #expect(outSizes == inSizes)
            }
        }
        if layout != ["--fragmented"] {
            // FFmpeg reads a fragment's negative composition offsets with its own shift (dts_shift)
            // and applies no edit list in fragments, so only the progressive layouts' times compare.
            #expect(try Self.timing(output, "v") == Self.timing(input, "v"))
            #expect(try Self.timing(output, "a") == Self.timing(input, "a"))
            // mvhd: the longest track, in the input's movie timescale.
            #expect(try Self.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", output])
                    == Self.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", input]))
        }
        #expect(try Self.videoFrames(output) == Self.videoFrames(input))
    }

    /// Progressive output interleaves by decoding time: in file order the samples alternate
    /// between the tracks about every half second (no run of one track longer than 0.5 s plus a
    /// sample), never one track after the other.
    @Test(arguments: [[String](), ["--faststart"]]) func samplesAreInterleaved(layout: [String]) throws {
        let input = CLIRunner.fixture("tracks_mov_aac_pcm.mov")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-interleave-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        #expect(try CLIRunner.run(["convert", input, "-o", output] + layout).status == 0)
        let packets = try Self.ffprobe(["-show_entries", "packet=stream_index,pos,duration_time", "-of", "csv=p=0", output])
            .split(separator: "\n").compactMap { line -> (stream: Int, pos: Int, duration: Double)? in
                let fields = line.split(separator: ",")
                // ffprobe prints stream_index, duration_time, pos.
                guard fields.count == 3, let stream = Int(fields[0]), let duration = Double(fields[1]), let pos = Int(fields[2]) else { return nil }
                return (stream, pos, duration)
            }
            .sorted { $0.pos < $1.pos }
        var runs: [(stream: Int, duration: Double)] = []
        for packet in packets {
            if runs.last?.stream == packet.stream {
                runs[runs.count - 1].duration += packet.duration
            } else {
                runs.append((packet.stream, packet.duration))
            }
        }
        // 2 s of three tracks in half-second turns: at least 4 runs of each.
        #expect(runs.count >= 12, "\(runs)")
        #expect(runs.allSatisfy { $0.duration <= 0.55 }, "\(runs)")
    }

    /// A video that starts half a second after the audio (an empty edit, as ffmpeg's
    /// `-itsoffset` writes it) keeps its delay: start times and durations equal the input's.
    @Test(arguments: [[String](), ["--faststart"]]) func delayedVideoKeepsItsStart(layout: [String]) throws {
        let fixture = CLIRunner.fixture("tracks_avc_aac.mp4")
        let directory = FileManager.default.temporaryDirectory
        let input = directory.appendingPathComponent("nalu-delayed-\(UUID().uuidString).mp4").path
        let output = directory.appendingPathComponent("nalu-delayed-out-\(UUID().uuidString).mp4").path
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        _ = try Self.ffmpeg(["-i", fixture, "-itsoffset", "0.5", "-i", fixture, "-map", "1:v", "-map", "0:a", "-c", "copy", "-y", input])
        #expect(try Self.timing(input, "v").contains("start_time=0.500000"))
        let result = try CLIRunner.run(["convert", input, "-o", output] + layout)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.timing(output, "v") == Self.timing(input, "v"))
        #expect(try Self.timing(output, "a") == Self.timing(input, "a"))
        #expect(try Self.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", output])
                == Self.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", input]))
    }

    /// An MP4 on a pipe is spooled, and its audio copied all the same.
    @Test func pipedInput() throws {
        let input = CLIRunner.fixture("tracks_avc_aac.mp4")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-piped-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLIRunner.run(["convert", "-", "--to", "mp4", "-o", output], stdin: try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.audio(output, stream: 0).md5 == Self.audio(input, stream: 0).md5)
        #expect(try Self.timing(output, "a") == Self.timing(input, "a"))
    }

    @Test(arguments: layouts) func noAudioLeavesTheVideo(layout: [String]) throws {
        let input = CLIRunner.fixture("tracks_mov_aac_pcm.mov")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-noaudio-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLIRunner.run(["convert", input, "-o", output, "--no-audio"] + layout)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(try Self.ffprobe(["-show_entries", "stream=index,codec_name", "-of", "csv=p=0", output]) == "0,h264\n")
        #expect(try Self.videoFrames(output) == Self.videoFrames(input))
    }

    /// MP4 → Annex-B still names the tracks left out.
    @Test func annexBNamesTheAudioTracks() throws {
        let input = CLIRunner.fixture("tracks_mov_aac_pcm.mov")
        let result = try CLIRunner.run(["convert", input, "--to", "annexb", "-o", "/dev/null"])
        #expect(result.status == 2)
        #expect(result.stderr == "nalu: error: \(input): track 2 (soun, mp4a), track 3 (soun, sowt) not carried: an elementary stream holds one video track; the video was written\nhint: give --no-audio to leave the audio out on purpose (exit 0)\n")
        let chosen = try CLIRunner.run(["convert", input, "--to", "annexb", "--no-audio", "-o", "/dev/null"])
        #expect(chosen.status == 0)
        #expect(chosen.stderr == "")
    }
}
