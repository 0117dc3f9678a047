/// A moving synthetic picture for demos and tests: diagonal luma bands drifting across the frame,
/// a bright square bouncing around, and slowly rotating chroma. Rendered into one reused
/// ``FrameBuffer``, so memory is constant however many frames are drawn.
public final class TestPattern {
    public let buffer: FrameBuffer

    public init(pixelFormat: PixelFormat = .i420, width: Int, height: Int) throws(EncoderError) {
        buffer = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
    }

    /// Draws frame `index` and returns it with pts `index`, borrowing ``buffer`` until the next
    /// call.
    public func frame(_ index: Int64) -> Frame {
        render(index)
        return buffer.frame(pts: index)
    }

    private func render(_ index: Int64) {
        let width = buffer.width
        let height = buffer.height
        let t = Int(truncatingIfNeeded: index & 0xFFFF_FFFF)
        let box = max(4, min(width, height) / 4) & ~1
        let spanX = max(1, width - box)
        let spanY = max(1, height - box)
        let bx = bounce(t * 3, spanX)
        let by = bounce(t * 2, spanY)
        let format = buffer.pixelFormat
        let tenBit = format.bitDepth > 8
        // 8-bit values scaled to the stored word: × 4 for 10-bit, × 256 for P010's high bits.
        let shift = format == .p010le ? 8 : (tenBit ? 2 : 0)

        // Luma: diagonal bands moving right, and the square.
        let luma = buffer.planeBytes(0)
        for y in 0..<height {
            let inBoxRow = y >= by && y < by + box
            for x in 0..<width {
                var value = ((x + y / 2 + t * 2) & 0xFF) / 2 + 32
                if inBoxRow && x >= bx && x < bx + box { value = 235 }
                store(luma, index: y * width + x, value: value, shift: shift)
            }
        }
        // Chroma: a gradient whose direction turns with time.
        let chromaWidth = width / format.chromaSubsampling.subWidth
        let chromaHeight = height / format.chromaSubsampling.subHeight
        let u0 = 128 + bounce(t, 64) - 32
        let v0 = 128 - bounce(t + 32, 64) + 32
        if format.planeCount == 3 {
            let u = buffer.planeBytes(1)
            let v = buffer.planeBytes(2)
            for y in 0..<chromaHeight {
                for x in 0..<chromaWidth {
                    store(u, index: y * chromaWidth + x, value: u0 + (x * 32) / max(1, chromaWidth) - 16, shift: shift)
                    store(v, index: y * chromaWidth + x, value: v0 + (y * 32) / max(1, chromaHeight) - 16, shift: shift)
                }
            }
        } else {
            let uv = buffer.planeBytes(1)
            for y in 0..<chromaHeight {
                for x in 0..<chromaWidth {
                    store(uv, index: y * width + 2 * x, value: u0 + (x * 32) / max(1, chromaWidth) - 16, shift: shift)
                    store(uv, index: y * width + 2 * x + 1, value: v0 + (y * 32) / max(1, chromaHeight) - 16, shift: shift)
                }
            }
        }
    }

    /// A triangle wave 0…span…0 with period 2·span.
    private func bounce(_ value: Int, _ span: Int) -> Int {
        let phase = value % (2 * span)
        return phase < span ? phase : 2 * span - phase
    }

    @inline(__always)
    private func store(_ plane: UnsafeMutableRawBufferPointer, index: Int, value: Int, shift: Int) {
        let clamped = min(255, max(0, value))
        if shift > 0 {
            plane.storeBytes(of: UInt16(clamped << shift).littleEndian, toByteOffset: index * 2, as: UInt16.self)
        } else {
            plane[index] = UInt8(clamped)
        }
    }
}
