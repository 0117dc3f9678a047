import NALU
import NALUEncoder
import NALUIO

/// Where `nalu encode` gets frames: a raw planar file, a Y4M stream, or the test pattern. Every
/// kind reuses one frame buffer, so memory is constant whatever the input size.
enum EncodeInput {
    case raw(RawVideoReader<FileSource>)
    case y4m(Y4MReader<FileSource>)
    case pattern(TestPattern, next: Int64)

    var pixelFormat: PixelFormat {
        switch self {
        case .raw(let reader): reader.buffer.pixelFormat
        case .y4m(let reader): reader.header.pixelFormat
        case .pattern(let pattern, _): pattern.buffer.pixelFormat
        }
    }

    var size: FrameSize {
        switch self {
        case .raw(let reader): FrameSize(width: reader.buffer.width, height: reader.buffer.height)
        case .y4m(let reader): FrameSize(width: reader.header.width, height: reader.header.height)
        case .pattern(let pattern, _): FrameSize(width: pattern.buffer.width, height: pattern.buffer.height)
        }
    }

    /// The next frame, borrowing the input's buffer until the next call, or `nil` at the end.
    mutating func nextFrame() throws(EncoderError) -> Frame? {
        switch self {
        case .raw(var reader):
            let frame = try reader.nextFrame()
            self = .raw(reader)
            return frame
        case .y4m(var reader):
            let frame = try reader.nextFrame()
            self = .y4m(reader)
            return frame
        case .pattern(let pattern, let next):
            self = .pattern(pattern, next: next + 1)
            return pattern.frame(next)
        }
    }
}
