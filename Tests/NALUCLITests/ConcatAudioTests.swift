import Foundation
import Testing

/// `nalu concat` joins the audio of MP4 inputs (issue 15, item 3; issue 31, item 3): the two
/// clips of two sizes, each with AAC, give ONE continuous audio track with one edit: the first
/// clip's packets and the second's after its priming frame, byte for byte, lasting the sum of
/// their audio durations, the second clip's audio starting with its video within one frame.
@Suite struct ConcatAudioTests {
    static let inputs = ["concat_avc_640x360.mp4", "concat_avc_1280x720.mp4"].map(CLIRunner.fixture)

    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try runTool("ffprobe", ["-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The MD5 of each audio packet (`-c copy`, every sample: edit lists ignored).
    static func audioPacketHashes(_ path: String) throws -> [String] {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-ignore_editlist", "1", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test func twoClipsWithAudio() throws {
        let scratch = try Scratch()
        let output = scratch.file("joined.mp4")
        let run = try CLIRunner.run(["concat"] + Self.inputs + ["-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        // Audio duration: the sum of the inputs' (in samples: duration_ts at 48 kHz).
        let durations = try Self.inputs.map { try Self.ffprobe(["-select_streams", "a:0", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", $0]) }
        let sum = durations.compactMap { Int($0) }.reduce(0, +)
        #expect(sum == 96_000)
        #expect(try Self.ffprobe(["-select_streams", "a:0", "-show_entries", "stream=codec_name,start_time,duration_ts", "-of", "csv=p=0", output])
                == "aac,0.000000,\(sum)")
        // The packets: the inputs' in order, byte for byte, but the second clip's priming frame
        // (which its own edit hid; one edit for the whole track cannot).
        let hashes = try Self.inputs.map(Self.audioPacketHashes)
        #expect(hashes.map(\.count) == [48, 48])
        #expect(try Self.audioPacketHashes(output) == hashes[0] + hashes[1].dropFirst())
        // Decoded, the joined audio is each clip's decoded audio in turn: as many samples as
        // the two, the first clip's identical up to its last two frames (the decoder's overlap
        // with the next frame), so the second starts at the video's join.
        let pcm = { (path: String) throws -> Data in
            let result = try runToolData("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"])
            #expect(result.status == 0)
            return result.stdout
        }
        let first = try pcm(Self.inputs[0])
        let second = try pcm(Self.inputs[1])
        let joined = try pcm(output)
        #expect(!first.isEmpty)
        #expect(joined.count == first.count + second.count)
        let exact = first.count - 2 * 2 * 1024
        #expect(joined.prefix(exact) == first.prefix(exact))
        // Both streams decode with no complaint; the video frames are the clips' (ConcatCommandTests).
        let decode = try runTool("ffmpeg", ["-nostdin", "-v", "warning", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }

    @Test func transportStreamJoinsTheAAC() throws {
        let scratch = try Scratch()
        let output = scratch.file("joined.ts")
        let run = try CLIRunner.run(["concat"] + Self.inputs + ["-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(try TransportStreamAudioOutputTests.codecs(output) == ["h264", "aac"])
        // Every frame but the second clip's priming frame (a TS cannot hide it), + the ADTS header.
        let sizes = try Self.inputs.map { input in
            try TransportStreamAudioOutputTests.probe(input, "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        }
        let carried = try TransportStreamAudioOutputTests.probe(output, "a:0", ["-show_entries", "packet=size"]).compactMap { $0.first.flatMap { Int($0) } }
        #expect(sizes.map(\.count) == [48, 48])
        #expect(carried == (sizes[0] + sizes[1].dropFirst()).map { $0 + 7 })
        // The frames follow each other without a gap: the second clip's first presented frame
        // 48 frames after the first clip's priming frame, 128 samples (2.7 ms, under one frame)
        // after its first picture at 126000 + 1 s.
        let pts = try TransportStreamAudioOutputTests.probe(output, "a:0", ["-show_entries", "packet=pts"]).compactMap { $0.first.flatMap { Int64($0) } }
        #expect(pts.count == 95)
        let first: Int64 = 126_000 - 1_920  // the first clip's priming frame, 1024/48000 s early
        #expect(pts.first == first)
        #expect(pts.count > 48 && pts[48] == first + 48 * 1_920)
        #expect(pts.count > 48 && abs(pts[48] - 216_000) <= 1_920)
        #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 })
        let decode = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }

    @Test func noAudioAndMismatches() throws {
        let scratch = try Scratch()
        let output = scratch.file("joined.mp4")
        let run = try CLIRunner.run(["concat"] + Self.inputs + ["--no-audio", "-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(try Self.ffprobe(["-show_entries", "stream=codec_type", "-of", "csv=p=0", output]) == "video")
        // A clip without audio: the video is written, exit status 2 names why the audio is not.
        let other = CLIRunner.fixture("mp4_avc_bframes.mp4")
        let mixed = try CLIRunner.run(["concat", Self.inputs[0], other, "--fps", "25", "-o", output])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.hasPrefix("nalu: error: \(Self.inputs[0]): the audio not carried: it is not joined (\(other) has 0 audio tracks, \(Self.inputs[0]) has 1); the video was written\n"))
        #expect(try Self.ffprobe(["-show_entries", "stream=codec_type", "-of", "csv=p=0", output]) == "video")
    }
}

/// Runs `tool` (through `env`), its standard output as bytes.
func runToolData(_ tool: String, _ arguments: [String]) throws -> (stdout: Data, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (data, process.terminationStatus)
}
