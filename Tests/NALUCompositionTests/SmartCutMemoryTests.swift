import Foundation
import Testing

/// A smart cut encodes each re-encoded picture as it is decoded (issue 39 "Tests and figures"):
/// its peak memory does not grow with the number of pictures it re-encodes.
@Suite struct SmartCutMemoryTests {
    @Test("the peak RSS of a smart cut re-encoding 225 pictures is within 16 MiB of one re-encoding 25",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"))
    func flatInTheCutLength() throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // One 10 s group of pictures (an IDR only at the start): every picture of a range that
        // does not start at 0 is decoded and re-encoded, 25 per second of the range.
        let input = directory.appendingPathComponent("long_gop.mp4").path
        let made = try CompositionTestSupport.run("/usr/bin/env", [
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=10",
            "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0",
            "-bf", "2", input])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let nalu = CompositionTestSupport.executable("nalu")
        var peaks: [Int] = []
        for end in ["1.2", "9.2"] {
            let output = directory.appendingPathComponent("cut-\(end).mp4").path
            let run = try CompositionTestSupport.peakRSS(nalu, ["trim", input, "--start", "0.2", "--end", end, "--smart", "--preset", "ultrafast",
                                                                "--verbose", "-o", output])
            #expect(run.status == 0, "\(run.stderr)")
            let pictures = try CompositionTestSupport.pictureTimes(output).count
            #expect(run.stderr.contains("\(pictures) pictures shown: \(pictures) re-encoded before"), "\(run.stderr)")
            peaks.append(run.bytes)
        }
        // 200 more 640x360 4:2:0 pictures held would be 66 MiB.
        #expect(peaks[1] - peaks[0] < 16 << 20, "peak RSS \(peaks[0] >> 20) MiB for 25 pictures, \(peaks[1] >> 20) MiB for 225")
    }
}
