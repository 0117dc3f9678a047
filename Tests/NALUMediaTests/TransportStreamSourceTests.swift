import Foundation
import NALU
import NALUMedia
import NALUTS
import Testing

/// ``MediaSource`` on ffmpeg's transport streams: told by content, and every access unit
/// timed with the PTS/DTS ffprobe reports for it.
@Suite struct TransportStreamSourceTests {
    static let files = ["ts_avc_aac.ts", "ts_hevc_aac.ts", "m2ts_avc_aac.m2ts"]

    /// ffprobe's video packets in decoding order: (pts, dts).
    static func packets(_ file: String) throws -> [PESTimestamps] {
        let base = String(file.prefix { $0 != "." })
        let text = try String(contentsOfFile: MediaSourceTests.fixture(base + ".tspackets.csv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let pts = Int64(fields[0]), let dts = Int64(fields[1]) else { return nil }
            return PESTimestamps(presentation: pts, decoding: dts)
        }
    }

    @Test(arguments: files) func accessUnitTimesEqualFFprobe(file: String) throws {
        let path = MediaSourceTests.fixture(file)
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096))
        #expect(ContainerDetection.transportStreamPacketSize(head) == (file.hasSuffix(".m2ts") ? 192 : 188))
        let source = try MediaSource(path: path)
        #expect(source.container == .transportStream(packetSize: file.hasSuffix(".m2ts") ? 192 : 188))
        #expect(source.codec == (file.contains("hevc") ? .hevc : .h264))
        #expect(source.container.framing == .annexB)
        #expect(try source.containerFrameRate() == Rational(30, 1))
        var times: [PESTimestamps] = []
        try source.forEachAccessUnit { times.append(try #require($0.timestamps)) }
        let expected = try Self.packets(file)
        #expect(times.count == 30)
        #expect(times.map(\.presentation) == expected.map(\.presentation))
        #expect(times.map(\.effectiveDecoding) == expected.map(\.decoding))
        #expect(source.transportStream?.counts.totalWarnings == 0)
        #expect(source.otherTrackDescriptions.count == 1)
    }

    /// A codec that contradicts the PMT is an option error.
    @Test func codecContradictsPMT() throws {
        #expect {
            try MediaSource(path: MediaSourceTests.fixture("ts_avc_aac.ts"), options: MediaSourceOptions(codec: .hevc))
        } throws: { ($0 as? NALUError)?.field == "--codec" }
    }
}
