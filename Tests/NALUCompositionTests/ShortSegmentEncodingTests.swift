import Foundation
import NALU
import NALUAVCodec
import NALUIO
import NALUMP4
import NALUMedia
import NALUSmartCut
import NALUX264
import Testing

/// A smart cut re-encodes at most one GOP at each end (issue 39 "Tests and figures"): with
/// ``ShortSegmentEncoding`` (one encoder thread, no x264 MB-tree lookahead, one decoder thread)
/// such a run holds far less than x264's `medium` sized for a long stream (455 → 175 MiB for 42
/// pictures of 1080p), and the re-encoded pictures lose no quality against the source.
@Suite("ShortSegmentEncoding", .serialized)
struct ShortSegmentEncodingTests {
    /// 4 s of 1080p25 (testsrc2, x264 superfast CRF 23, 3 B-frames, an IDR every 2 s) with AAC.
    func source(in directory: URL) throws -> String {
        let input = directory.appendingPathComponent("src1080.mp4").path
        let made = try CompositionTestSupport.run("/usr/bin/env", [
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=4",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4", "-pix_fmt", "yuv420p", "-c:v", "libx264",
            "-preset", "superfast", "-x264-params", "keyint=50:min-keyint=50:scenecut=0:bframes=3:crf=23", "-c:a", "aac", "-b:a", "96k",
            "-shortest", input])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return input
    }

    /// The mean PSNR (dB) of the first `count` pictures of `output` against the source's pictures
    /// from `start` s, both decoded by ffmpeg.
    func psnr(_ output: String, source: String, start: String, count: Int) throws -> Double {
        let trim = "trim=end_frame=\(count),setpts=PTS-STARTPTS"
        let result = try CompositionTestSupport.run("/usr/bin/env", [
            "ffmpeg", "-nostdin", "-i", output, "-ss", start, "-i", source,
            "-lavfi", "[0:v]\(trim)[a];[1:v]\(trim)[b];[a][b]psnr", "-f", "null", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        let value = result.stderr.components(separatedBy: "average:").last?.split(separator: " ").first
        return try #require(value.flatMap { Double($0) }, "\(result.stderr)")
    }

    @Test("a 1080p smart cut's short re-encodes peak under 256 MiB, lose no PSNR, and decode at the source's times",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"))
    func lighterAndAsGood() throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try source(in: directory)
        // 42 pictures re-encoded before the IDR at 2 s, the 25 from it to 3 s copied.
        let output = directory.appendingPathComponent("short.mp4").path
        let run = try CompositionTestSupport.peakRSS(CompositionTestSupport.executable("nalu"), [
            "trim", input, "--start", "0.3", "--end", "3", "--smart", "--verbose", "-o", output])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("42 re-encoded before"), "\(run.stderr)")
        // x264 medium with its 40-picture lookahead and 3 frame threads: 455 MiB (measured on
        // the code before); x264's own CLI at the short-run settings alone holds 134 MiB.
        #expect(run.bytes < 256 << 20, "peak RSS \(run.bytes >> 20) MiB")

        // The same cut at the libraries' own threads and lookahead, in process.
        let library = directory.appendingPathComponent("library.mp4").path
        let trimmer = try SmartTrimmer(path: input, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        trimmer.shortSegmentEncoding = nil
        let file = try FileSink(path: library)
        _ = try trimmer.writeMP4(start: try MediaTime(parsing: "0.3"), end: try MediaTime(parsing: "3"), output: file, options: MP4MuxerOptions())
        try file.commit()
        // Quality of the re-encoded head against the source decoded by ffmpeg: no more than
        // 0.3 dB below the libraries' settings (without MB-tree x264 spends more bits at the
        // same CRF, so it is higher).
        let short = try psnr(output, source: input, start: "0.3", count: 42)
        let reference = try psnr(library, source: input, start: "0.3", count: 42)
        #expect(short >= reference - 0.3, "PSNR \(short) dB with the short-run settings, \(reference) dB without")
        #expect(short >= 45, "PSNR \(short) dB")

        // The re-encoded head and the copied pictures decode in ffmpeg with no error, every
        // picture at its source time less the first one's (0.32 s), 67 pictures.
        let decode = try CompositionTestSupport.run("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        let times = try CompositionTestSupport.pictureTimes(output)
        #expect(times.count == 67)
        for (index, time) in times.enumerated() {
            #expect(abs(time - Double(index) * 0.04) < 0.001, "picture \(index) at \(time) s")
        }
        // GStreamer plays it to the end.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gst-launch-1.0") {
            let play = try CompositionTestSupport.run("/usr/bin/gst-launch-1.0", [
                "-q", "filesrc", "location=\(output)", "!", "qtdemux", "!", "h264parse", "!", "avdec_h264", "!", "fakesink"])
            #expect(play.status == 0, "\(play.stderr)")
        }
    }
}
