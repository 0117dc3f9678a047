import Foundation
import NALU
import NALUMedia
import NALUPackager
import Testing

/// A live package whose playlists keep every segment (`PackagerOptions.window = .max`, as
/// live-hls-sample asks: no sliding window). The count of segments kept on disk was
/// `2 * window + 1`, which trapped on overflow before the first segment was written.
@Suite struct LiveWindowUnlimitedTests {
    @Test("window .max: every segment listed and kept, EXT-X-ENDLIST")
    func everySegmentListed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let input = root.appendingPathComponent("Tests/Fixtures/ts_avc_aac.ts").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-live-window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = PackagerOptions(segmentDuration: Rational(1, 2))
        options.window = .max
        let summary = try LivePackager(directory: folder.path, options: options).package(try LiveInput(path: input))
        let segments = try #require(summary.video.first?.segments)
        #expect(segments.count >= 2)
        let playlist = try String(contentsOf: folder.appendingPathComponent("v0.m3u8"), encoding: .utf8)
        let listed = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") && !$0.hasPrefix("#") }
        #expect(listed.map(String.init) == segments.map(\.name))
        #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:1"))
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        for segment in segments {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(segment.name).path), "\(segment.name)")
        }
    }
}
