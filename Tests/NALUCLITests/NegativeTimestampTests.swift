import Foundation
import Testing

/// Issue 32 item 12: an MP4 whose timestamps are negative (ffmpeg `-output_ts_offset -5
/// -avoid_negative_ts disabled`) prints no negative duration: `trim` outside its pictures said
/// "the stream lasts -4.000 s"; it names the span the pictures present in.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct NegativeTimestampTests {
    @Test func trimOutsideANegativeStream() throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("negative.mp4").path
        let ffmpeg = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", CLIRunner.fixture("mp4_avc_bframes.mp4"), "-c", "copy",
                                                        "-output_ts_offset", "-5", "-avoid_negative_ts", "disabled", input])
        try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let result = try CLIRunner.run(["trim", input, "--start", "0", "--end", "0.3", "-o", folder.appendingPathComponent("out.mp4").path])
        #expect(result.status != 0)
        #expect(!result.stderr.contains("lasts -"), "\(result.stderr)")
        #expect(result.stderr.contains("the stream presents from -"), "\(result.stderr)")
        // The span's length is the file's duration as ffprobe reports it (it applies the edit
        // list, so its times start at 0 and its format duration is 0 here; nalu's trim reads the track's own timestamps).
        let span = result.stderr.split(separator: "presents from ").last?.split(separator: " ")
        let from = span.flatMap { $0.count > 2 ? Double($0[0]) : nil }
        let to = span.flatMap { $0.count > 3 ? Double($0[3]) : nil }
        let probe = try runProgram("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "csv=p=0", input])
        let duration = try #require(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let length = try #require(to.flatMap { to in from.map { to - $0 } }, "\(result.stderr)")
        #expect(length >= 0)
        #expect(abs(length - duration) < 0.1, "\(length) s against ffprobe's \(duration) s")
    }
}
