import Foundation
import Testing

/// Annex-B streams whose parameter sets change midway (issue 12, item 6): two libx264/libx265
/// clips of different resolution or profile, concatenated, converted to MP4 by `nalu`, decode
/// with ffmpeg frame for frame like the Annex-B input, with no decode errors.
@Suite struct ParameterSetChangeTests {
    /// The two clips, made by ffmpeg into a fresh folder: (size, extra encoder options).
    static func makeStream(codec: String, clips: [(size: String, options: [String])], seconds: String, in folder: String) throws -> String {
        var joined = Data()
        for (index, clip) in clips.enumerated() {
            let path = folder + "/clip\(index).\(codec)"
            let encoder = codec == "h264" ? ["-c:v", "libx264", "-preset", "veryfast"]
                                          : ["-c:v", "libx265", "-preset", "veryfast", "-x265-params", "log-level=error"]
            let result = try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(clip.size):rate=25", "-t", seconds]
                                     + encoder + clip.options + [path])
            #expect(result.status == 0, "ffmpeg: \(result.stderr)")
            joined.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        let stream = folder + "/joined.\(codec)"
        try joined.write(to: URL(fileURLWithPath: stream))
        return stream
    }

    static func frameMD5s(_ path: String) throws -> (md5s: [Substring], errors: String) {
        let result = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        let md5s = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        return (md5s, result.stderr)
    }

    static func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-psc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// 640x360 then 1280x720, two seconds each (the issue's case): every layout decodes like
    /// the Annex-B input; the progressive layouts get a second sample entry, the fragmented one
    /// keeps the sets in band from the change on and says so.
    @Test(arguments: [[], ["--faststart"], ["--fragmented"]])
    func twoResolutionsH264(layout: [String]) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stream = try Self.makeStream(codec: "h264", clips: [("640x360", []), ("1280x720", [])], seconds: "2", in: folder)
        try expectSameDecode(stream, layout: layout, folder: folder, frames: 100, sizes: 2)
    }

    /// Same resolution, same SPS/PPS ids, new content: baseline then high profile.
    @Test func profileChangeSameIdsH264() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stream = try Self.makeStream(codec: "h264", clips: [("320x240", ["-profile:v", "baseline"]), ("320x240", ["-profile:v", "high"])],
                                         seconds: "1", in: folder)
        try expectSameDecode(stream, layout: [], folder: folder, frames: 50, sizes: 1)
    }

    @Test(arguments: [[], ["--fragmented"]])
    func twoResolutionsHEVC(layout: [String]) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stream = try Self.makeStream(codec: "h265", clips: [("320x180", []), ("640x360", [])], seconds: "1", in: folder)
        try expectSameDecode(stream, layout: layout, folder: folder, frames: 50, sizes: 2)
    }

    private func expectSameDecode(_ stream: String, layout: [String], folder: String, frames: Int, sizes: Int) throws {
        let mp4 = folder + "/out.mp4"
        let result = try CLIRunner.run(["convert", stream, "--to", "mp4", "-o", mp4] + layout)
        #expect(result.status == 0)
        if layout.contains("--fragmented") {
            #expect(result.stderr.contains("parameter sets change"), "stderr: \(result.stderr)")
        } else {
            #expect(result.stderr == "")
        }
        let reference = try Self.frameMD5s(stream)
        let ours = try Self.frameMD5s(mp4)
        #expect(reference.errors == "")
        #expect(ours.errors == "")
        #expect(reference.md5s.count == frames)
        #expect(ours.md5s == reference.md5s)
        if !layout.contains("--fragmented") {
            // Each picture decoded at its own size.
            let probe = try runTool("ffprobe", ["-v", "error", "-show_entries", "frame=width,height", "-select_streams", "v:0",
                                                "-of", "csv=p=0", mp4])
            let frameSizes = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").joined(separator: "x") }.filter { !$0.isEmpty }
            #expect(frameSizes.count == frames)
            #expect(Set(frameSizes).count == sizes)
            // And back to Annex-B: the same pictures again.
            let back = folder + "/back.es"
            #expect(try CLIRunner.run(["convert", mp4, "--to", "annexb", "-o", back]).status == 0)
            #expect(try Self.frameMD5s(back).md5s == reference.md5s)
        }
    }
}
