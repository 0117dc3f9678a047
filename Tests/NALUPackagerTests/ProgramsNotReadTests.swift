import Foundation
import NALU
import NALUMedia
import NALUPackager
import Testing

/// Issue 39 item 3: the packager itself says which programs of a transport stream input it did
/// not read (`PackageSummary.programsNotRead`); `nalu package` re-opened every input to find out,
/// and skipped standard input, where a second program was dropped with exit 0.
@Suite struct ProgramsNotReadTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A transport stream with two programs made by ffmpeg (`-program`): H.264 + AAC from
    /// phone.mp4, then H.265 + AAC from hevc_2997.mov (what NALUCLITests/TransportStreamProgramsTests uses).
    static func twoPrograms(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("two.ts").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-i", fixtures.appendingPathComponent("realworld/phone.mp4").path,
                             "-i", fixtures.appendingPathComponent("realworld/hevc_2997.mov").path,
                             "-map", "0:v", "-map", "0:a", "-map", "1:v", "-map", "1:a", "-c", "copy",
                             "-program", "title=one:st=0:st=1", "-program", "title=two:st=2:st=3", "-f", "mpegts", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return path
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-packager-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theProgramsNotReadAreInTheSummary() throws {
        let scratch = try Self.folder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = try Self.twoPrograms(in: scratch)
        let output = scratch.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let options = PackagerOptions(segmentDuration: Rational(2, 1), hls: true, dash: false)
        let summary = try Packager(directory: output, options: options).package([input])
        #expect(summary.programsNotRead == [PackageSummary.ProgramsNotRead(input: input, programs: ["program 2 (PMT PID 0x1001)"])])
        // The first program was packaged: its H.264 video and its AAC.
        #expect(summary.video.count == 1)
        #expect(summary.video.first?.codecs.hasPrefix("avc1.") == true)
        #expect(summary.audioRenditions.count == 1)

        // A PID that chooses a program leaves the other out on purpose: nothing to report.
        var chosen = MediaSourceOptions()
        chosen.pid = 0x102
        let second = scratch.appendingPathComponent("second").path
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let secondSummary = try Packager(directory: second, options: options).package([input], sourceOptions: chosen)
        #expect(secondSummary.programsNotRead.isEmpty)
        #expect(secondSummary.video.first?.codecs.hasPrefix("hvc1.") == true)
    }

    /// The typed entry point: a missing input is a `NALUError` naming it, caught without a cast.
    @Test func packageThrowsNALUError() throws {
        let scratch = try Self.folder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let missing = scratch.appendingPathComponent("missing.mp4").path
        do {
            _ = try Packager(directory: scratch.path, options: PackagerOptions(segmentDuration: Rational(2, 1), hls: true, dash: false))
                .package([missing])
            Issue.record("packaged a missing input")
        } catch {
            #expect(error.code == .io)
            #expect(error.field == missing)
        }
    }
}
