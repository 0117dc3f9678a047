import Foundation
import Testing

/// `nalu decode` (issue 33): raw output byte for byte what `ffmpeg -f rawvideo` writes, Y4M with
/// size, rate, chroma and range, every container, both decoders, and the failures.
@Suite struct DecodeCommandTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-decode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `ffmpeg -i IN -f rawvideo [-pix_fmt F]` of the first video stream.
    static func ffmpegRaw(_ input: String, pixelFormat: String? = nil) throws -> Data {
        var arguments = ["-v", "error", "-i", input, "-map", "0:v:0", "-fps_mode", "passthrough"]
        if let pixelFormat { arguments += ["-pix_fmt", pixelFormat] }
        let result = try runToolData("ffmpeg", arguments + ["-f", "rawvideo", "-"])
        #expect(result.status == 0)
        return result.stdout
    }

    static func decode(_ arguments: [String]) throws -> (data: Data, result: CLIRunner.Result) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.yuv")
        let result = try CLIRunner.run(["decode"] + arguments + ["-o", output.path])
        let data = (try? Data(contentsOf: output)) ?? Data()
        return (data, result)
    }

    @Test(arguments: ["avc_high_bframes.h264", "avc_high10.h264", "avc_high422.h264", "avc_interlaced.h264", "hevc_main10.h265",
                      "hevc_rext444.h265", "mp4_avc_bframes.mp4", "mp4_hevc_frag.mp4", "tracks_avc_aac.mp4", "avc_baseline.lp"])
    func rawEqualsFFmpeg(fixture: String) throws {
        let path = CLIRunner.fixture(fixture)
        var arguments = [path]
        if fixture.hasSuffix(".lp") { arguments += ["--extradata", CLIRunner.fixture("avc_baseline.avcC")] }
        let (data, result) = try Self.decode(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let reference = fixture.hasSuffix(".lp") ? CLIRunner.fixture("avc_baseline.h264") : path
        let expected = try Self.ffmpegRaw(reference)
        #expect(!expected.isEmpty)
        #expect(data == expected)
    }

    /// A transport stream (made here by ffmpeg from an MP4 with audio) decodes like its source.
    @Test func transportStreamInput() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ts = directory.appendingPathComponent("in.ts").path
        let made = try runTool("ffmpeg", ["-v", "error", "-i", CLIRunner.fixture("mp4_avc_audio.mp4"), "-c", "copy", "-f", "mpegts", ts])
        #expect(made.status == 0, "\(made.stderr)")
        let (data, result) = try Self.decode([ts])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(data == (try Self.ffmpegRaw(CLIRunner.fixture("mp4_avc_audio.mp4"))))
    }

    /// libde265 on an HEVC fixture it decodes bit-exactly (Docs: the ones it does not).
    @Test func de265EqualsFFmpeg() throws {
        let path = CLIRunner.fixture("hevc_rext422_10.h265")
        let (data, result) = try Self.decode([path, "--decoder", "de265"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(data == (try Self.ffmpegRaw(path)))
    }

    /// `--pix-fmt nv12` / `p010le`: the semi-planar form, as ffmpeg converts it.
    @Test(arguments: [("avc_main.h264", "nv12"), ("hevc_main10.h265", "p010le")])
    func semiPlanarOutput(fixture: String, format: String) throws {
        let path = CLIRunner.fixture(fixture)
        let (data, result) = try Self.decode([path, "--pix-fmt", format])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(data == (try Self.ffmpegRaw(path, pixelFormat: format)))
    }

    @Test func framesLimitsTheOutput() throws {
        let path = CLIRunner.fixture("avc_main.h264")
        let (data, result) = try Self.decode([path, "--frames", "3"])
        #expect(result.status == 0)
        let all = try Self.ffmpegRaw(path)
        #expect(data == all.prefix(3 * 176 * 144 * 3 / 2))
    }

    /// Y4M: the header says size, rate, chroma format and siting, range and aspect ratio; the
    /// frames are ffmpeg's.
    @Test func y4mCarriesSizeRateChromaAndRange() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = [
            ("colour_avc_pc_sar43.h264", "YUV4MPEG2 W176 H144 F25:1 Ip A4:3 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=FULL"),
            ("hevc_main10.h265", "YUV4MPEG2 W176 H144 F30:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=LIMITED"),
            ("hevc_rext444.h265", "YUV4MPEG2 W176 H144 F30:1 Ip A1:1 C444 XYSCSS=444 XCOLORRANGE=LIMITED"),
        ]
        for (fixture, header) in cases {
            let output = directory.appendingPathComponent("\(fixture).y4m")
            let result = try CLIRunner.run(["decode", CLIRunner.fixture(fixture), "-o", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            let data = try Data(contentsOf: output)
            let firstLine = data.prefix { $0 != 0x0A }
            #expect(String(decoding: firstLine, as: UTF8.self) == header)
            // What ffmpeg's own y4m reader makes of it: the same frames.
            let reread = try runToolData("ffmpeg", ["-v", "error", "-i", output.path, "-f", "rawvideo", "-"])
            #expect(reread.stdout == (try Self.ffmpegRaw(CLIRunner.fixture(fixture))))
            let probed = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=color_range", "-of", "csv=p=0", output.path])
            #expect(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (fixture.contains("pc") ? "pc" : "tv"))
        }
    }

    @Test func missingLibraryExits69WithThePackage() throws {
        let result = try CLIRunner.run(["decode", CLIRunner.fixture("avc_main.h264"), "-o", "/dev/null"],
                                       environment: ["NALU_LIBAVCODEC": "/nonexistent/libavcodec.so.59"])
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("nalu: error: /nonexistent/libavcodec.so.59: "))
        #expect(result.stderr.contains("hint: install libavcodec"))
        let de265 = try CLIRunner.run(["decode", CLIRunner.fixture("hevc_main.h265"), "--decoder", "de265", "-o", "/dev/null"],
                                      environment: ["NALU_LIBDE265": "libde265.so.99"])
        #expect(de265.status == 69)
        #expect(de265.stderr.contains("hint: install libde265"))
    }

    @Test func de265RefusesH264AsAUsageError() throws {
        let result = try CLIRunner.run(["decode", CLIRunner.fixture("avc_main.h264"), "--decoder", "de265", "-o", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: --decoder: libde265 decodes H.265 only"))
    }

    /// A stream cut in its last slice: decoded with ffmpeg's concealment, the error named.
    @Test func damageIsAWarningWithThePlace() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = directory.appendingPathComponent("cut.h264")
        try Data(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))).prefix(2000)).write(to: cut)
        let result = try CLIRunner.run(["decode", cut.path, "--threads", "1", "-o", "/dev/null"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("nalu: warning: \(cut.path): access unit 0 at byte 0: error while decoding MB"))
    }
}

