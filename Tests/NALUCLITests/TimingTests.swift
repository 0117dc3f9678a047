import Foundation
import Testing

/// Issue 31, items 1–2: every access unit keeps its source's decoding and presentation time,
/// edit lists are honoured. Checked by content on the real-world fixtures
/// (Scripts/make-realworld-fixtures.sh): each picture shown equals the source's picture at the
/// same presentation time (ffmpeg framemd5 with times), frame counts are exact, and A/V sync
/// measured by content (Scripts/avsync.py) stays within 5 ms (25 ms across joins).
@Suite struct TimingTests {
    static func realWorld(_ name: String) -> String { CLIRunner.fixture("realworld/" + name) }

    /// Each picture ffmpeg shows from `path` (first video stream): presentation time in seconds
    /// and md5. `demuxerTimeBase`: in the demuxer's time base (`-enc_time_base -1`), so that a
    /// join's 30 fps picture is not rounded to a tick of its 25 fps one.
    static func shown(_ path: String, demuxerTimeBase: Bool = false) throws -> [(time: Double, md5: String)] {
        let ffmpeg = try #require(ffmpegPath, "ffmpeg is needed to compare pictures")
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-autoscale", "0", "-fps_mode", "passthrough"]
                                        + (demuxerTimeBase ? ["-enc_time_base", "-1"] : []) + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        var timeBase = 1.0
        var pictures: [(Double, String)] = []
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("#tb 0:") {
                let parts = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/")
                if parts.count == 2, let num = Double(parts[0]), let den = Double(parts[1]), den > 0 { timeBase = num / den }
                continue
            }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 6, let pts = Double(fields[2]) else { continue }
            pictures.append((pts * timeBase, fields[5]))
        }
        return pictures
    }

    /// How far `output`'s pictures sit from the same pictures of `source` (seconds): one value when
    /// every picture shown moved by the same amount; the pictures not in the source are counted.
    static func pictureOffsets(source: String, output: String) throws -> (offsets: [Double], unknown: Int, count: Int) {
        let reference = Dictionary(try shown(source).map { ($0.md5, $0.time) }, uniquingKeysWith: { first, _ in first })
        var offsets: [Double] = []
        var unknown = 0
        let pictures = try shown(output)
        for picture in pictures {
            guard let time = reference[picture.md5] else { unknown += 1; continue }
            let offset = picture.time - time
            if !offsets.contains(where: { abs($0 - offset) < 0.0015 }) { offsets.append(offset) }
        }
        return (offsets, unknown, pictures.count)
    }

    /// `Scripts/avsync.py`: how far `output`'s audio
    /// moved against its pictures, in ms.
    static func avSync(source: String, output: String, at seconds: String = "1.0") throws -> Double {
        let script = AudioPathsTests.avsync
        let result = try runProgram("/usr/bin/env", ["python3", script, source, output, "--at", seconds])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ms", with: "")
        return try #require(Double(text), "avsync.py said \(result.stdout) \(result.stderr)")
    }

    /// Convert to MP4 keeps every picture at its time (variable frame rate, an edit list that
    /// hides lead-in pictures, fragments, a transport stream's PTS) and the audio in sync.
    @Test(arguments: ["vfr.mp4", "sscut.mp4", "frag.mp4", "phone.ts", "hevc_2997.mov"])
    func convertToMP4KeepsEveryTime(name: String) throws {
        let folder = try Scratch()
        let input = Self.realWorld(name), output = folder.file("out.mp4")
        let run = try CLIRunner.run(["convert", input, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try Self.shown(input)
        let result = try Self.pictureOffsets(source: input, output: output)
        #expect(result.count == source.count)
        #expect(result.unknown == 0)
        #expect(result.offsets.count == 1, "pictures moved by different amounts: \(result.offsets)")
        if !name.hasSuffix(".ts") {
            // The same presentation times, not only the same spacing.
            #expect(abs(result.offsets.first ?? 1) < 0.0015)
            #expect(abs(try Self.avSync(source: input, output: output)) <= 5)
        }
    }

    /// Convert to MPEG-TS: PTS/DTS from the source's times (one shift for every picture), the
    /// audio in sync after the edit list is applied.
    @Test(arguments: ["vfr.mp4", "sscut.mp4", "frag.mp4"])
    func convertToTransportStreamKeepsEveryTime(name: String) throws {
        let folder = try Scratch()
        let input = Self.realWorld(name), output = folder.file("out.ts")
        let run = try CLIRunner.run(["convert", input, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try Self.pictureOffsets(source: input, output: output)
        // A transport stream cannot hide the pictures an edit list hid: they come before, in time.
        #expect(result.offsets.count == 1 || name == "sscut.mp4", "\(result.offsets)")
        #expect(result.unknown == (name == "sscut.mp4" ? result.count - (try Self.shown(input)).count : 0))
        #expect(abs(try Self.avSync(source: input, output: output, at: "2.0")) <= 5)
    }

    /// `trim vfr.mp4 --start 2.5 --end 5.5` lasts exactly 3.0 s, shows the pictures ffmpeg's
    /// decoded trim shows, each at its source time less 2.5 s, with the audio in sync.
    @Test func variableFrameRateTrimLastsTheRange() throws {
        let folder = try Scratch()
        let input = Self.realWorld("vfr.mp4"), output = folder.file("cut.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "2.5", "--end", "5.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let ffprobe = try #require(["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let duration = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "csv=p=0", output])
        #expect(duration.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3.000000")
        let reference = try TrimCommandTests.reference(["-i", input], start: "2.5", end: "5.5")
        let pictures = try Self.shown(output)
        #expect(pictures.map(\.md5) == reference)
        let result = try Self.pictureOffsets(source: input, output: output)
        #expect(result.offsets.count == 1 && abs((result.offsets.first ?? 0) + 2.5) < 0.0015, "\(result.offsets)")
        #expect(abs(try Self.avSync(source: input, output: output)) <= 5)
    }

    /// Trim of an input with an edit list and of a fragmented one keeps sync; trim of a transport
    /// stream keeps its times.
    @Test(arguments: ["sscut.mp4", "phone.ts"])
    func trimKeepsTimes(name: String) throws {
        let folder = try Scratch()
        let input = Self.realWorld(name), output = folder.file("cut.mp4")
        let run = try CLIRunner.run(["trim", input, "--start", "1.5", "--end", "4", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try Self.pictureOffsets(source: input, output: output)
        #expect(result.count == 75)
        #expect(result.unknown == 0 && result.offsets.count == 1, "\(result.offsets)")
        if name.hasSuffix(".mp4") { #expect(abs(try Self.avSync(source: input, output: output)) <= 5) }
    }

    /// trim 0..4.5 + trim 4.5.. + concat gives back the 300 source pictures, each once, in order
    /// (concat honours the second piece's edit list), and the audio stays in sync past the join.
    @Test func trimThenConcatGivesBackTheSource() throws {
        let folder = try Scratch()
        let input = Self.realWorld("phone.mp4")
        let first = folder.file("a.mp4"), second = folder.file("b.mp4"), joined = folder.file("joined.mp4")
        #expect(try CLIRunner.run(["trim", input, "--start", "0", "--end", "4.5", "-o", first]).status == 0)
        #expect(try CLIRunner.run(["trim", input, "--start", "4.5", "-o", second]).status == 0)
        let run = try CLIRunner.run(["concat", first, second, "-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try Self.shown(input).map(\.md5)
        let output = try Self.shown(joined).map(\.md5)
        #expect(output.count == 300)
        #expect(output == source)
        // Each at its source time, past the join too.
        let result = try Self.pictureOffsets(source: input, output: joined)
        #expect(result.offsets.count == 1 && abs(result.offsets.first ?? 1) < 0.0015, "\(result.offsets)")
        #expect(abs(try Self.avSync(source: input, output: joined, at: "7.0")) <= 25)
    }

    /// Three cuts of the variable-frame-rate clip, joined: every picture at its source time.
    @Test func variableFrameRateCutsJoinBackExactly() throws {
        let folder = try Scratch()
        let input = Self.realWorld("vfr.mp4")
        let pieces = [("0", "2.2"), ("2.2", "5.1"), ("5.1", "8")].enumerated().map { index, range in (folder.file("\(index).mp4"), range) }
        for (path, range) in pieces {
            #expect(try CLIRunner.run(["trim", input, "--start", range.0, "--end", range.1, "-o", path]).status == 0)
        }
        let joined = folder.file("joined.mp4")
        let run = try CLIRunner.run(["concat"] + pieces.map(\.0) + ["-o", joined])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        let result = try Self.pictureOffsets(source: input, output: joined)
        #expect(result.count == 300 && result.unknown == 0)
        #expect(result.offsets.count == 1 && abs(result.offsets.first ?? 1) < 0.0015, "\(result.offsets)")
        #expect(abs(try Self.avSync(source: input, output: joined, at: "6.0")) <= 25)
    }

    /// A transport stream whose PTS/DTS wrap past 2^33 in its first second (ffmpeg's
    /// `-output_ts_offset`): the times are unwrapped, so the MP4 keeps every picture 1/30 s apart.
    @Test func wrappedTransportStreamTimesAreUnwrapped() throws {
        let folder = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        let wrapped = folder.file("wrap.ts"), output = folder.file("out.mp4")
        let make = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", Self.realWorld("phone.ts"), "-c", "copy",
                                           "-output_ts_offset", "95442", wrapped])
        #expect(make.status == 0, "\(make.stderr)")
        let run = try CLIRunner.run(["convert", wrapped, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try Self.pictureOffsets(source: Self.realWorld("phone.ts"), output: output)
        #expect(result.count == 300 && result.unknown == 0)
        #expect(result.offsets.count == 1, "\(result.offsets)")
    }

    /// `info` says when the frame rate varies, with the average and the spread.
    @Test func infoReportsVariableFrameRate() throws {
        let vfr = try CLIRunner.run(["info", "--json", Self.realWorld("vfr.mp4")])
        #expect(vfr.status == 0)
        #expect(vfr.stdout.contains("\"variable_frame_rate\": true"))
        // ffprobe's avg_frame_rate of the clip.
        #expect(vfr.stdout.contains("\"average_frame_rate\": \"2000/53\""))
        #expect(vfr.stdout.contains("\"min_frame_duration\": 256"))
        #expect(vfr.stdout.contains("\"max_frame_duration\": 1024"))
        let constant = try CLIRunner.run(["info", "--json", Self.realWorld("phone.mp4")])
        #expect(constant.stdout.contains("\"variable_frame_rate\": false"))
        let text = try CLIRunner.run(["info", Self.realWorld("vfr.mp4")])
        #expect(text.stdout.contains("frame timing:  variable: 37.74 fps average"))
    }
}
