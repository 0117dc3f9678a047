import Foundation
import NALU
import Testing

/// Issue 40, the decode / transcode part: damaged and awkward streams through `nalu decode`,
/// `compare`, `encode IN` and `doctor --decode`, with the built binary and real streams.
@Suite struct DecodeDamageTests {
    /// `data` (Annex-B) with `forbidden_zero_bit` (the first bit of the NAL unit header) set in
    /// the `number`-th VCL NAL unit (from 0), and that unit's offset.
    static func damagingVCL(_ data: Data, codec: Codec, number: Int) throws -> (data: Data, offset: Int) {
        var bytes = [UInt8](data)
        var vcl: [Int] = []
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                if let header = try? NALUnitHeader(buffer[range], codec: codec), header.isVCL { vcl.append(range.lowerBound) }
            }
        }
        let offset = try #require(vcl.count > number ? vcl[number] : nil)
        bytes[offset] |= 0x80
        return (Data(bytes), offset)
    }

    /// `ffmpeg -v error -i PATH -f framecrc`: the frames ffmpeg decodes (count) and their sizes.
    static func ffmpegFrames(_ path: String, _ extra: [String] = []) throws -> [String] {
        let result = try runTool("ffmpeg", ["-v", "error"] + extra + ["-i", path, "-fps_mode", "passthrough", "-f", "framecrc", "-"])
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    // MARK: - Item 12: one damaged NAL unit costs its picture, not the stream

    /// A slice NAL unit with `forbidden_zero_bit` set: `decode` writes the 19 pictures the other
    /// NAL units give (ffmpeg decodes 19 too), then exits 65 naming the access unit and offset.
    /// Before: exit 65 and no output.
    @Test func decodeLeavesOutADamagedNALUnit() throws {
        let scratch = try Scratch()
        let (damaged, offset) = try Self.damagingVCL(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))),
                                                     codec: .h264, number: 7)
        try scratch.write("in.h264", damaged)
        let result = try CLIRunner.run(["decode", scratch.file("in.h264"), "-o", scratch.file("out.yuv")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(!result.signalled)
        let frameBytes = 176 * 144 * 3 / 2
        let written = try scratch.read("out.yuv")
        #expect(written.count == 19 * frameBytes)
        #expect(try Self.ffmpegFrames(scratch.file("in.h264")).count == 19)
        let lastLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.hasPrefix("nalu: error: "), "\(result.stderr)")
        #expect(lastLine.contains("1 damaged NAL unit(s) left out"), "\(lastLine)")
        // The damaged slice would have started access unit 7; the splitter was still in 6.
        #expect(lastLine.contains("after access unit 6"), "\(lastLine)")
        #expect(lastLine.contains("at byte \(offset)"), "\(lastLine)")
        #expect(lastLine.contains("forbidden_zero_bit"), "\(lastLine)")
        // The pictures written are ffmpeg's (the undamaged ones, identical).
        let reference = try runToolData("ffmpeg", ["-v", "quiet", "-i", scratch.file("in.h264"), "-fps_mode", "passthrough", "-f", "rawvideo", "-"])
        #expect(written == reference.stdout)
    }

    /// H.265 likewise (`hevc_main`, a slice segment of its fourth picture).
    @Test func decodeLeavesOutADamagedHEVCNALUnit() throws {
        let scratch = try Scratch()
        let original = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("hevc_main.h265")))
        let (damaged, _) = try Self.damagingVCL(original, codec: .hevc, number: 3)
        try scratch.write("in.h265", damaged)
        let result = try CLIRunner.run(["decode", scratch.file("in.h265"), "-o", scratch.file("out.y4m")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("damaged NAL unit(s) left out"))
        let frames = try Self.ffmpegFrames(scratch.file("out.y4m"))
        let all = try Self.ffmpegFrames(CLIRunner.fixture("hevc_main.h265"))
        #expect(!frames.isEmpty && frames.count < all.count, "\(frames.count) of \(all.count)")
    }

    /// `compare` prints the figures of the frames it could compare, then exits 65; `encode IN`
    /// writes the output, then exits 65.
    @Test func compareAndEncodeKeepTheRest() throws {
        let scratch = try Scratch()
        let (damaged, _) = try Self.damagingVCL(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))),
                                                codec: .h264, number: 19)
        try scratch.write("in.h264", damaged)
        let compare = try CLIRunner.run(["compare", scratch.file("in.h264"), scratch.file("in.h264"), "--json"])
        #expect(compare.status == 65, "\(compare.stderr)")
        #expect(compare.stdout.contains("\"frames\""), "\(compare.stdout)")
        #expect(compare.stderr.contains("nalu: error: ") && compare.stderr.contains("damaged NAL unit"), "\(compare.stderr)")
        let encode = try CLIRunner.run(["encode", scratch.file("in.h264"), "-o", scratch.file("out.h264"), "--preset", "ultrafast"])
        #expect(encode.status == 65, "\(encode.stderr)")
        #expect(encode.stderr.contains("damaged NAL unit"), "\(encode.stderr)")
        #expect(try Self.ffmpegFrames(scratch.file("out.h264")).count == 19)
    }

    /// `doctor --decode` on a stream nalu cannot decode (4:0:0, 12-bit HEVC, valid): a
    /// `decode-unsupported` finding, and the parse's findings kept. Before: exit 65, nothing.
    @Test(arguments: ["gray", "yuv420p12le"])
    func doctorDecodeReportsUnsupported(pixelFormat: String) throws {
        let scratch = try Scratch()
        let path = scratch.file("in.h265")
        let made = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x64:rate=25:duration=0.2",
                                          "-c:v", "libx265", "-pix_fmt", pixelFormat, "-x265-params", "log-level=none", path])
        try #require(made.status == 0, "this ffmpeg's x265 cannot write \(pixelFormat): \(made.stderr)")
        let result = try CLIRunner.run(["doctor", path, "--decode", "--json"])
        #expect(!result.signalled)
        let codes = result.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object["code"] as? String
        }
        #expect(codes.contains("decode-unsupported"), "\(result.stdout)\(result.stderr)")
        // The parse's own finding about a raw stream without a container rate stays.
        #expect(codes.count >= 2, "\(codes)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"summary\""))
    }

    // MARK: - Item 11: one size per Y4M / raw output

    /// 640x360 then 1280x720: refused (65) naming the frame, no output file. Before: a Y4M
    /// whose header says 640x360 over 1280x720 frames, exit 0.
    @Test(arguments: ["out.y4m", "out.yuv"])
    func sizeChangeIsRefused(output: String) throws {
        let scratch = try Scratch()
        let joined = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_640x360.h264")))
            + Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("concat_avc_1280x720.h264")))
        try scratch.write("in.h264", joined)
        let result = try CLIRunner.run(["decode", scratch.file("in.h264"), "-o", scratch.file(output)])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: "), "\(result.stderr)")
        #expect(result.stderr.contains("frame 25"), "\(result.stderr)")
        #expect(result.stderr.contains("1280x720") && result.stderr.contains("640x360"))
        #expect(result.stderr.contains("--scale"))
        let names = try scratch.names()
        #expect(names == ["in.h264"], "\(names)")
    }

    /// 4:2:0 then 4:4:4 at one size: refused too.
    @Test func chromaFormatChangeIsRefused() throws {
        let scratch = try Scratch()
        let joined = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
            + Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_high444.h264")))
        try scratch.write("in.h264", joined)
        let result = try CLIRunner.run(["decode", scratch.file("in.h264"), "-o", scratch.file("out.y4m")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("yuv444p") && result.stderr.contains("frame 20"), "\(result.stderr)")
        #expect(try scratch.names() == ["in.h264"])
    }

    // MARK: - Item 20: nothing compared

    /// Two inputs without a frame (parameter sets only): exit 65, no figures. Before: exit 0
    /// with a null ("identical") PSNR.
    @Test func compareOfNoFramesFails() throws {
        let scratch = try Scratch()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))))
        // Everything before the first slice's 3-byte start code: SPS, PPS, SEI.
        var firstVCL = bytes.count
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                if let header = try? NALUnitHeader(buffer[range], codec: .h264), header.isVCL { firstVCL = min(firstVCL, range.lowerBound - 3) }
            }
        }
        try scratch.write("empty.h264", Data(bytes[..<firstVCL]))
        let result = try CLIRunner.run(["compare", scratch.file("empty.h264"), scratch.file("empty.h264"), "--json"])
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("nalu: error: "), "\(result.stderr)")
        // A Y4M header without frames.
        try scratch.write("empty.y4m", Data("YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C420jpeg\n".utf8))
        let y4m = try CLIRunner.run(["compare", scratch.file("empty.y4m"), scratch.file("empty.y4m")])
        #expect(y4m.status == 65, "\(y4m.stdout)\(y4m.stderr)")
        #expect(y4m.stdout.isEmpty)
        #expect(y4m.stderr.hasPrefix("nalu: error: ") && y4m.stderr.contains("no frame to compare"), "\(y4m.stderr)")
    }
}
