import Foundation
import NALU
import NALUEncoder
import NALUExport
import NALUMedia
import NALUPackager
import Testing

/// `LiveCaptureWriter` (live-hls-sample's library side): a video-only package, and the errors
/// it names instead of trapping or hanging.
@Suite("LiveCaptureWriter", .serialized)
struct LiveCaptureWriterTests {
    static func options() -> PackagerOptions {
        var options = PackagerOptions(segmentDuration: Rational(1, 1))
        options.partDuration = Rational(1, 5)
        options.window = .max
        return options
    }

    static func camera() -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: .h264, width: 160, height: 96)
        configuration.gopLength = 30
        configuration.preset = "ultrafast"
        return configuration
    }

    @Test("video only: 2 s of pictures give 2 segments, EXT-X-ENDLIST, no audio rendition")
    func videoOnly() throws {
        let directory = try SamplesTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("live").path
        let writer = try LiveCaptureWriter(directory: folder, video: Self.camera(), audioSampleRate: nil, options: Self.options())
        let pattern = try TestPattern(width: 160, height: 96)
        for index in 0..<60 { try writer.append(pattern.frame(Int64(index))) }
        #expect(throws: ExportError.self) { try writer.append(audio: [[0]]) }
        let summary = try writer.finish()
        #expect(summary.audio == nil)
        #expect(summary.video.first?.segments.count == 2)
        let playlist = try String(contentsOfFile: folder + "/v0.m3u8", encoding: .utf8)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        let packets = try SamplesTestSupport.ffprobe(["-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", folder + "/master.m3u8"])
        #expect(packets.split(separator: "\n").first == "60")
        #expect(throws: ExportError.self) { _ = try writer.finish() }  // once
    }

    @Test("a folder that cannot be made, and length-prefixed encoder output, are typed errors")
    func refusals() throws {
        do {
            _ = try LiveCaptureWriter(directory: "/proc/nalu-no-such/live", video: Self.camera(), options: Self.options())
            Issue.record("no error")
        } catch {
            #expect(error.code == .cannotCreate)
        }
        var lengthPrefixed = Self.camera()
        lengthPrefixed.outputFormat = .lengthPrefixed
        do {
            _ = try LiveCaptureWriter(directory: "/tmp", video: lengthPrefixed, options: Self.options())
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidSettings)
        }
    }
}
