import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The design card's commands, pipes, names and aliases, the error style and exit codes
/// (Docs/cli.md).
@Suite struct CommandLineContractTests {
    static let frame64x48 = 64 * 48 * 3 / 2

    /// Raw I420 frames with moving content.
    static func rawFrames(_ count: Int, bytesPerFrame: Int = frame64x48) -> Data {
        Data((0..<(count * bytesPerFrame)).map { UInt8(truncatingIfNeeded: $0 / 5 + $0 / bytesPerFrame * 7) })
    }

    /// The x264/x265 settings string an encode left in its SEI (`… keyint=12 … bitrate=500 …`).
    static func encoderSettings(_ path: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return String(decoding: bytes.prefix(4096).map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x20 }, as: UTF8.self)
    }

    // MARK: encode as the design card writes it

    @Test func designCardCommandNamesTheOutputForTheInput() throws {
        let scratch = try Scratch()
        try scratch.write("clip_64x48.yuv", Self.rawFrames(5))
        let hevc = try CLIRunner.run(["encode", scratch.file("clip_64x48.yuv"), "--codec", "hevc", "--preset", "ultrafast", "--quiet"])
        #expect(hevc.status == 0, "\(hevc.stderr)")
        let info = try EncodeCommandTests.info(scratch.file("clip_64x48.h265"))
        #expect(info["codec"] as? String == "hevc")
        #expect(info["width"] as? Int == 64)
        #expect(info["height"] as? Int == 48)
        #expect(info["access_units"] as? Int == 5)
        // Every spelling of each codec.
        for (spelling, codec, ext) in [("h264", "h264", "h264"), ("avc", "h264", "h264"), ("x264", "h264", "h264"),
                                       ("h265", "hevc", "h265"), ("x265", "hevc", "h265")] {
            let result = try CLIRunner.run(["encode", scratch.file("clip_64x48.yuv"), "--codec", spelling, "--preset", "ultrafast", "--quiet"])
            #expect(result.status == 0, "\(spelling): \(result.stderr)")
            #expect(try EncodeCommandTests.info(scratch.file("clip_64x48.\(ext)"))["codec"] as? String == codec)
        }
        #expect(try scratch.names() == ["clip_64x48.h264", "clip_64x48.h265", "clip_64x48.yuv"])
        // --to mp4 without -o: clip_64x48.mp4.
        let mp4 = try CLIRunner.run(["encode", scratch.file("clip_64x48.yuv"), "--to", "mp4", "--preset", "ultrafast", "--quiet"])
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(try ffmpegDecode(scratch.file("clip_64x48.mp4")).frames == 5)
    }

    @Test func frameSizeFromTheFileNameAsX264ReadsIt() throws {
        let scratch = try Scratch()
        // The last WxH token counts; nv12 has the same frame size as i420.
        try scratch.write("cam-32x16-64x48-nv12.yuv", Self.rawFrames(3))
        let result = try CLIRunner.run(["encode", scratch.file("cam-32x16-64x48-nv12.yuv"), "--pix-fmt", "nv12", "--preset", "ultrafast", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try EncodeCommandTests.info(scratch.file("cam-32x16-64x48-nv12.h264"))
        #expect(info["width"] as? Int == 64)
        #expect(info["height"] as? Int == 48)
        #expect(info["access_units"] as? Int == 3)
    }

    @Test func rawVideoWithoutASizeIsAUsageErrorSayingWhatToGive() throws {
        let scratch = try Scratch()
        try scratch.write("raw.yuv", Self.rawFrames(2))
        let result = try CLIRunner.run(["encode", scratch.file("raw.yuv"), "--codec", "hevc"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: \(scratch.file("raw.yuv")): cannot tell the frame size of raw video; give --size WxH (or name the file like clip_640x360.yuv)\nUsage: nalu encode "))
        #expect(try scratch.names() == ["raw.yuv"])
    }

    @Test func y4mIsRecognisedByItsMagicAndItsHeaderBeatsSize() throws {
        let scratch = try Scratch()
        // A Y4M stream under a raw-looking name with a size in it.
        try scratch.write("clip_320x240.yuv", EncodeCommandTests.y4m(width: 64, height: 48, frames: 4))
        let result = try CLIRunner.run(["encode", scratch.file("clip_320x240.yuv"), "--size", "320x240", "-o", scratch.file("out.h264"),
                                        "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: warning: \(scratch.file("clip_320x240.yuv")): the Y4M header says 64x48 "))
        let info = try EncodeCommandTests.info(scratch.file("out.h264"))
        #expect(info["width"] as? Int == 64)
        #expect(info["access_units"] as? Int == 4)
        // A raw file that merely starts with "YUV4MPEG2" without the space is raw.
        var raw = Data("YUV4MPEG2".utf8)
        raw.append(Self.rawFrames(2).dropFirst(raw.count))
        try scratch.write("odd_64x48.yuv", raw)
        let plain = try CLIRunner.run(["encode", scratch.file("odd_64x48.yuv"), "--preset", "ultrafast", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try EncodeCommandTests.info(scratch.file("odd_64x48.h264"))["access_units"] as? Int == 2)
    }

    @Test func x264SpellingsOfOptions() throws {
        let scratch = try Scratch()
        try scratch.write("in.yuv", Self.rawFrames(24))
        let output = scratch.file("out.h264")
        let result = try CLIRunner.run(["encode", scratch.file("in.yuv"), "--input-res", "64x48", "-r", "24", "--keyint", "12",
                                        "--pix-fmt", "yuv420p", "--bitrate", "500", "--vbv-maxrate", "600", "--vbv-bufsize", "1200",
                                        "--preset", "ultrafast", "--tune", "zerolatency", "--quiet", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let settings = try Self.encoderSettings(output)
        #expect(settings.contains(" keyint=12 "))
        // x264 writes kbit/s: --bitrate 500 is 500 kbit/s, not 500 bit/s.
        #expect(settings.contains(" bitrate=500 "))
        #expect(settings.contains(" vbv_maxrate=600 "))
        #expect(settings.contains(" vbv_bufsize=1200 "))
        let info = try EncodeCommandTests.info(output)
        #expect(info["access_units"] as? Int == 24)
        #expect(info["frame_rate"] as? String == "24/1")
        // k/M suffixes as before.
        let suffixed = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x48", "--frames", "2", "--bitrate", "2M",
                                          "--preset", "ultrafast", "--quiet", "-o", output])
        #expect(suffixed.status == 0)
        #expect(try Self.encoderSettings(output).contains(" bitrate=2000 "))
    }

    @Test func outputFramingFromTheExtension() throws {
        let scratch = try Scratch()
        let mp4 = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x48", "--frames", "3", "--quiet", "-o", scratch.file("a.m4v")])
        #expect(mp4.status == 0)
        #expect(try ffmpegDecode(scratch.file("a.m4v")).frames == 3)
        #expect(try scratch.read("a.m4v").dropFirst(4).prefix(4) == Data("ftyp".utf8))
        let annexB = try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.mp4"), "-o", scratch.file("b.264")])
        #expect(annexB.status == 0)
        #expect(try scratch.read("b.264").prefix(4) == Data([0, 0, 0, 1]))
        let unknown = try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.mp4"), "-o", scratch.file("c.bin")])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("nalu: error: \(scratch.file("c.bin")): cannot tell the output framing from the name\nhint: give --to annexb|avcc|mp4|ts|m2ts, or name the output .h264 .264 .avc .h265 .265 .hevc (Annex-B), .mp4 .m4v .mov (MP4), .ts or .m2ts (MPEG-TS)\nUsage: nalu convert "))
        let encodeUnknown = try CLIRunner.run(["encode", "--test-pattern", "--frames", "2", "-o", scratch.file("d.bin")])
        #expect(encodeUnknown.status == 64)
        // --output-format stays as a hidden alias of --to.
        let alias = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x48", "--frames", "2", "--quiet", "--output-format", "avcc",
                                       "-o", scratch.file("e.bin")])
        #expect(alias.status == 0, "\(alias.stderr)")
        #expect(try scratch.names() == ["a.m4v", "b.264", "e.bin"])
        let help = try CLIRunner.run(["encode", "--help"])
        #expect(help.stdout.contains("--to <to>"))
        #expect(!help.stdout.contains("--output-format"))
    }

    // MARK: pipes

    @Test func convertReadsStandardInputAndWritesStandardOutput() throws {
        let stream = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        let piped = try CLIRunner.run(["convert", "--to", "avcc"], stdin: stream)
        #expect(piped.status == 0, "\(piped.stderr)")
        let scratch = try Scratch()
        let named = try CLIRunner.run(["convert", streamFile("avc_main"), "--to", "avcc", "-o", scratch.file("x.lp")])
        #expect(named.status == 0)
        #expect(piped.stdoutBytes == (try scratch.read("x.lp")))
        // info, nals and keyframes read a pipe too.
        let info = try CLIRunner.run(["info", "--json"], stdin: stream)
        #expect(info.status == 0)
        #expect(try jsonObject(info.stdout)["access_units"] as? Int == 20)
        // encode: raw frames from a pipe to standard output.
        let encode = try CLIRunner.run(["encode", "--size", "64x48", "--preset", "ultrafast", "--quiet"], stdin: Self.rawFrames(3))
        #expect(encode.status == 0, "\(encode.stderr)")
        let decoded = try CLIRunner.run(["info", "--json"], stdin: encode.stdoutBytes)
        #expect(try jsonObject(decoded.stdout)["access_units"] as? Int == 3)
    }

    @Test func terminalsAreRefusedWithAnExample() throws {
        guard let terminal = PseudoTerminal() else {
            print("skipped: no pseudo-terminal available")
            return
        }
        defer { terminal.close() }
        // No input and standard input a terminal.
        let noInput = try RunningNalu(["nals"], stdin: terminal.terminal)
        #expect(noInput.wait() == 64)
        #expect(noInput.stderr.hasPrefix("nalu: error: no input given and standard input is a terminal\nhint: give an input file, or pipe one in: nalu nals clip.h264"))
        // Binary output to a terminal, as gzip refuses it.
        let binary = try RunningNalu(["convert", streamFile("avc_main"), "--to", "avcc"], stdout: terminal.terminal)
        #expect(binary.wait() == 64)
        #expect(binary.stderr.hasPrefix("nalu: error: standard output: refusing to write binary video to a terminal\nhint: redirect it or give -o FILE: "))
        let extradata = try RunningNalu(["extradata", streamFile("avc_main")], stdout: terminal.terminal)
        #expect(extradata.wait() == 64)
        // Text output to a terminal is fine.
        let text = try RunningNalu(["info", streamFile("avc_main")], stdout: terminal.terminal)
        #expect(text.wait() == 0)
    }

    // MARK: standard output checked

    @Test(arguments: [["info", "FILE"], ["nals", "FILE"], ["keyframes", "FILE"], ["extradata", "FILE", "-o", "-"],
                      ["convert", "FILE", "--to", "avcc", "--keep-parameter-sets", "-o", "-"]])
    func fullStandardOutputIsAnError(arguments: [String]) throws {
        let run = try RunningNalu(arguments.map { $0 == "FILE" ? streamFile("avc_main") : $0 }, stdout: FileHandle(forWritingAtPath: "/dev/full"))
        #expect(run.wait() == 74)
        #expect(run.stderr == "nalu: error: standard output: No space left on device\n")
    }

    // MARK: errors

    @Test func usageErrorsExit64InOneStyle() throws {
        let help = try CLIRunner.run(["help", "nosuch"])
        #expect(help.status == 64)
        #expect(help.stderr.hasPrefix("nalu: error: nosuch: no such subcommand\nhint: one of info, nals, keyframes, convert, extradata, trim, concat, edit, encode, doctor, decode, compare, package, rtp, record\n"))
        let unknown = try CLIRunner.run(["nosuch"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("nalu: error: "))
        let option = try CLIRunner.run(["info", "--bogus", streamFile("avc_main")])
        #expect(option.status == 64)
        #expect(option.stderr.hasPrefix("nalu: error: Unknown option '--bogus'\nUsage: nalu info "))
        for (flag, value) in [("--preset", "fastest"), ("--tune", "cinema"), ("--profile", "extreme"), ("--level", "99")] {
            let result = try CLIRunner.run(["encode", "--test-pattern", "--frames", "1", flag, value, "-o", "/dev/null"])
            #expect(result.status == 64, "\(flag)")
            #expect(result.stderr.hasPrefix("nalu: error: \(flag): "), "\(result.stderr)")
            #expect(!result.stderr.contains("Error:"))
        }
        let codec = try CLIRunner.run(["info", "--codec", "vp9", streamFile("avc_main")])
        #expect(codec.status == 64)
        #expect(codec.stderr.hasPrefix("nalu: error: The value 'vp9' is invalid for '--codec <codec>'. Please provide one of the following:\n  - h264\n  - avc\n  - x264\n  - h265\n  - hevc\n  - x265\n"))
    }

    @Test func missingInputExits66() throws {
        for command in [["info"], ["nals"], ["keyframes"], ["extradata"], ["convert", "--to", "avcc", "-o", "/dev/null"], ["encode", "-o", "/dev/null"]] {
            let result = try CLIRunner.run(command + ["/nonexistent/in.h264"])
            #expect(result.status == 66, "\(command)")
            #expect(result.stderr == "nalu: error: /nonexistent/in.h264: No such file or directory\n")
        }
        let record = try CLIRunner.run(["info", "--extradata", "/nonexistent/rec.avcC", streamFile("avc_main")])
        #expect(record.status == 66)
        #expect(record.stderr == "nalu: error: /nonexistent/rec.avcC: No such file or directory\n")
    }
}
