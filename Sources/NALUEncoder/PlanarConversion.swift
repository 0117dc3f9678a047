/// Converts semi-planar frames (``PixelFormat/nv12``, ``PixelFormat/p010le``) into their planar
/// equivalent (``PixelFormat/i420``, ``PixelFormat/yuv420p10le``) in one reused buffer, for
/// backends whose library reads planar pictures only (or, for P010, low-aligned samples only).
/// One pass over the frame, no allocation per frame.
package final class PlanarConverter {
    package let buffer: FrameBuffer

    /// A converter for frames of `format` (a semi-planar format) and size.
    package init(format: PixelFormat, width: Int, height: Int) throws(EncoderError) {
        buffer = try FrameBuffer(pixelFormat: format.planarEquivalent, width: width, height: height)
    }

    /// `frame` in the planar format, in ``buffer`` (kept alive by the frame) until the next call. `frame` must be
    /// semi-planar 4:2:0 of the converter's size (``Frame/validate(against:)`` checked it).
    package func convert(_ frame: Frame) -> Frame {
        let width = buffer.width
        let height = buffer.height
        let chromaWidth = width / 2
        let chromaHeight = height / 2
        let y = buffer.planeBytes(0)
        let u = buffer.planeBytes(1)
        let v = buffer.planeBytes(2)
        if frame.pixelFormat == .p010le {
            // P010 keeps the 10 bits in the high bits of each little-endian word (value << 6).
            for row in 0..<height {
                let line = frame.plane0.baseAddress + row * frame.plane0.bytesPerRow
                for column in 0..<width {
                    let word = UInt16(littleEndian: line.loadUnaligned(fromByteOffset: 2 * column, as: UInt16.self))
                    y.storeBytes(of: (word >> 6).littleEndian, toByteOffset: 2 * (row * width + column), as: UInt16.self)
                }
            }
            for row in 0..<chromaHeight {
                let line = frame.plane1.baseAddress + row * frame.plane1.bytesPerRow
                for column in 0..<chromaWidth {
                    let cb = UInt16(littleEndian: line.loadUnaligned(fromByteOffset: 4 * column, as: UInt16.self))
                    let cr = UInt16(littleEndian: line.loadUnaligned(fromByteOffset: 4 * column + 2, as: UInt16.self))
                    let offset = 2 * (row * chromaWidth + column)
                    u.storeBytes(of: (cb >> 6).littleEndian, toByteOffset: offset, as: UInt16.self)
                    v.storeBytes(of: (cr >> 6).littleEndian, toByteOffset: offset, as: UInt16.self)
                }
            }
        } else {
            for row in 0..<height {
                guard let to = y.baseAddress else { break }
                (to + row * width).copyMemory(from: frame.plane0.baseAddress + row * frame.plane0.bytesPerRow, byteCount: width)
            }
            for row in 0..<chromaHeight {
                let line = frame.plane1.baseAddress.assumingMemoryBound(to: UInt8.self) + row * frame.plane1.bytesPerRow
                for column in 0..<chromaWidth {
                    u[row * chromaWidth + column] = line[2 * column]
                    v[row * chromaWidth + column] = line[2 * column + 1]
                }
            }
        }
        var planar = buffer.frame(pts: frame.pts)
        planar.owner = buffer
        return planar
    }
}
