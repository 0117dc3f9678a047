// The Y4M reader (header parsing, FRAME lines, frame reads) and the raw planar reader, over
// data-derived read chunkings. Every input ends in frames, the end of input or a typed
// EncoderError. The first byte picks the chunk size and whether the raw reader runs too.
import NALU
import NALUEncoder

enum Y4MHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let chunk = 1 + Int(mode & 0x3F)
        let bytes = Array(all.dropFirst())
        var frames = 0
        var sizeMismatch = false
        do {
            var reader = try Y4MReader(MemorySource(bytes, chunkSize: chunk))
            while let frame = try reader.nextFrame() {
                if frame.width != reader.header.width || frame.height != reader.header.height { sizeMismatch = true }
                frames += 1
            }
        } catch {}
        try fuzzCheck(!sizeMismatch, "frame size differs from the header's")
        if mode & 0x40 != 0 {
            let format: PixelFormat = mode & 0x80 != 0 ? .nv12 : .i420
            do {
                var reader = try RawVideoReader(MemorySource(bytes, chunkSize: chunk), pixelFormat: format, width: 16, height: 8)
                while try reader.nextFrame() != nil { frames += 1 }
            } catch {}
        }
        withExtendedLifetime(frames) {}
    }
}
