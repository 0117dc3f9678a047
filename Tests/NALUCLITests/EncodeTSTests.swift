import Foundation
import Testing

/// `nalu encode IN` into MPEG-TS, and a transport stream's AAC into MP4 and MPEG-TS (issue 33,
/// item 4): every picture at its source time, the AAC packets byte for byte, in sync by content
/// (Scripts/avsync.py on a lossless encode, so its pictures are found in the source).
@Suite struct EncodeTSTests {
    /// Encodes `fixture` (realworld/) losslessly to `name`; the exit status and standard error.
    static func encode(_ fixture: String, to name: String, _ extra: [String] = [], in directory: URL) throws -> (path: String, status: Int32, stderr: String) {
        let output = directory.appendingPathComponent(name).path
        let result = try CLIRunner.run(["encode", CLIRunner.fixture("realworld/" + fixture), "-o", output,
                                        "--preset", "ultrafast", "--qp", "0", "--profile", "high444", "--quiet"] + extra)
        return (output, result.status, result.stderr)
    }

    /// The pictures' times from the first, ms (ffprobe).
    static func relativePTS(_ path: String) throws -> [Int] {
        let pts = try TranscodeTests.framePTS(path)
        let first = pts.first ?? 0
        return pts.map { Int((($0 - first) * 1000).rounded()) }
    }

    @Test(arguments: [("phone.mp4", "out.ts"), ("phone.ts", "out.ts"), ("phone.ts", "out.mp4")])
    func audioCarriedInSync(fixture: String, output name: String) throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.fixture("realworld/" + fixture)
        let (output, status, stderr) = try Self.encode(fixture, to: name, in: directory)
        #expect(status == 0, "\(stderr)")
        #expect(!stderr.contains("not carried"), "\(stderr)")
        // Every picture at its time (from the first), the audio packets byte for byte.
        let expected = try Self.relativePTS(source)
        #expect(expected.count == 300)
        #expect(try Self.relativePTS(output) == expected)
        let sourcePackets = try AudioPathsTests.audioPackets(source, adts: fixture.hasSuffix(".ts"))
        let outputPackets = try AudioPathsTests.audioPackets(output, adts: name.hasSuffix(".ts"))
        #expect(sourcePackets.count > 400)
        #expect(outputPackets == sourcePackets)
        // In sync by content, early and late.
        for at in [1.0, 8.0] {
            let shift = try AudioPathsTests.shift(source, output, at: at)
            #expect(abs(shift) <= 5, "\(fixture) → \(name): audio moved \(shift) ms at \(at) s")
        }
    }

    /// `--start 2 --end 5.5` into MPEG-TS: the pictures of the range, the audio cut to it, in sync.
    @Test(arguments: ["phone.mp4", "phone.ts"])
    func rangeIntoTransportStream(fixture: String) throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLIRunner.fixture("realworld/" + fixture)
        let (output, status, stderr) = try Self.encode(fixture, to: "cut.ts", ["--start", "2", "--end", "5.5"], in: directory)
        #expect(status == 0, "\(stderr)")
        let all = try TranscodeTests.framePTS(source)
        let first = all.first ?? 0
        let kept = all.filter { $0 - first >= 2 && $0 - first < 5.5 }
        #expect(kept.count == 105)
        #expect(try TranscodeTests.framePTS(output).count == kept.count)
        // About 3.5 s of audio, in sync.
        let audio = try AudioPathsTests.audioPackets(output, adts: true)
        #expect(audio.count > 140 && audio.count < 170, "\(audio.count) AAC frames")
        let shift = try AudioPathsTests.shift(source, output, at: 1)
        #expect(abs(shift) <= 5, "audio moved \(shift) ms")
    }

    /// Raw input (no time stamps) into MPEG-TS at the frame rate: ffprobe reads every frame.
    @Test func rawIntoTransportStream() throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("pattern.ts").path
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x90", "--frames", "20", "-r", "25",
                                        "--preset", "ultrafast", "-o", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let pts = try TranscodeTests.framePTS(output)
        #expect(pts.count == 20)
        #expect(zip(pts.dropFirst(), pts).allSatisfy { abs(($0 - $1) - 0.04) < 0.0005 })
    }

    /// An MP4 input with two sound tracks into MPEG-TS: both are carried (issue 41 item 13; they
    /// were one AAC stream and exit 2), every packet of each; a PCM track, which MPEG-TS does not
    /// carry, is named with exit status 2 once the output is written; --no-audio makes leaving
    /// audio out exit 0.
    @Test func everySoundTrackCarriedPCMNamed() throws {
        let directory = try TranscodeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("two.mp4").path
        let source = CLIRunner.fixture("realworld/phone.mp4")
        let made = try runTool("ffmpeg", ["-v", "error", "-i", source, "-t", "1", "-map", "0:v", "-map", "0:a", "-map", "0:a", "-c", "copy", input])
        #expect(made.status == 0, "\(made.stderr)")
        let output = directory.appendingPathComponent("out.ts").path
        let result = try CLIRunner.run(["encode", input, "-o", output, "--preset", "ultrafast", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try AudioCarriageTests.audio(output)
        let expected = try AudioCarriageTests.audio(input)
        #expect(streams.map(\.codec) == ["aac", "aac"])
        #expect(streams.map(\.packets) == expected.map(\.packets))
        let pcm = CLIRunner.fixture("tracks_mov_aac_pcm.mov")
        let refused = try CLIRunner.run(["encode", pcm, "-o", output, "--preset", "ultrafast", "--quiet"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("track 3 (soun, sowt) not carried"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))
        #expect(try AudioPathsTests.codecs(output) == ["h264", "aac"])
        let silent = try CLIRunner.run(["encode", pcm, "-o", output, "--preset", "ultrafast", "--quiet", "--no-audio"])
        #expect(silent.status == 0, "\(silent.stderr)")
    }
}
