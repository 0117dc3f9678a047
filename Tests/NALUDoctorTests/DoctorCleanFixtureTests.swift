import Foundation
import NALU
import NALUMedia
import NALUDoctor
import Testing

/// ``Doctor`` on every clean fixture (x264/x265 through ffmpeg, and ffmpeg's MP4s of them): no
/// error, except what ffprobe confirms; each warning checked against what ffprobe reports.
@Suite struct DoctorCleanFixtureTests {
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: DoctorFixtures.directory.path)) ?? []
        return names.filter { [".h264", ".h265", ".mp4", ".mov"].contains(where: $0.hasSuffix) }.sorted()
    }()

    /// What ffprobe says of a file: its colour primaries, sample entry, whether every packet has
    /// pts == dts, and whether any frame is a B picture.
    struct Probe: Decodable {
        struct Stream: Decodable {
            var color_primaries: String?
            var codec_tag_string: String?
        }
        /// A packet (pts, dts) or a frame (pict_type): ffprobe lists both in one array.
        struct Entry: Decodable {
            var type: String
            var pts: Int64?
            var dts: Int64?
            var pict_type: String?
        }
        var streams: [Stream]
        var packets_and_frames: [Entry]
        var packets: [Entry] { packets_and_frames.filter { $0.type == "packet" } }
        var frames: [Entry] { packets_and_frames.filter { $0.type == "frame" } }

        init(_ path: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                 "stream=color_primaries,codec_tag_string:packet=pts,dts:frame=pict_type", "-of", "json", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            self = try JSONDecoder().decode(Probe.self, from: data)
        }
    }

    @Test(arguments: files) func cleanFixture(file: String) throws {
        let path = DoctorFixtures.path(file)
        let findings = try Doctor(inputName: file).examine(MediaSource(path: path))
        let probe = try Probe(path)
        let codes = Set(findings.map(\.code))
        #expect(codes.count == findings.count)
        let stream = try #require(probe.streams.first)

        // The one error a clean encode can carry: ffmpeg's MP4 remux of a raw stream with
        // B-frames has no composition offsets (ffprobe: pts == dts for every packet).
        let errors = findings.filter { $0.severity == .error }.map(\.code)
        let hasBFrames = probe.frames.contains { $0.pict_type == "B" }
        let noOffsets = probe.packets.allSatisfy { $0.pts == $0.dts }
        let isMP4 = file.hasSuffix(".mp4") || file.hasSuffix(".mov")
        if isMP4 && hasBFrames && noOffsets {
            #expect(errors == [.bFramesWithoutCtts])
        } else {
            #expect(errors == [])
        }

        let expectedWarnings: Set<DoctorCode> = Set([
            stream.color_primaries == nil ? DoctorCode.noVUIColour : nil,
            stream.codec_tag_string == "hev1" ? DoctorCode.hev1SampleEntry : nil,
        ].compactMap { $0 })
        #expect(Set(findings.filter { $0.severity == .warning }.map(\.code)) == expectedWarnings)
    }
}
