import Foundation
import NALU
import NALUEncoder
import Testing

/// Bytes in memory that can seek, counting the bytes handed out: shows a seek reads none of
/// the frames before the one asked for.
struct CountingSeekableSource: SeekableByteSource {
    let bytes: [UInt8]
    var position = 0
    var bytesRead = 0
    var seeks = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var size: Int64 { Int64(bytes.count) }

    mutating func seek(to offset: Int64) throws {
        guard offset >= 0, offset <= size else { throw NALUError(.io, field: "seek", detail: "offset \(offset) outside 0...\(size)") }
        position = Int(offset)
        seeks += 1
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0, let base = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { source in
            if let from = source.baseAddress { base.copyMemory(from: from + position, byteCount: count) }
        }
        position += count
        bytesRead += count
        return count
    }
}

/// Issue 17: the frame ranges of a chunked encode and the readers' seeks (raw: one seek to
/// index × frame size; Y4M: computed from the size when every FRAME line is bare, else an index
/// scan of the FRAME lines), checked against the input's size.
@Suite struct ChunkSeekTests {
    /// Frame `index` of a synthetic input: every byte tells the frame apart.
    static func frameBytes(_ index: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) }
    }

    static let width = 64
    static let height = 48
    static let frameSize = width * height * 3 / 2

    static func raw(frames: Int) -> [UInt8] {
        (0..<frames).flatMap { frameBytes($0, size: frameSize) }
    }

    /// A Y4M stream; frames in `parameterised` get a FRAME line with parameters (`FRAME Ip XA=1`).
    static func y4m(frames: Int, parameterised: Set<Int> = []) -> [UInt8] {
        var bytes = Array("YUV4MPEG2 W\(width) H\(height) F25:1 Ip C420jpeg\n".utf8)
        for index in 0..<frames {
            bytes += Array((parameterised.contains(index) ? "FRAME Ip XA=\(index)\n" : "FRAME\n").utf8)
            bytes += frameBytes(index, size: frameSize)
        }
        return bytes
    }

    static func pixels(_ frame: Frame) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: frame.plane0.baseAddress, count: frameSize))
    }

    @Test func chunkRangesCoverEveryFrameOnceInOrder() throws {
        #expect(try FrameRange.chunk(0, of: 3, frames: 20) == FrameRange(first: 0, count: 6))
        #expect(try FrameRange.chunk(1, of: 3, frames: 20) == FrameRange(first: 6, count: 7))
        #expect(try FrameRange.chunk(2, of: 3, frames: 20) == FrameRange(first: 13, count: 7))
        for (frames, chunks) in [(20, 3), (20, 20), (7, 2), (1000, 7), (1, 1), (100, 99)] as [(Int64, Int)] {
            var next: Int64 = 0
            for index in 0..<chunks {
                let range = try FrameRange.chunk(index, of: chunks, frames: frames)
                #expect(range.first == next)
                #expect(range.count == frames / Int64(chunks) || range.count == frames / Int64(chunks) + 1)
                next = range.end
            }
            #expect(next == frames)
        }
        // No overflow where index × frames passes Int64.
        let huge = Int64.max / 2
        #expect(try FrameRange.chunk(2, of: 3, frames: huge).end == huge)
        #expect(try FrameRange.chunk(1, of: 3, frames: huge).first == huge / 3)
    }

    @Test func chunkOutsideTheInputIsRefused() {
        #expect(throws: EncoderError.self) { try FrameRange.chunk(3, of: 3, frames: 20) }
        #expect(throws: EncoderError.self) { try FrameRange.chunk(-1, of: 3, frames: 20) }
        do {
            _ = try FrameRange.chunk(0, of: 21, frames: 20)
            Issue.record("21 chunks of 20 frames accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.field == "chunk")
        }
    }

    @Test func rawSeekReadsNoFrameBeforeTheRange() throws {
        var reader = try RawVideoReader(CountingSeekableSource(Self.raw(frames: 200) + [1, 2, 3]), pixelFormat: .i420, width: Self.width, height: Self.height)
        // The 3 bytes after the last whole frame are not a frame.
        #expect(try reader.frameCount() == 200)
        try reader.seek(toFrame: 150)
        let frame = try #require(try reader.nextFrame())
        #expect(frame.pts == 150)
        #expect(Self.pixels(frame) == Self.frameBytes(150, size: Self.frameSize))
        #expect(try reader.nextFrame()?.pts == 151)
        #expect(reader.framesRead == 152)
    }

    @Test func rawSeekIsNotAReadThrough() throws {
        // A source that records how much was read: the reader owns its copy, so count through a class.
        final class Box: @unchecked Sendable { var source: CountingSeekableSource; init(_ s: CountingSeekableSource) { source = s } }
        struct Shared: SeekableByteSource {
            let box: Box
            var size: Int64 { box.source.size }
            func seek(to offset: Int64) throws { try box.source.seek(to: offset) }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int { try box.source.read(into: buffer) }
        }
        let box = Box(CountingSeekableSource(Self.raw(frames: 200)))
        var reader = try RawVideoReader(Shared(box: box), pixelFormat: .i420, width: Self.width, height: Self.height)
        try reader.seek(toFrame: 190)
        for index in 190..<200 { #expect(try reader.nextFrame()?.pts == Int64(index)) }
        #expect(try reader.nextFrame() == nil)
        // Exactly the ten frames after the seek, none of the 190 before.
        #expect(box.source.bytesRead == 10 * Self.frameSize)

        let y4mBox = Box(CountingSeekableSource(Self.y4m(frames: 200)))
        var y4m = try Y4MReader(Shared(box: y4mBox))
        let afterHeader = y4mBox.source.bytesRead
        #expect(try y4m.frameCount() == 200)
        try y4m.seek(toFrame: 199)
        #expect(try y4m.nextFrame()?.pts == 199)
        // Two 6-byte FRAME-line probes for the count, two for the seek, then the last frame:
        // none of the 199 frames before it.
        #expect(y4mBox.source.bytesRead - afterHeader == 4 * 6 + 6 + Self.frameSize)
    }

    @Test func rawSeekPastTheEndIsRefused() throws {
        var reader = try RawVideoReader(CountingSeekableSource(Self.raw(frames: 5) + [0]), pixelFormat: .i420, width: Self.width, height: Self.height)
        for index: Int64 in [5, 6, -1, .max] {
            do {
                try reader.seek(toFrame: index)
                Issue.record("seek to frame \(index) of 5 accepted")
            } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(error.field == "seek")
                #expect(error.detail == "frame \(index) is not in the input, which holds 5 whole frames")
            }
        }
        try reader.seek(toFrame: 4)
        #expect(try reader.nextFrame()?.pts == 4)
        // The stray byte after frame 4 is a partial frame, as without a seek.
        #expect(throws: EncoderError.self) { try reader.nextFrame() }
    }

    @Test func y4mWithBareFrameLinesSeeksByArithmetic() throws {
        var reader = try Y4MReader(CountingSeekableSource(Self.y4m(frames: 30)))
        #expect(try reader.frameCount() == 30)
        // frameCount leaves the position at the first frame.
        #expect(try reader.nextFrame()?.pts == 0)
        for index: Int64 in [29, 0, 17] {
            try reader.seek(toFrame: index)
            let frame = try #require(try reader.nextFrame())
            #expect(frame.pts == index)
            #expect(Self.pixels(frame) == Self.frameBytes(Int(index), size: Self.frameSize))
        }
        #expect(throws: EncoderError.self) { try reader.seek(toFrame: 30) }
    }

    @Test(arguments: [Set<Int>([0]), [5, 6, 7], [19]])
    func y4mWithFrameParametersSeeksByScanningFrameLines(_ parameterised: Set<Int>) throws {
        // A partial last frame (a FRAME line and 10 bytes) is not counted.
        let bytes = Self.y4m(frames: 20, parameterised: parameterised) + Array("FRAME\n".utf8) + [UInt8](repeating: 9, count: 10)
        var reader = try Y4MReader(CountingSeekableSource(bytes))
        #expect(try reader.frameCount() == 20)
        for index: Int64 in [19, 6, 0, 8] {
            try reader.seek(toFrame: index)
            let frame = try #require(try reader.nextFrame())
            #expect(frame.pts == index)
            #expect(Self.pixels(frame) == Self.frameBytes(Int(index), size: Self.frameSize))
        }
        do {
            try reader.seek(toFrame: 20)
            Issue.record("seek to frame 20 of 20 accepted")
        } catch {
            #expect(error.field == "seek")
            #expect(error.detail == "frame 20 is not in the input, which holds 20 whole frames")
        }
    }

    @Test func y4mScanStopsAtAMissingFrameLine() throws {
        // Frame 3's line is damaged and frame 2 has parameters (so the count needs the scan).
        var bytes = Self.y4m(frames: 6, parameterised: [2])
        let header = Array("YUV4MPEG2 W\(Self.width) H\(Self.height) F25:1 Ip C420jpeg\n".utf8).count
        let frame3 = header + 2 * (6 + Self.frameSize) + ("FRAME Ip XA=2\n".utf8.count + Self.frameSize)
        #expect(Array(bytes[frame3..<(frame3 + 5)]) == Array("FRAME".utf8))
        bytes[frame3] = UInt8(ascii: "X")
        var reader = try Y4MReader(CountingSeekableSource(bytes))
        do {
            _ = try reader.frameCount()
            Issue.record("a damaged FRAME line was counted")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.field == "Y4M frame 3")
            #expect(error.byteOffset == Int64(frame3))
        }
    }
}
