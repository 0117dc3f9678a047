import NALU
import NALUEncoder
import Testing

/// Raw planar and Y4M input: exact frames, chunk-size independence, typed errors with offsets.
@Suite struct RawInputTests {
    /// `count` frames of `format` whose every byte encodes its frame and position.
    static func rawFrames(_ format: PixelFormat, width: Int, height: Int, count: Int) -> [UInt8] {
        let size = format.frameSize(width: width, height: height) ?? 0
        return (0..<(size * count)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / size) }
    }

    static func bytes(of frame: Frame) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<frame.pixelFormat.planeCount {
            guard let plane = frame.plane(index) else { continue }
            let rowBytes = frame.pixelFormat.rowBytes(plane: index, width: frame.width)
            for row in 0..<frame.pixelFormat.rows(plane: index, height: frame.height) {
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: plane.baseAddress + row * plane.bytesPerRow, count: rowBytes))
            }
        }
        return bytes
    }

    @Test(arguments: PixelFormat.allCases)
    func readsRawFramesInAnyChunking(_ format: PixelFormat) throws {
        let width = 16, height = 8
        let data = Self.rawFrames(format, width: width, height: height, count: 3)
        let size = try #require(format.frameSize(width: width, height: height))
        // 16x8: 128 luma samples plus 64 (4:2:0), 128 (4:2:2) or 256 (4:4:4) chroma samples.
        let expected: [PixelFormat: Int] = [.i420: 192, .nv12: 192, .yuv420p10le: 384, .yuv422p: 256, .yuv444p: 384,
                                            .yuv422p10le: 512, .yuv444p10le: 768, .p010le: 384]
        #expect(size == expected[format])
        for chunks in [[1], [7, 500], [100_000]] {
            var reader = try RawVideoReader(MemorySource(data, chunkSizes: chunks), pixelFormat: format, width: width, height: height)
            var frames: [[UInt8]] = []
            var pts: [Int64] = []
            while let frame = try reader.nextFrame() {
                frames.append(Self.bytes(of: frame))
                pts.append(frame.pts)
            }
            #expect(frames == [Array(data[0..<size]), Array(data[size..<(2 * size)]), Array(data[(2 * size)...])])
            #expect(pts == [0, 1, 2])
        }
    }

    @Test func truncatedRawInputIsATypedErrorWithOffset() throws {
        let data = Self.rawFrames(.i420, width: 16, height: 8, count: 2).dropLast(5)
        var reader = try RawVideoReader(MemorySource(Array(data), chunkSize: 50), pixelFormat: .i420, width: 16, height: 8)
        #expect(try reader.nextFrame() != nil)
        let error = #expect(throws: EncoderError.self) { try reader.nextFrame() }
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == 379)
        #expect(error?.field == "frame 1")
        #expect(error?.description == "frame 1: truncated input (needs 192 bytes, input ended after 187 (frame starts at byte 192)) at byte 379")
    }

    /// EncoderError has NALUError's shape (code, field, byte offset, detail); the former
    /// spellings (`context`, `.truncatedInput`) are the same values.
    @Test func encoderErrorHasTheShapeOfNALUError() {
        let error = EncoderError(.truncated, field: "Y4M header", byteOffset: 12, detail: "empty input")
        let bitstream = NALUError(.truncated, field: "Y4M header", byteOffset: 12, detail: "empty input")
        #expect(error.description == "Y4M header: truncated input (empty input) at byte 12")
        #expect(bitstream.description == "Y4M header: truncated (empty input) at byte 12")
        #expect(EncoderError(.truncatedInput, context: "Y4M header", detail: "empty input", byteOffset: 12) == error)
        #expect(error.context == error.field)
    }

    @Test func rawReaderRejectsOddSizes() {
        #expect { _ = try RawVideoReader(MemorySource([]), pixelFormat: .i420, width: 15, height: 8) } throws: {
            ($0 as? EncoderError)?.code == .invalidConfiguration
        }
        #expect(PixelFormat.i420.frameSize(width: Int.max - 1, height: 4) == nil)
    }

    static func y4m(_ header: String, frames: [[UInt8]], frameLine: String = "FRAME") -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for frame in frames {
            bytes += Array((frameLine + "\n").utf8)
            bytes += frame
        }
        return bytes
    }

    @Test func readsY4M() throws {
        let frame0 = [UInt8](repeating: 1, count: 192), frame1 = [UInt8](repeating: 2, count: 192)
        let data = Self.y4m("YUV4MPEG2 W16 H8 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2", frames: [frame0, frame1], frameLine: "FRAME Ixyz")
        for chunk in [3, 4096] {
            var reader = try Y4MReader(MemorySource(data, chunkSize: chunk))
            #expect(reader.header.width == 16)
            #expect(reader.header.height == 8)
            #expect(reader.header.frameRate == Rational(30000, 1001))
            #expect(reader.header.pixelFormat == .i420)
            #expect(reader.header.colourSpace == "420mpeg2")
            #expect(reader.header.pixelAspectRatio == Rational(1, 1))
            var frames: [[UInt8]] = []
            while let frame = try reader.nextFrame() { frames.append(Self.bytes(of: frame)) }
            #expect(frames == [frame0, frame1])
        }
    }

    @Test func y4mDefaultsAndTenBit() throws {
        let plain = try Y4MReader(MemorySource(Self.y4m("YUV4MPEG2 W4 H2 F25:1", frames: [])))
        #expect(plain.header.colourSpace == "420jpeg")
        #expect(plain.header.pixelFormat == .i420)
        let tenBit = try Y4MReader(MemorySource(Self.y4m("YUV4MPEG2 W4 H2 F50:2 C420p10", frames: [])))
        #expect(tenBit.header.pixelFormat == .yuv420p10le)
        #expect(tenBit.header.frameRate == Rational(25, 1))
    }

    @Test func y4mErrors() throws {
        func code(_ bytes: [UInt8]) -> EncoderError? {
            do {
                var reader = try Y4MReader(MemorySource(bytes))
                while try reader.nextFrame() != nil {}
                return nil
            } catch {
                return error
            }
        }
        #expect(code([])?.code == .truncated)
        #expect(code(Array("YUV4MPEG3 W4 H2 F25:1\n".utf8))?.code == .invalidInput)
        #expect(code(Array("YUV4MPEG2 W4 F25:1\n".utf8))?.code == .invalidInput)
        #expect(code(Array("YUV4MPEG2 W4 H2 F25:0\n".utf8))?.code == .invalidInput)
        #expect(code(Array("YUV4MPEG2 W5 H2 F25:1\n".utf8))?.code == .invalidInput)
        #expect(code(Array("YUV4MPEG2 W4 H2 F25:1 C444alpha\n".utf8))?.code == .invalidInput)
        #expect(code(Array("YUV4MPEG2 W4 H2 F25:1".utf8))?.code == .truncated)
        #expect(code(Array(repeating: UInt8(ascii: "Y"), count: 5000))?.code == .invalidInput)
        let notFrame = code(Self.y4m("YUV4MPEG2 W4 H2 F25:1", frames: [[UInt8](repeating: 0, count: 12)], frameLine: "FRAMEX"))
        #expect(notFrame?.code == .invalidInput)
        #expect(notFrame?.byteOffset == 22)
        let truncated = code(Array(Self.y4m("YUV4MPEG2 W4 H2 F25:1", frames: [[UInt8](repeating: 0, count: 12)]).dropLast(3)))
        #expect(truncated?.code == .truncated)
        #expect(truncated?.byteOffset == 37)
        let headerOnly = code(Array("YUV4MPEG2 W4 H2 F25:1\nFRAME\n".utf8))
        #expect(headerOnly?.code == .truncated)
    }

    @Test func testPatternMovesAndIsDeterministic() throws {
        for format in PixelFormat.allCases {
            let pattern = try TestPattern(pixelFormat: format, width: 32, height: 16)
            let first = Self.bytes(of: pattern.frame(0))
            let second = Self.bytes(of: pattern.frame(1))
            let again = Self.bytes(of: pattern.frame(0))
            #expect(first != second)
            #expect(first == again)
            #expect(first.count == format.frameSize(width: 32, height: 16))
        }
    }
}
