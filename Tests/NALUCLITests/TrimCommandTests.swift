import Foundation
import NALU
import Testing

/// `nalu trim` against ffmpeg: an MP4 cut shows exactly the pictures ffmpeg's *decoded* trim
/// (`-vf trim=start=…:end=…`) gives, frame by frame (framemd5); elementary cuts start at a
/// keyframe with its parameter sets and hold the whole range; open-GOP cuts decode cleanly.
@Suite struct TrimCommandTests {
    /// The md5 column of ffmpeg's framemd5 of `arguments` (input options and input), and its
    /// error output.
    static func frameMD5s(_ arguments: [String]) throws -> (md5s: [String], errors: String) {
        // framemd5 lines: stream, dts, pts, duration, size, md5.
        let ffmpeg = try #require(ffmpegPath, "ffmpeg is needed to compare cuts")
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error"] + arguments + ["-an", "-f", "framemd5", "-"])
        let md5s = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return (md5s, result.status == 0 ? result.stderr : "exit \(result.status): " + result.stderr)
    }

    /// ffmpeg's decoded trim of `[start, end)`.
    static func reference(_ input: [String], start: String, end: String) throws -> [String] {
        let result = try frameMD5s(input + ["-vf", "trim=start=\(start):end=\(end),setpts=PTS-STARTPTS"])
        #expect(result.errors.isEmpty)
        return result.md5s
    }

