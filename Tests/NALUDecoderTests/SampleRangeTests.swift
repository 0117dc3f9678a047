import Foundation
import NALU
import NALUDecoder
import NALUEncoder
import Testing

/// Issue 40 item 2: decoded samples above the bit depth are found and clamped before encoding.
@Suite struct SampleRangeTests {
    /// A backend that hands out one 4x2 10-bit picture per access unit with the given luma.
    final class Backend: DecoderBackend {
        let luma: [UInt16]
        init(luma: [UInt16]) { self.luma = luma }
        func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError) {
            let buffer: FrameBuffer
            do { buffer = try FrameBuffer(pixelFormat: .yuv420p10le, width: 4, height: 2) } catch {
                throw DecoderError(.invalidSession, field: "test")
            }
            let y = buffer.planeBytes(0)
            for (index, value) in luma.enumerated() {
                y[2 * index] = UInt8(truncatingIfNeeded: value)
                y[2 * index + 1] = UInt8(truncatingIfNeeded: value >> 8)
            }
            pictures.append(DecodedPicture(buffer: buffer, tag: tag))
        }
        func flush(into pictures: inout [DecodedPicture]) throws(DecoderError) {}
        func takeMessages() -> [String] { [] }
    }

    struct Factory: DecoderBackendFactory {
        let luma: [UInt16]
        var name: String { "test" }
        func validate(codec: Codec) throws(DecoderError) {}
        func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend { Backend(luma: luma) }
    }

    static func frame(luma: [UInt16]) throws -> DecodedFrame {
        // A real SPS and PPS open the backend; the fake ignores them.
        let record = try DecoderConfigurationRecord(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("avc_high10.avcC")))))
        let session = try DecoderSession(record: record, factory: Factory(luma: luma))
        let frames = try session.decode(CodedAccessUnit(nalUnits: [[0x65, 0x88, 0x84]], index: 0))
        return try #require(frames.first)
    }

    @Test func samplesAboveTheBitDepthAreClamped() throws {
        let frame = try Self.frame(luma: [0, 1023, 1024, 65528, 512, 65535, 7, 1023])
        #expect(frame.maximumSample == 1023)
        #expect(frame.samplesAboveBitDepth == 3)
        let (clamped, count) = frame.clampingToBitDepth()
        #expect(count == 3)
        #expect(clamped.samplesAboveBitDepth == 0)
        let luma = clamped.planeBytes(0)
        let values = stride(from: 0, to: luma.count, by: 2).map { UInt16(luma[$0]) | UInt16(luma[$0 + 1]) << 8 }
        #expect(values == [0, 1023, 1023, 1023, 512, 1023, 7, 1023])
        // The original's pixels are shared and unchanged.
        #expect(frame.samplesAboveBitDepth == 3)
        #expect(clamped.pts == frame.pts && clamped.accessUnitIndex == frame.accessUnitIndex)
    }

    @Test func framesInRangeAreNotCopied() throws {
        let frame = try Self.frame(luma: [0, 1023, 4, 5, 6, 7, 8, 9])
        let (same, count) = frame.clampingToBitDepth()
        #expect(count == 0)
        #expect(same.planeBytes(0) == frame.planeBytes(0))
    }
}
