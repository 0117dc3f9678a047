import Foundation
import Testing

/// Issue 41, item 10: ffmpeg's `-f dash` output (an init segment and media segments, catenated
/// into one fragmented file) ends each track's edit list with `segment_duration` 0, "to the end
/// of the media" in a fragmented movie (ISO/IEC 14496-12 8.6.6.3). Copied verbatim into a
/// progressive MP4 it means no time at all and ffmpeg plays 0 pictures; `convert` gives it the
/// media's remaining duration, and `doctor` names a progressive file that has one.
@Suite struct OpenEndedEditTests {
    /// `phone.mp4` (H.264 with B-frames, AAC) as ffmpeg's DASH muxer writes it, video and audio
    /// each catenated into one fragmented file (init segment, then the media segments).
    static func dashTracks(in scratch: Scratch) throws -> (video: String, audio: String) {
        let folder = scratch.file("dash")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", TimingTests.realWorld("phone.mp4"), "-c", "copy",
                                          "-f", "dash", "-seg_duration", "2", folder + "/out.mpd"])
        #expect(made.status == 0, "\(made.stderr)")
        var paths: [String] = []
        for stream in 0...1 {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
                .filter { $0.hasPrefix("chunk-stream\(stream)-") }.sorted()
            var data = try Data(contentsOf: URL(fileURLWithPath: folder + "/init-stream\(stream).m4s"))
            for name in names { data += try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) }
            let path = scratch.file("stream\(stream).mp4")
            try data.write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return (paths[0], paths[1])
    }

    static func pictureCount(_ path: String) throws -> Int {
        let result = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                             "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // ffprobe says N/A when it read no frame at all.
        return text == "N/A" ? 0 : Int(text) ?? -1
    }

    @Test func dashVideoConvertsToAProgressiveMP4ThatShowsEveryPicture() throws {
        let scratch = try Scratch()
        let (video, _) = try Self.dashTracks(in: scratch)
        // The source's edit list ends open (0); ffmpeg plays all 300 pictures of it.
        #expect(try Self.pictureCount(video) == 300)
        let output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["convert", video, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.pictureCount(output) == 300)
        // Every picture at its source time, the B-frame delay hidden as in the source.
        let result = try TimingTests.pictureOffsets(source: TimingTests.realWorld("phone.mp4"), output: output)
        #expect(result.unknown == 0 && result.count == 300)
        #expect(result.offsets.count == 1 && abs(result.offsets[0]) < 0.001, "\(result.offsets)")
        // The progressive edit now presents the whole 10 s (info prints it in the movie timescale).
        let info = try CLIRunner.run(["info", output])
        #expect(info.stdout.contains("edit:"), "\(info.stdout)")
        #expect(!info.stdout.contains(", 0 at movie timescale"), "\(info.stdout)")
        let doctor = try CLIRunner.run(["doctor", output])
        #expect(!doctor.stdout.contains("zero-length-edit"), "\(doctor.stdout)")
    }

    /// A progressive MP4 whose video edit presents nothing: `doctor` says so (exit 3) and its
    /// fix, `convert`, mends it.
    @Test func doctorNamesAZeroLengthEdit() throws {
        let scratch = try Scratch()
        let good = scratch.file("good.mp4")
        let made = try CLIRunner.run(["convert", TimingTests.realWorld("phone.mp4"), "--no-audio", "-o", good])
        #expect(made.status == 0, "\(made.stderr)")
        // Zero the video edit's segment_duration (elst version 0: size, 'elst', version+flags,
        // entry_count, then segment_duration).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        let elst = Array("elst".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == elst })
        #expect(bytes[at + 4] == 0, "elst version 0")
        for index in (at + 12)..<(at + 16) { bytes[index] = 0 }
        let broken = scratch.file("broken.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        #expect(try Self.pictureCount(broken) == 0)
        let doctor = try CLIRunner.run(["doctor", broken])
        #expect(doctor.status == 3)
        #expect(doctor.stdout.contains("error[zero-length-edit]"), "\(doctor.stdout)")
        let fixed = scratch.file("fixed.mp4")
        let run = try CLIRunner.run(["convert", broken, "-o", fixed])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.pictureCount(fixed) == 300)
    }
}
