import Foundation
import NALU
import NALUIO
import NALUMP4
import NALUMedia
import Testing

/// ``Concatenator`` on real clips: codecs checked up front, one sample entry per size, an end of
/// sequence NAL unit at each join.
@Suite struct ConcatTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture(name) }

    @Test func refusesH264WithH265() throws {
        do {
            _ = try Concatenator(paths: [Self.fixture("avc_main.h264"), Self.fixture("hevc_main.h265")])
            Issue.record("no error")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.field == "concat")
            #expect(error.detail == "\(Self.fixture("avc_main.h264")) is H.264 and \(Self.fixture("hevc_main.h265")) is H.265")
        }
    }

    @Test func endOfSequenceUnits() throws {
        #expect(Concatenator.endOfSequence(.h264) == [0x0A])
        #expect(Concatenator.endOfSequence(.hevc) == [0x48, 0x01])
        #expect(Codec.hevc.isEndOfSequence(firstByte: Concatenator.endOfSequence(.hevc)[0]))
        #expect(Codec.h264.isEndOfSequence(firstByte: Concatenator.endOfSequence(.h264)[0]))
    }

    @Test func joinsTwoSizesIntoTwoSampleEntries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-concat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("joined.mp4").path
        let joiner = try Concatenator(paths: [Self.fixture("concat_avc_640x360.mp4"), Self.fixture("concat_avc_1280x720.h264")])
        let output = try FileSink(path: path)
        let report = try joiner.writeMP4(output: output, options: MP4MuxerOptions())
        try output.commit()
        #expect(report.pictures == [25, 25])
        #expect(report.outputFrameRate == Rational(25, 1))
        #expect(report.inputsAtAnotherRate.isEmpty)
        #expect(report.otherTracks.map(\.count) == [1, 0])
        let summary = try #require(report.sink?.mp4)
        #expect(summary.writer.samples == 50)
        #expect(summary.sampleDescriptions == 2)
        #expect(summary.writer.duration == 50 * 512)
        let reader = try MP4VideoTrackReader(AnyRandomAccessSource(RandomAccessFile(path: path)))
        #expect(reader.track.sampleDescriptions.map { [$0.width, $0.height] } == [[640, 360], [1280, 720]])
    }
    /// Two copies of an H.265 stream that starts with a CRA (cut at x265's repeated VPS): each
    /// loses its 3 RASL pictures, and the second's CRA becomes BLA_W_LP (H.265 C.5.2.2).
    @Test func aStartingCRAOfALaterInputBecomesBLA() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-concat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("trim_hevc_open_gop.h265")))
        var vpsOffsets: [Int] = []
        data.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                if HEVCNALUnitType(rawValue: buffer[range.lowerBound] >> 1) == .vps { vpsOffsets.append(range.lowerBound) }
            }
        }
        let second = try #require(vpsOffsets.dropFirst().first)
        let cra = folder.appendingPathComponent("cra.h265").path
        try ([0, 0, 0, 1] + data[second...]).write(to: URL(fileURLWithPath: cra))
        let path = folder.appendingPathComponent("joined.h265").path
        let output = try FileSink(path: path)
        let report = try Concatenator(paths: [cra, cra]).writeAnnexB(output: output)
        try output.commit()
        #expect(report.droppedLeadingPictures == [3, 3])
        #expect(report.pictures == [63, 63])
        var types: [HEVCNALUnitType] = []
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in types.append(HEVCNALUnitType(rawValue: buffer[range.lowerBound] >> 1)) }
        }
        #expect(types.filter { $0 == .blaWLP }.count == 1)
        #expect(types.filter { $0 == .raslN || $0 == .raslR }.count == 2 * (3 * 5))
        #expect(types.filter { $0 == .endOfSequence }.count == 1)
    }
}
