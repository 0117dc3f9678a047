import Foundation
import NALU
import NALUMP4
import NALUMedia
import Testing

/// ``MediaSource`` on the real fixtures: the container told by content, also through a FIFO
/// (opened once, so the writer's data is not lost), and an MP4 on a pipe spooled.
@Suite struct MediaSourceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static let mp4Files = ["mov_avc.mov", "mp4_avc_audio.mp4", "mp4_avc_bframes.mp4", "mp4_avc_frag.mp4", "mp4_hevc_hvc1.mp4"]

    /// Every NAL unit (offset, bytes) of `source`.
    static func units(_ source: MediaSource) throws -> [(Int64, [UInt8])] {
        var units: [(Int64, [UInt8])] = []
        try source.forEachNALUnit { units.append(($0.offset, $0.array)) }
        return units
    }

    @Test(arguments: mp4Files) func detectsMP4ByContent(file: String) throws {
        let head = try Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture(file))).prefix(8))
        #expect(ContainerDetection.looksLikeMP4(head))
        let source = try MediaSource(path: Self.fixture(file))
        #expect(source.container == .mp4(quickTime: file.hasSuffix(".mov")))
        #expect(source.codec == (file.contains("hevc") ? .hevc : .h264))
        #expect(!source.outOfBandParameterSets.isEmpty)
        #expect(!source.spooled)
    }

    @Test(arguments: ["avc_main.h264", "hevc_main.h265", "avc_main.lp", "avc_baseline.avcC"])
    func elementaryStreamsAreNotMP4(file: String) throws {
        let head = try Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture(file))).prefix(8))
        #expect(!ContainerDetection.looksLikeMP4(head))
    }

    /// The other tracks of an MP4 with audio are named (ffprobe: stream 0 audio mp4a id 0x1, stream 1 video id 0x2).
    @Test func namesTheAudioTrack() throws {
        let source = try MediaSource(path: Self.fixture("mp4_avc_audio.mp4"))
        #expect(source.otherTracks.map(\.description) == ["track 1 (soun, mp4a)"])
        #expect(try MediaSource(path: Self.fixture("mp4_avc_bframes.mp4")).otherTracks.isEmpty)
    }

    /// Through a FIFO: MP4 is spooled (same NAL units at the same offsets as the file), Annex-B
    /// streams as read; nothing the writer sent is lost.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_hvc1.mp4", "avc_main.h264"])
    func fifoInput(file: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("in").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$0\" > \"$1\"", Self.fixture(file), fifo]
        try writer.run()
        let piped = try MediaSource(path: fifo)
        let viaPipe = try Self.units(piped)
        writer.waitUntilExit()
        let direct = try Self.units(try MediaSource(path: Self.fixture(file)))
        #expect(piped.spooled == file.hasSuffix(".mp4"))
        #expect(viaPipe.count == direct.count)
        #expect(viaPipe.map(\.0) == direct.map(\.0))
        #expect(viaPipe.map(\.1) == direct.map(\.1))
    }

    /// The collector gives what the record builder gives for ffmpeg's extradata: the MP4's
    /// sample entry record, byte for byte (libx264 files: one SPS, one PPS).
    @Test func collectorRebuildsTheSampleEntryRecord() throws {
        let source = try MediaSource(path: Self.fixture("mp4_avc_bframes.mp4"))
        let record = try #require(source.mp4?.track.sampleDescription.recordBytes)
        let collector = try ParameterSetCollector.collect(source)
        #expect(try collector.record() == record)
    }

    /// Access units of an MP4 are matched to their samples (a bounded ring, no growing list).
    @Test func accessUnitsCarryTheirSamples() throws {
        let source = try MediaSource(path: Self.fixture("mp4_avc_bframes.mp4"))
        let reader = try #require(source.mp4)
        var samples: [MP4Sample] = []
        try reader.forEachSample { samples.append($0) }
        var matched: [MP4Sample?] = []
        try source.forEachAccessUnit { matched.append($0.sample) }
        #expect(matched.count == samples.count)
        #expect(matched == samples.map { Optional($0) })
    }
}