/// `nalu encode IN` from a compressed input (issue 33, item 4): decoded on a thread of its own,
/// every frame encoded once, in the decoded format.
@Suite struct EncodeFromCompressedTests {
    @Test func mp4AndElementaryInputs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-transcode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = [("mp4_avc_bframes.mp4", "out.mp4", ["--codec", "hevc", "--crf", "26"], 30, "yuv420p"),
                     ("hevc_main10.h265", "out.h264", ["--crf", "20"], 12, "yuv420p10le")]
        for (fixture, name, options, frames, format) in cases {
            let output = directory.appendingPathComponent(name).path
            let result = try CLIRunner.run(["encode", CLIRunner.fixture(fixture), "-o", output, "--quiet"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            let probed = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                 "-show_entries", "stream=nb_read_frames,pix_fmt", "-of", "csv=p=0", output])
            #expect(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(format),\(frames)")
            let compared = try CLIRunner.run(["compare", CLIRunner.fixture(fixture), output, "--json"])
            #expect(compared.status == 0, "\(compared.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any])
            let average = try #require((json["psnr"] as? [String: Any])?["average"] as? Double)
            #expect(average > 30)
        }
    }

    /// --chunk splits raw, Y4M and MP4/MOV inputs (a sample table to split at); an elementary
    /// stream is refused, and --seek (a frame number) on a compressed input too (--start takes times).
    @Test func chunksNeedRawOrMP4Input() throws {
        let stream = try CLIRunner.run(["encode", CLIRunner.fixture("avc_high_bframes.h264"), "--chunk", "1/2", "-o", "/dev/null"])
        #expect(stream.status == 64, "\(stream.stderr)")
        let seek = try CLIRunner.run(["encode", CLIRunner.fixture("mp4_avc_bframes.mp4"), "--seek", "3", "-o", "/dev/null"])
        #expect(seek.status == 64, "\(seek.stderr)")
        let mp4 = try CLIRunner.run(["encode", CLIRunner.fixture("mp4_avc_bframes.mp4"), "--chunk", "1/2", "-o", "/dev/null", "--quiet"])
        #expect(mp4.status == 0, "\(mp4.stderr)")
    }
}
