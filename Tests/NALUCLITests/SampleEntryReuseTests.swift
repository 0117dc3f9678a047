import Foundation
import Testing

/// Issue 32 item 6: a stream whose parameter sets keep changing. A change back to the sets of
/// an earlier sample entry reuses it (two sizes alternating 600 times: 2 entries, not 1,200,
/// which ffmpeg refuses as "invalid STSD entries"); past `MP4Muxer.maxSampleDescriptions` (64)
/// distinct sets the entries become `avc3` and the sets stay in band, with a note.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct SampleEntryReuseTests {
    /// A one-picture libx264 stream of `size`.
    static func picture(_ size: String, in folder: String) throws -> Data {
        let path = folder + "/\(size).h264"
        let result = try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25", "-frames:v", "1",
                                            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        #expect(result.status == 0, "ffmpeg: \(result.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test(arguments: [[], ["--faststart"]])
    func alternatingSizesReuseTheirEntries(layout: [String]) throws {
        let folder = try ParameterSetChangeTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pair = try Self.picture("64x64", in: folder) + Self.picture("48x48", in: folder)
        let stream = folder + "/alternating.h264"
        try Data([Data](repeating: pair, count: 600).joined()).write(to: URL(fileURLWithPath: stream))
        let output = folder + "/out.mp4"
        let result = try CLIRunner.run(["convert", stream, "--to", "mp4", "-o", output, "--verbose"] + layout)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1200 samples") && result.stderr.contains(", 2 sample entries"), "\(result.stderr)")
        let widths = try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=width", "-of", "csv=p=0", output])
        #expect(widths.stderr == "")
        // "64" or "64,side_data" (x264's SEI) per frame.
        let lines = widths.stdout.split(separator: "\n").map { $0.split(separator: ",").first ?? "" }
        #expect(lines.count == 1200)
        #expect(lines.filter { $0 == "64" }.count == 600 && lines.filter { $0 == "48" }.count == 600)
        let decoded = try ParameterSetChangeTests.frameMD5s(output)
        #expect(decoded.errors == "")
        #expect(decoded.md5s == (try ParameterSetChangeTests.frameMD5s(stream)).md5s)
    }

    /// 70 pictures whose SPSs differ (SAR 1:1 … 70:1, `nalu edit --sar`): 64 sample entries,
    /// then `avc3` with the sets in band; ffmpeg decodes every picture with its own SAR.
    @Test func pastTheLimitTheSetsGoInBand() throws {
        let folder = try ParameterSetChangeTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = folder + "/one.h264"
        try Self.picture("64x64", in: folder).write(to: URL(fileURLWithPath: one))
        var joined = Data()
        for ratio in 1...70 {
            let edited = folder + "/sar\(ratio).h264"
            let edit = try CLIRunner.run(["edit", one, "--sar", "\(ratio):1", "-o", edited])
            #expect(edit.status == 0, "\(edit.stderr)")
            joined.append(try Data(contentsOf: URL(fileURLWithPath: edited)))
        }
        let stream = folder + "/many.h264"
        try joined.write(to: URL(fileURLWithPath: stream))
        let output = folder + "/out.mp4"
        let result = try CLIRunner.run(["convert", stream, "--to", "mp4", "-o", output, "--verbose"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("nalu: note: the parameter sets change to more than 64 distinct sets"), "\(result.stderr)")
        #expect(result.stderr.contains("MP4 avc3") && result.stderr.contains(", 64 sample entries"), "\(result.stderr)")
        let tag = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", output])
        #expect(tag.stdout == "avc3\n")
        let sar = { (path: String) in try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=sample_aspect_ratio", "-of", "csv=p=0", path]).stdout }
        #expect(try sar(output) == (try sar(stream)))
        let decoded = try ParameterSetChangeTests.frameMD5s(output)
        #expect(decoded.errors == "")
        #expect(decoded.md5s == (try ParameterSetChangeTests.frameMD5s(stream)).md5s)
    }
}
