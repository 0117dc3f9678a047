import Foundation
import Testing

/// Interlaced input (issue 41 item 15), on the fixtures of Scripts/make-interlaced-fixtures.sh
/// (x264 MBAFF 480i top field first in MP4, 576i bottom field first in MPEG-TS, 1080i top field
/// first; x265 field pictures). `nalu encode` keeps an interlaced input interlaced with its
/// field order, as ffprobe reads the source (`field_order`, every frame's `interlaced_frame` and
/// `top_field_first`), every picture at its time (ffprobe's frame times against the source's),
/// ffmpeg decoding it without a message and GStreamer showing every picture; an encoder that
/// cannot code it is refused unless `--progressive` asks for progressive pictures. `trim
/// --smart` cuts the H.264 ones at non-keyframes, the re-encoded head interlaced too.
@Suite struct InterlacedTests {
    static func fixture(_ name: String) -> String { CLIRunner.fixture("interlaced/\(name)") }

    /// ffprobe's view of a video stream: `field_order`, and per decoded frame its time and flags.
    struct Probe: Equatable {
        var fieldOrder: String
        /// `interlaced_frame,top_field_first` of every frame, in presentation order.
        var flags: [String]
        /// Frame times less the first one's, in ms.
        var times: [Int]
    }

    static func probe(_ path: String) throws -> Probe {
        let stream = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=field_order", "-of", "csv=p=0", path])
        // "frame|pts_time=0.033367|interlaced_frame=1|top_field_first=1", read by name.
        let named = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time,interlaced_frame,top_field_first",
                                            "-of", "compact", path])
        #expect(stream.status == 0 && named.status == 0, "ffprobe \(path): \(stream.stderr) \(named.stderr)")
        var flags: [String] = []
        var seconds: [Double] = []
        for line in named.stdout.split(separator: "\n") where line.hasPrefix("frame|") {
            var values: [String: String] = [:]
            for field in line.split(separator: "|") {
                let pair = field.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { values[String(pair[0])] = String(pair[1]) }
            }
            flags.append("\(values["interlaced_frame"] ?? "?"),\(values["top_field_first"] ?? "?")")
            seconds.append(Double(values["pts_time"] ?? "") ?? .nan)
        }
        let first = seconds.first ?? 0
        return Probe(fieldOrder: stream.stdout.split(separator: "\n").first.map(String.init) ?? "",
                     flags: flags, times: seconds.map { Int((($0 - first) * 1000).rounded()) })
    }

    /// The pictures GStreamer's `playbin` decodes and shows of `path`, one per frame: video only
    /// (`flags=video`, so its default deinterlacer, which shows every field as a picture, is left
    /// out) into `checksumsink`, which prints each picture's time and MD5.
    static func gstreamerPictures(_ path: String) throws -> Int {
        let uri = URL(fileURLWithPath: path).absoluteString
        let result = try runTool("gst-launch-1.0", ["-q", "playbin", "flags=video", "uri=\(uri)", "video-sink=checksumsink hash=0 sync=false",
                                                    "audio-sink=fakesink sync=false"])
        #expect(result.status == 0, "gst-launch playbin \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { $0.split(separator: " ").last?.count == 32 }.count
    }

    /// ffmpeg's decode of the video of `path`: pictures, and its messages (empty when clean).
    static func ffmpegPictures(_ path: String) throws -> (count: Int, errors: String) {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-an", "-f", "framemd5", "-"])
        return (result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }

    /// `nalu encode` of each H.264 fixture: the output is interlaced as the source is, picture for
    /// picture and time for time; ffmpeg decodes it cleanly and GStreamer shows every picture.
    @Test(arguments: ["avc_480i_tff.mp4", "avc_576i_bff.ts", "avc_1080i_tff.mp4"])
    func encodeKeepsTheFieldOrder(name: String) throws {
        let source = Self.fixture(name)
        let scratch = try Scratch()
        let output = scratch.file("out." + (name.hasSuffix(".ts") ? "ts" : "mp4"))
        let run = try CLIRunner.run(["encode", source, "--crf", "20", "--preset", "veryfast", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.probe(source)
        // The fixture is what it claims: every frame interlaced, one field order.
        #expect(["tt", "bb"].contains(expected.fieldOrder) && Set(expected.flags).count == 1 && expected.flags.first?.hasPrefix("1,") == true,
                "\(name): \(expected.fieldOrder) \(Set(expected.flags))")
        let got = try Self.probe(output)
        #expect(got.fieldOrder == expected.fieldOrder, "\(name): field_order \(got.fieldOrder), source \(expected.fieldOrder)")
        #expect(got.flags == expected.flags, "\(name): \(Set(got.flags)) against \(Set(expected.flags))")
        #expect(got.times == expected.times, "\(name): \(got.times.count) frames, source \(expected.times.count)")
        let decode = try Self.ffmpegPictures(output)
        #expect(decode.errors.isEmpty && decode.count == expected.times.count, "\(name): \(decode.count) frames, \(decode.errors)")
        #expect(try Self.gstreamerPictures(output) == expected.times.count, "\(name): GStreamer")
        // The audio copied along stays in sync (by content: Scripts/avsync.py).
        if !name.contains("1080i") {
            let shift = try AudioPathsTests.shift(source, output, at: 1)
            #expect(abs(shift) <= 5, "\(name): A/V \(shift) ms")
        }
        // --progressive: progressive pictures on purpose, the same count.
        let progressive = scratch.file("progressive.mp4")
        let asked = try CLIRunner.run(["encode", source, "--progressive", "--crf", "20", "--preset", "veryfast", "--no-audio", "-o", progressive])
        #expect(asked.status == 0, "\(asked.stderr)")
        let flat = try Self.probe(progressive)
        #expect(flat.fieldOrder == "progressive" && Set(flat.flags) == ["0,0"] && flat.times == expected.times, "\(name): \(flat.fieldOrder)")
    }

    /// Field-coded H.265 (x265 --interlace tff) encoded by x265: field pictures again, each field
    /// once; GStreamer's h265parse sees field pictures (caps with the frame height, twice the
    /// pictures' height ffprobe reports), as for the source.
    @Test func encodeKeepsHEVCFieldPictures() throws {
        let source = Self.fixture("hevc_fields_tff.h265")
        let scratch = try Scratch()
        let output = scratch.file("out.h265")
        let run = try CLIRunner.run(["encode", source, "--crf", "24", "--preset", "veryfast", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        func heights(_ path: String) throws -> (ffprobe: Int, gst: Int, frames: Int) {
            let probe = try runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=height,nb_read_frames", "-of", "csv=p=0", path])
            let values = probe.stdout.split(whereSeparator: { $0 == "," || $0 == "\n" }).compactMap { Int($0) }
            let gst = try runTool("gst-launch-1.0", ["-v", "filesrc", "location=\(path)", "!", "h265parse", "!", "fakesink"])
            let caps = gst.stdout.split(separator: "\n").first { $0.contains("h265parse") && $0.contains("height=(int)") } ?? ""
            let height = caps.split(separator: "height=(int)").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            return (values.first ?? 0, height, values.count > 1 ? values[1] : 0)
        }
        let expected = try heights(source)
        let got = try heights(output)
        #expect(expected.gst == 2 * expected.ffprobe && expected.frames > 0, "source: \(expected)")
        #expect(got.ffprobe == expected.ffprobe && got.gst == expected.gst && got.frames == expected.frames, "\(got) against \(expected)")
        #expect(try Self.ffmpegPictures(output).errors.isEmpty)
    }

    /// An encoder that cannot code the input's interlacing: refused (exit 64, nothing written),
    /// naming --progressive; asked for with --progressive, it writes progressive pictures.
    @Test func refusedUnlessProgressiveIsAsked() throws {
        let scratch = try Scratch()
        let cases: [(String, [String])] = [
            ("avc_480i_tff.mp4", ["--encoder", "openh264", "--bitrate", "1M"]),
            ("avc_480i_tff.mp4", ["--codec", "hevc"]),
            ("hevc_fields_tff.h265", ["--codec", "h264"]),
            ("avc_576i_bff.ts", ["--scale", "360x288"]),
        ]
        for (name, options) in cases {
            let output = scratch.file("refused.mp4")
            let run = try CLIRunner.run(["encode", Self.fixture(name)] + options + ["--no-audio", "-o", output])
            #expect(run.status == 64 && run.stderr.contains("interlaced") && run.stderr.contains("--progressive"), "\(name) \(options): \(run.status) \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name) \(options): wrote an output")
        }
        let output = scratch.file("openh264.mp4")
        let run = try CLIRunner.run(["encode", Self.fixture("avc_480i_tff.mp4"), "--encoder", "openh264", "--bitrate", "1M", "--progressive", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.probe(output).fieldOrder == "progressive")
    }

    /// `trim --smart` at non-keyframes: the output shows the source's pictures of the range
    /// (ffmpeg's `trim` of the decoded source), decodes with -xerror, ≥ 40 dB where re-encoded,
    /// plays in GStreamer (SmartTrimTests.check); and every picture, the re-encoded ones too,
    /// is interlaced with the source's field order. (The transport stream's audio starts 21.3 ms
    /// before its video: its cut times fall where the pictures are the same whether the timeline
    /// starts at the audio, as nalu counts it, or at the video, as ffmpeg's `trim` with `-an` does.)
    @Test(arguments: [("avc_480i_tff.mp4", "0.6", "1.7"), ("avc_576i_bff.ts", "0.51", "1.47"), ("avc_1080i_tff.mp4", "0.1", "0.35")])
    func smartCut(name: String, start: String, end: String) throws {
        let source = Self.fixture(name)
        try SmartTrimTests.check(source: source, fixture: name, start: start, stop: end, pictures: nil, extraDecoders: true)
        let scratch = try Scratch()
        let output = scratch.file("cut.mp4")
        let run = try CLIRunner.run(["trim", source, "--start", start, "--end", end, "--smart", "--verbose", "-o", output])
        #expect(run.status == 0 && run.stderr.contains("re-encoded before"), "\(run.stderr)")
        let expected = try Self.probe(source)
        let got = try Self.probe(output)
        #expect(got.fieldOrder == expected.fieldOrder)
        #expect(!got.flags.isEmpty && Set(got.flags) == Set(expected.flags), "\(name): \(Set(got.flags))")
        #expect(try Self.gstreamerPictures(output) == got.flags.count, "\(name): GStreamer")
        #expect(try Self.ffmpegPictures(output).errors.isEmpty)
        if !name.contains("1080i") {
            let shift = try AudioPathsTests.shift(source, output, at: 0.5)
            #expect(abs(shift) <= 5, "\(name): A/V \(shift) ms")
        }
    }

    /// Field-coded H.265 is not smart-cut (a re-encoded field's parity would follow x265's
    /// order count): a typed error, exit 65, nothing written.
    @Test func hevcFieldsSmartCutRefused() throws {
        let scratch = try Scratch()
        let output = scratch.file("cut.h265")
        let run = try CLIRunner.run(["trim", Self.fixture("hevc_fields_tff.h265"), "--start", "0.3", "--end", "0.8", "--smart", "-o", output])
        #expect(run.status == 65 && run.stderr.contains("field_seq_flag"), "\(run.status) \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