    /// The NAL unit types (first header byte) of an Annex-B file, in order.
    static func nalHeaderBytes(_ path: String) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var bytes: [UInt8] = []
        data.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in bytes.append(buffer[range.lowerBound]) }
        }
        return bytes
    }

    struct Cut: Sendable, CustomStringConvertible {
        var file: String
        var start: String
        var end: String
        var frames: Int
        /// The start as ffmpeg's trim filter takes it (its option syntax has no ':' in values).
        var filterStart: String? = nil
        var description: String { "\(file) [\(start), \(end))" }
    }

    static let mp4Cuts = [
        // The issue's case: ffmpeg -ss 1 -t 1 -c copy shows 27 frames here.
        Cut(file: "trim_avc_bframes_audio.mp4", start: "1", end: "2", frames: 25),
        Cut(file: "trim_avc_bframes_audio.mp4", start: "0.5", end: "1.3", frames: 20),
        Cut(file: "trim_avc_bframes_audio.mp4", start: "1.02", end: "1.9", frames: 22),
        Cut(file: "trim_avc_bframes_audio.mp4", start: "0", end: "3", frames: 75),
        Cut(file: "trim_avc_bframes_audio.mp4", start: "00:02.5", end: "10", frames: 12, filterStart: "2.5"),
        Cut(file: "mp4_hevc_bframes.mp4", start: "0.2", end: "0.8", frames: 18),
        Cut(file: "mp4_avc_bframes.mp4", start: "0.4", end: "0.7", frames: 9),
        // Other layouts and timings: MOV, fragments (no edit list: times count from the first
        // picture, as ffmpeg's command line counts them), signed composition offsets, faststart.
        Cut(file: "mov_avc.mov", start: "0.2", end: "0.6", frames: 12),
        Cut(file: "mp4_avc_frag.mp4", start: "0.2", end: "0.6", frames: 12),
        Cut(file: "mp4_hevc_frag.mp4", start: "0.2", end: "0.6", frames: 12),
        Cut(file: "mp4_avc_negcts.mp4", start: "0.2", end: "0.6", frames: 12),
        Cut(file: "mp4_avc_faststart.mp4", start: "0.2", end: "0.6", frames: 12),
        Cut(file: "mp4_hevc_hvc1.mp4", start: "0.2", end: "0.6", frames: 12),
    ]

    @Test(arguments: mp4Cuts) func mp4CutEqualsFFmpegsDecodedTrim(cut: Cut) throws {
        let folder = try Scratch()
        let output = folder.file("cut.mp4")
        let input = CLIRunner.fixture(cut.file)
        let result = try CLIRunner.run(["trim", input, "--start", cut.start, "--end", cut.end, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try Self.frameMD5s(["-i", output])
        #expect(decoded.errors.isEmpty)
        #expect(decoded.md5s.count == cut.frames)
        #expect(decoded.md5s == (try Self.reference(["-i", input], start: cut.filterStart ?? cut.start, end: cut.end)))
    }

    @Test func durationIsTheEndLessTheStart() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        #expect(try CLIRunner.run(["trim", input, "--start", "1", "--duration", "1", "-o", folder.file("a.mp4")]).status == 0)
        #expect(try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "-o", folder.file("b.mp4")]).status == 0)
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("a.mp4")) == Data(contentsOf: folder.url.appendingPathComponent("b.mp4")))
        // The edit list shows one second: ffprobe's stream duration.
        let ffprobe = try #require(ffmpegPath.map { $0.replacingOccurrences(of: "ffmpeg", with: "ffprobe") })
        let probe = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries", "stream=duration,nb_frames", "-of", "csv=p=0", folder.file("a.mp4")])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1.000000,27")
    }

    /// The open-GOP HEVC stream, cut at the CRA of frame 24: its RASL pictures are dropped, the
    /// output decodes with no error, and the MP4 shows ffmpeg's decoded trim exactly.
    @Test func openGOPCutAtACRADecodesCleanly() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("trim_hevc_open_gop.h265")
        let mp4 = folder.file("cut.mp4")
        let annexB = folder.file("cut.h265")
        #expect(try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "-o", mp4]).status == 0)
        let elementary = try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "-o", annexB])
        #expect(elementary.status == 0)
        #expect(elementary.stderr == "nalu: note: 1 extra picture before --start lead in (from the cra keyframe; elementary streams have no edit list)\n")
        let reference = try Self.reference(["-framerate", "25", "-i", input], start: "1", end: "2")
        #expect(reference.count == 25)
        let shown = try Self.frameMD5s(["-i", mp4])
        #expect(shown.errors.isEmpty)
        #expect(shown.md5s == reference)
        // Annex-B: the lead-in picture, the range, two pictures decoded before frame 49 that show after.
        let decoded = try Self.frameMD5s(["-i", annexB])
        #expect(decoded.errors.isEmpty)
        #expect(decoded.md5s.count == 28)
        #expect(Array(decoded.md5s[1..<26]) == reference)
        // VPS, SPS, PPS, then (after the SEI) the CRA.
        let types = try Self.nalHeaderBytes(annexB).map { HEVCNALUnitType(rawValue: $0 >> 1) }
        #expect(Array(types.prefix(3)) == [.vps, .sps, .pps])
        #expect(types.first { $0.rawValue < 32 } == .cra)
    }

    /// An elementary cut of an MP4 starts with the SPS, PPS and IDR and holds every picture of the
    /// range, in order.
    @Test func annexBCutStartsAtAKeyframeAndHoldsTheRange() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let output = folder.file("cut.h264")
        let result = try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "--no-audio", "-o", output])
        #expect(result.status == 0)
        #expect(result.stderr.contains("nalu: note: 1 extra picture before --start lead in (from the idr keyframe"))
        let types = try Self.nalHeaderBytes(output).map { AVCNALUnitType(rawValue: $0) }
        #expect(Array(types.prefix(3)) == [.sps, .pps, .idrSlice])
        let decoded = try Self.frameMD5s(["-i", output])
        #expect(decoded.errors.isEmpty)
        #expect(decoded.md5s.count == 27)
        #expect(Array(decoded.md5s[1..<26]) == (try Self.reference(["-i", input], start: "1", end: "2")))
    }

    @Test(arguments: [["--start", "1:75"], ["--end", "abc"], ["--start", "-1"], ["--duration", "1.2.3"],
                      ["--end", "2", "--duration", "1"], ["--start", "2", "--end", "1"], ["--start", "7", "--end", "8"]])
    func badTimesAreUsageErrors(arguments: [String]) throws {
        let folder = try Scratch()
        let result = try CLIRunner.run(["trim", CLIRunner.fixture("trim_avc_bframes_audio.mp4")] + arguments + ["-o", folder.file("x.mp4")])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: "))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.mp4")))
    }

    @Test func elementaryStreamOnStandardInputIsRefused() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("trim_hevc_open_gop.h265")))
        let result = try CLIRunner.run(["trim", "--start", "1", "--to", "annexb", "-o", "/dev/null"], stdin: data)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("nalu: error: standard input: trim reads an elementary stream twice"))
    }

    @Test func mp4OnStandardInputIsCut() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        let result = try CLIRunner.run(["trim", "--start", "1", "--end", "2", "-o", folder.file("cut.mp4")], stdin: data)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.frameMD5s(["-i", folder.file("cut.mp4")]).md5s == (try Self.reference(["-i", input], start: "1", end: "2")))
    }
    /// Length-prefixed output carries the parameter sets in band: converted back to Annex-B it
    /// decodes to the same pictures as the Annex-B cut.
    @Test func lengthPrefixedCutDecodesOnItsOwn() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let lengthPrefixed = folder.file("cut.lp")
        let result = try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "--to", "avcc", "--no-audio", "-o", lengthPrefixed])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CLIRunner.run(["convert", lengthPrefixed, "--to", "annexb", "-o", folder.file("back.h264")]).status == 0)
        #expect(try CLIRunner.run(["trim", input, "--start", "1", "--end", "2", "--no-audio", "-o", folder.file("cut.h264")]).status == 0)
        let back = try Self.frameMD5s(["-i", folder.file("back.h264")])
        #expect(back.errors.isEmpty)
        #expect(back.md5s.count == 27)
        #expect(back.md5s == (try Self.frameMD5s(["-i", folder.file("cut.h264")]).md5s))
    }
    /// x264's open GOP (a non-IDR I picture with a recovery point SEI, leading B pictures that
    /// refer to the GOP before): cut there, the leading B picture is dropped and the pictures
    /// shown are ffmpeg's decoded trim exactly. ffmpeg's only message is the documented
    /// `mmco: unref short failure` (a later picture's memory management names a picture from
    /// before the cut).
    @Test func h264OpenGOPCutAtARecoveryPoint() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("avc_open_gop.h264")
        let output = folder.file("cut.mp4")
        // Between frame times: ffmpeg times raw H.264 in 1/1200000 s, so 0.4 s is frame 12 to nalu and 11.99996 to it.
        let result = try CLIRunner.run(["trim", input, "--start", "0.41", "--end", "0.81", "-o", output, "--verbose"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("from the recovery keyframe"))
        #expect(result.stderr.contains("1 leading pictures dropped"))
        let shown = try Self.frameMD5s(["-i", output])
        #expect(shown.md5s.count == 12)
        #expect(shown.md5s == (try Self.reference(["-framerate", "30", "-i", input], start: "0.41", end: "0.81")))
        let messages = shown.errors.split(separator: "\n").map { $0.split(separator: "]").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        #expect(Set(messages).isSubset(of: ["mmco: unref short failure"]))
    }
    /// `--fps` times a stream: avc_main.h264 (20 pictures) at 10 fps lasts 2 s, and 1 s to 2 s is
    /// its pictures 10 to 19 (a keyframe every 10), in an MP4 at 10 fps.
    @Test func fpsTimesAnElementaryStream() throws {
        let folder = try Scratch()
        let input = CLIRunner.fixture("avc_main.h264")
        let output = folder.file("cut.mp4")
        let result = try CLIRunner.run(["trim", input, "--fps", "10", "--start", "1", "--end", "2", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let all = try Self.frameMD5s(["-i", input]).md5s
        #expect(all.count == 20)
        let shown = try Self.frameMD5s(["-i", output])
        #expect(shown.errors.isEmpty)
        #expect(shown.md5s == Array(all[10..<20]))
        let ffprobe = try #require(ffmpegPath.map { $0.replacingOccurrences(of: "ffmpeg", with: "ffprobe") })
        let probe = try runProgram(ffprobe, ["-v", "error", "-show_entries", "stream=r_frame_rate,duration", "-of", "csv=p=0", output])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10/1,1.000000")
    }
}
