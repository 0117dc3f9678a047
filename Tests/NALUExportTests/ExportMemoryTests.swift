import Foundation
import Testing

/// Issue 39 item 3: decode → encode → write holds a bounded number of pictures
/// (`ExportSettings.framesInFlight`), so peak memory does not grow with the input's length. GNU
/// `time -v` measures the peak RSS of an export (export-settings-sample, a process of its own)
/// of a 10 s and a 60 s H.264 + AAC input made by ffmpeg (testsrc2 + sine); the larger sizes
/// and x264's default preset are measured by Scripts/export-memory.sh (Docs/performance.md).
@Suite("ExportMemory", .serialized)
struct ExportMemoryTests {
    /// Peak RSS in KiB of exporting a `seconds` long input of `size` at x264's `preset`.
    func peak(seconds: Int, in directory: URL, size: String = "640x360", preset: String = "veryfast") throws -> Int {
        let input = directory.appendingPathComponent("in-\(size)-\(seconds).mp4").path
        let make = try ExportTestSupport.run("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60",
            "-c:a", "aac", "-shortest", input,
        ])
        try #require(make.status == 0, "\(make.stderr)")
        let output = directory.appendingPathComponent("out-\(size)-\(seconds).mp4").path
        let run = try ExportTestSupport.run("/usr/bin/time", ["-v", ExportTestSupport.executable("export-settings-sample"),
                                                               input, output, "--preset", preset])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ExportTestSupport.videoPacketCount(output) == seconds * 30)
        let line = run.stderr.split(separator: "\n").first { $0.contains("Maximum resident set size") }
        return try #require(line.flatMap { $0.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } })
    }

    @Test("peak RSS of a 60 s export is that of a 10 s one")
    func flat() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = try peak(seconds: 10, in: directory)
        let long = try peak(seconds: 60, in: directory)
        // Six times the pictures; the same memory within 15 % + 8 MiB (allocator noise).
        #expect(long <= short + short * 15 / 100 + 8 * 1024, "10 s: \(short) KiB, 60 s: \(long) KiB")
        #expect(long < 150 * 1024, "60 s at 640x360: \(long) KiB")
    }

    /// Issue 39: a 1080p30 H.264 + AAC transcode through the library under 150 MiB whatever its
    /// length. x264's preset decides it (x264's CLI alone at 1080p, 5 Mbit/s: ultrafast 85 MiB,
    /// superfast 206, veryfast 253, medium 459; Docs/performance.md): ultrafast is the preset
    /// that fits with what nalu adds (the decoder, 2 pictures in flight, the muxer, the runtime).
    @Test("peak RSS of a 60 s 1080p export at x264 ultrafast is that of a 10 s one, under 150 MiB")
    func flatAt1080p() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = try peak(seconds: 10, in: directory, size: "1920x1080", preset: "ultrafast")
        let long = try peak(seconds: 60, in: directory, size: "1920x1080", preset: "ultrafast")
        #expect(long <= short + short * 10 / 100 + 8 * 1024, "10 s: \(short) KiB, 60 s: \(long) KiB")
        #expect(short < 150 * 1024 && long < 150 * 1024, "1080p: 10 s \(short) KiB, 60 s \(long) KiB")
    }
}
