import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 17: `nalu encode --chunk I/N` and `--seek F --frames M` on the Y4M fixture
/// (`chunk_128x72.y4m`, 20 frames at 25 fps) with each encoder. Every chunk starts with an IDR
/// and codes its frame range; the parts put end to end (Annex-B parts join by concatenation)
/// decode with ffmpeg without an error to exactly 20 frames, within 0.3 dB PSNR of one encode
/// at the same rate factor. Out-of-range requests are usage errors naming the option.
@Suite struct ChunkCommandTests {
    static let fixture = CLIRunner.fixture("chunk_128x72.y4m")

    struct Encoder: CustomStringConvertible, Sendable {
        var name: String
        var fileExtension: String
        /// The rate control: CRF where the library has it (OpenH264: a constant QP).
        var rate: [String]
        var description: String { name }
    }

    static let encoders = [
        Encoder(name: "x264", fileExtension: "h264", rate: ["--crf", "23"]),
        Encoder(name: "x265", fileExtension: "h265", rate: ["--crf", "28"]),
        Encoder(name: "openh264", fileExtension: "h264", rate: ["--qp", "26"]),
    ]

    /// `nalu keyframes --json`: one object per keyframe access unit.
    static func keyframes(_ path: String) throws -> [[String: Any]] {
        let result = try CLIRunner.run(["keyframes", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { try jsonObject(String($0)) }
    }

    static func accessUnits(_ path: String) throws -> Int? {
        let result = try CLIRunner.run(["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        return try jsonObject(result.stdout)["access_units"] as? Int
    }

    /// ffmpeg's average PSNR of `path` against frames `frames` of the fixture.
    static func psnr(_ path: String, frames: Range<Int>) throws -> Double {
        let ffmpeg = try #require(ffmpegPath, "ffmpeg is needed for PSNR")
        // Frames paired by their index (an elementary stream has no timestamps of its own).
        let filter = "[0]settb=1/1000,setpts=N[enc];[1]trim=start_frame=\(frames.lowerBound):end_frame=\(frames.upperBound),settb=1/1000,setpts=N[ref];[enc][ref]psnr"
        let result = try runProgram(ffmpeg, ["-nostdin", "-hide_banner", "-i", path, "-i", fixture, "-lavfi", filter, "-f", "null", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("PSNR y:") }, "\(result.stderr)")
        let value = try #require(line.split(separator: " ").first { $0.hasPrefix("average:") }?.dropFirst("average:".count))
        return try #require(Double(value))
    }

    /// Encodes the fixture's chunks 0..<count and returns the part paths.
    static func encodeChunks(_ encoder: Encoder, count: Int, in scratch: Scratch, extra: [String] = []) throws -> [String] {
        try (0..<count).map { index in
            let part = scratch.file("part-\(index).\(encoder.fileExtension)")
            let result = try CLIRunner.run(["encode", fixture, "--encoder", encoder.name, "--chunk", "\(index)/\(count)",
                                            "--threads", "1", "--quiet", "-o", part] + encoder.rate + extra)
            #expect(result.status == 0, "\(encoder) chunk \(index): \(result.stderr)")
            #expect(result.stderr == "")
            return part
        }
    }

    static func join(_ parts: [String], to path: String) throws {
        var joined = Data()
        for part in parts { joined.append(try Data(contentsOf: URL(fileURLWithPath: part))) }
        try joined.write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: encoders)
    func everyChunkStartsWithAnIDRAndThePartsJoin(_ encoder: Encoder) throws {
        let scratch = try Scratch()
        let parts = try Self.encodeChunks(encoder, count: 3, in: scratch)
        // ⌊i·20/3⌋: frames 0–5, 6–12, 13–19.
        for (part, (first, count)) in zip(parts, [(0, 6), (6, 7), (13, 7)]) {
            #expect(try Self.accessUnits(part) == count, "\(encoder) \(part)")
            let keyframes = try Self.keyframes(part)
            #expect(keyframes.first?["index"] as? Int == 0)
            #expect(keyframes.first?["class"] as? String == "idr", "\(encoder) chunk at frame \(first)")
            // The chunk holds the source's frames first..<first+count, not others.
            #expect(try Self.psnr(part, frames: first..<(first + count)) > 30, "\(encoder) \(part)")
        }
        // Byte-identical parameter sets: the extradata of every part is the same.
        let extradata = try parts.map { part in
            let result = try CLIRunner.run(["extradata", part, "-o", part + ".extradata"])
            #expect(result.status == 0, "\(result.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: part + ".extradata"))
        }
        #expect(!extradata[0].isEmpty)
        #expect(extradata.allSatisfy { $0 == extradata[0] }, "\(encoder): parameter sets differ between chunks")

        let joined = scratch.file("joined.\(encoder.fileExtension)")
        try Self.join(parts, to: joined)
        let decoded = try ffmpegDecode(joined)
        #expect(decoded.frames == 20, "\(encoder)")
        #expect(decoded.errors == "", "\(encoder)")
        #expect(try Self.keyframes(joined).map { $0["index"] as? Int } == [0, 6, 13])
    }

    @Test(arguments: encoders)
    func chunkedQualityIsWithinAThirdOfADecibelOfSinglePass(_ encoder: Encoder) throws {
        let scratch = try Scratch()
        let single = scratch.file("single.\(encoder.fileExtension)")
        let result = try CLIRunner.run(["encode", Self.fixture, "--encoder", encoder.name, "--threads", "1", "--quiet", "-o", single] + encoder.rate)
        #expect(result.status == 0, "\(result.stderr)")
        let joined = scratch.file("joined.\(encoder.fileExtension)")
        try Self.join(try Self.encodeChunks(encoder, count: 2, in: scratch), to: joined)
        let singlePSNR = try Self.psnr(single, frames: 0..<20)
        let chunkedPSNR = try Self.psnr(joined, frames: 0..<20)
        // The bound: 0.3 dB of the single encode at the same CRF (QP for OpenH264).
        #expect(abs(singlePSNR - chunkedPSNR) <= 0.3, "\(encoder): single \(singlePSNR) dB, 2 chunks \(chunkedPSNR) dB")
    }

    @Test func seekAndFramesEncodeThatRange() throws {
        let scratch = try Scratch()
        let output = scratch.file("range.h264")
        let result = try CLIRunner.run(["encode", Self.fixture, "--seek", "5", "--frames", "4", "--crf", "18", "--quiet", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.accessUnits(output) == 4)
        #expect(try Self.keyframes(output).first?["class"] as? String == "idr")
        // Frames 5–8 of the source (about 41 dB at CRF 18), not frames 0–3 (about 21 dB).
        #expect(try Self.psnr(output, frames: 5..<9) > 35)
        #expect(try Self.psnr(output, frames: 0..<4) < 30)

        // --frames past the end stops at the end, as without --seek.
        let tail = try CLIRunner.run(["encode", Self.fixture, "--seek", "18", "--frames", "5", "--quiet", "-o", output])
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(try Self.accessUnits(output) == 2)
    }

    @Test func rawInputChunksByItsSize() throws {
        let scratch = try Scratch()
        // The fixture's frames without the Y4M header and FRAME lines, plus half a frame.
        let y4m = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        let frameSize = 128 * 72 * 3 / 2
        let header = try #require(y4m.firstIndex(of: 0x0A)) + 1
        var raw = Data()
        for index in 0..<20 {
            let start = header + index * (6 + frameSize) + 6
            raw.append(y4m[start..<(start + frameSize)])
        }
        raw.append(Data(count: frameSize / 2))
        let input = scratch.file("clip_128x72.yuv")
        try raw.write(to: URL(fileURLWithPath: input))
        let parts = try (0..<2).map { index in
            let part = scratch.file("raw-\(index).h264")
            let result = try CLIRunner.run(["encode", input, "--fps", "25", "--chunk", "\(index)/2", "--crf", "23", "--quiet", "-o", part])
            #expect(result.status == 0, "\(result.stderr)")
            // The chunk stops at its last frame: no warning about the partial frame after it.
            #expect(result.stderr == "")
            return part
        }
        #expect(try parts.map(Self.accessUnits) == [10, 10])
        #expect(try Self.psnr(parts[1], frames: 10..<20) > 30)
        let joined = scratch.file("joined.h264")
        try Self.join(parts, to: joined)
        let decoded = try ffmpegDecode(joined)
        #expect(decoded.frames == 20)
        #expect(decoded.errors == "")
        let past = try CLIRunner.run(["encode", input, "--seek", "20", "-o", scratch.file("x.h264")])
        #expect(past.status == 64)
        #expect(past.stderr.hasPrefix("nalu: error: \(input): --seek 20: the input holds 20 frames (0 to 19)\n"))
    }

    @Test func chunkToMP4AndTheDefaultPartName() throws {
        let scratch = try Scratch()
        let input = scratch.file("clip.y4m")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: input)
        let result = try CLIRunner.run(["encode", input, "--chunk", "1/2", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try scratch.names() == ["clip.part-0001.h264", "clip.y4m"])
        #expect(try Self.accessUnits(scratch.file("clip.part-0001.h264")) == 10)
        let mp4 = try CLIRunner.run(["encode", input, "--chunk", "0/2", "--to", "mp4", "--quiet"])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        let decoded = try ffmpegDecode(scratch.file("clip.part-0000.mp4"))
        #expect(decoded.frames == 10)
        #expect(decoded.errors == "")
    }

    @Test func outOfRangeAndConflictingRequestsAreUsageErrors() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        let cases: [([String], String)] = [
            (["--chunk", "3/3"], "nalu: error: --chunk 3/3: the chunk index must be below the chunk count, 0 to 2."),
            (["--chunk", "0/21"], "nalu: error: \(Self.fixture): --chunk 0/21: the input holds 20 frames, fewer than 21 chunks"),
            (["--seek", "20"], "nalu: error: \(Self.fixture): --seek 20: the input holds 20 frames (0 to 19)"),
            (["--seek=-1"], "nalu: error: --seek must be 0 or more."),
            (["--chunk", "0/2", "--seek", "3"], "nalu: error: --chunk chooses its frames itself: use it without --seek and --frames."),
            (["--chunk", "0/2", "--frames", "3"], "nalu: error: --chunk chooses its frames itself: use it without --seek and --frames."),
            (["--chunk", "0/2", "--open-gop"], "nalu: error: --chunk 0/2 starts with an IDR and closes its GOPs: use it without --open-gop."),
        ]
        for (options, message) in cases {
            let result = try CLIRunner.run(["encode", Self.fixture, "-o", output] + options)
            #expect(result.status == 64, "\(options)")
            #expect(result.stderr.hasPrefix(message + "\n"), "\(options): \(result.stderr)")
        }
        for value in ["2", "1/0", "a/3", "1/2/3"] {
            let result = try CLIRunner.run(["encode", Self.fixture, "-o", output, "--chunk", value])
            #expect(result.status == 64, "\(value)")
            #expect(result.stderr.contains("--chunk"), "\(value): \(result.stderr)")
        }
        let pattern = try CLIRunner.run(["encode", "--test-pattern", "--chunk", "0/2", "-o", output])
        #expect(pattern.status == 64)
        #expect(pattern.stderr.hasPrefix("nalu: error: --chunk 0/2 needs an input file (raw or Y4M), not the test pattern.\n"))
        // Nothing was written by any refusal.
        #expect(try scratch.names() == [])
    }

    @Test func aPipeCannotSeek() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.h264")
        // CLIRunner feeds standard input from a file, which can seek: a FIFO cannot. The test
        // holds both ends open (O_RDWR does not wait for a reader) with the stream's first 1000
        // bytes in the pipe: enough for the header, and no writer to block.
        let fifo = scratch.file("in.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let descriptor = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture)).prefix(1000))
        #expect(head.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == 1000)
        let result = try CLIRunner.run(["encode", fifo, "--chunk", "1/2", "-o", output])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: \(fifo): --chunk 1/2 needs an input that can seek (a raw or Y4M file); pipes cannot\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
