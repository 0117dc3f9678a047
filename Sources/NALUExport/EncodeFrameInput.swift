#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
public import NALUDecoder
public import NALUEncoder
import NALUMedia

/// Where an encode (`nalu encode`, ``EncodeInputPlan``) gets frames: raw planar frames, a Y4M
/// stream, the moving test pattern, or a compressed input decoded (``DecodedVideoInput``). The
/// raw, Y4M and pattern kinds reuse one frame buffer, so memory is constant whatever the input's
/// size.
public enum EncodeFrameInput {
    /// Raw planar frames of a size and layout given, read from the file.
    case raw(RawVideoReader<FrameFileSource>, FrameFileSource)
    /// A YUV4MPEG2 stream: size, rate and layout from its header.
    case y4m(Y4MReader<FrameFileSource>)
    /// The moving test pattern; `next` is the index of the next frame.
    case pattern(TestPattern, next: Int64)
    /// A compressed input, decoded.
    case decoded(DecodedVideoInput)

    /// The frames' layout.
    public var pixelFormat: PixelFormat {
        switch self {
        case .raw(let reader, _): reader.buffer.pixelFormat
        case .y4m(let reader): reader.header.pixelFormat
        case .pattern(let pattern, _): pattern.buffer.pixelFormat
        case .decoded(let input): input.pixelFormat
        }
    }

    /// The frames' width in samples.
    public var width: Int {
        switch self {
        case .raw(let reader, _): reader.buffer.width
        case .y4m(let reader): reader.header.width
        case .pattern(let pattern, _): pattern.buffer.width
        case .decoded(let input): input.width
        }
    }

    /// The frames' height in samples.
    public var height: Int {
        switch self {
        case .raw(let reader, _): reader.buffer.height
        case .y4m(let reader): reader.header.height
        case .pattern(let pattern, _): pattern.buffer.height
        case .decoded(let input): input.height
        }
    }

    /// The next frame, borrowing the input's buffer until the next call, or `nil` at the end. A
    /// decoder's failure is an ``NALUEncoder/EncoderError/Code/invalidInput`` (field `decode`).
    public mutating func nextFrame() throws(EncoderError) -> Frame? {
        switch self {
        case .raw(var reader, let source):
            let frame = try reader.nextFrame()
            self = .raw(reader, source)
            return frame
        case .y4m(var reader):
            let frame = try reader.nextFrame()
            self = .y4m(reader)
            return frame
        case .pattern(let pattern, let next):
            self = .pattern(pattern, next: next + 1)
            return pattern.frame(next)
        case .decoded(let input):
            do {
                return try input.nextFrame()
            } catch {
                // The stage's error as it threw it (``ExportError/stageError``).
                switch error.stageError ?? error {
                case let error as EncoderError: throw error
                case let error as DecoderError: throw EncoderError(.invalidInput, field: "decode", detail: error.described(input: input.path))
                case let error: throw EncoderError(.invalidInput, field: "decode", detail: "\(error)")
                }
            }
        }
    }

    /// Raw input: the bytes after the last whole frame (a partial last frame), given `frames`
    /// whole frames were read.
    public func trailingBytes(frames: Int64) -> Int64? {
        guard case .raw(let reader, let source) = self else { return nil }
        return source.bytesDelivered - frames * Int64(reader.frameSize)
    }

    /// The whole frames of a raw or Y4M file (0 for the other kinds).
    public mutating func frameCount() throws(EncoderError) -> Int64 {
        switch self {
        case .raw(let reader, _): return try reader.frameCount()
        case .y4m(var reader):
            let count = try reader.frameCount()
            self = .y4m(reader)
            return count
        case .pattern, .decoded: return 0
        }
    }

    /// Moves a raw or Y4M file to frame `index` (which then has pts `index`).
    public mutating func seek(toFrame index: Int64) throws(EncoderError) {
        switch self {
        case .raw(var reader, let source):
            try reader.seek(toFrame: index)
            self = .raw(reader, source)
        case .y4m(var reader):
            try reader.seek(toFrame: index)
            self = .y4m(reader)
        case .pattern, .decoded: break
        }
    }

    /// Whether `path` is a compressed input nalu reads, told by its content: MP4/MOV and
    /// MPEG-TS by their structure; an elementary stream must be named as one (.h264, .265…) or
    /// start with a start code, so raw video is not mistaken for one.
    public static func isCompressed(_ path: String) -> Bool {
        var options = MediaSourceOptions()
        options.readsAhead = false
        guard let source = try? MediaSource(path: path, options: options) else { return false }
        if source.container.isMP4 || source.container.isTransportStream { return true }
        let lower = path.lowercased()
        if [".h265", ".265", ".hevc", ".h264", ".264", ".avc"].contains(where: lower.hasSuffix) { return true }
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0xFF, count: 4)
        let count = fread(&head, 1, 4, file)
        return count == 4 && head[0] == 0 && head[1] == 0 && (head[2] == 1 || (head[2] == 0 && head[3] == 1))
    }
}

extension DecoderError {
    /// The error as a command line names it: a missing library by its loader's reason, a codec
    /// the decoder does not take as `--decoder`, anything else after the input's name.
    public func described(input: String) -> String {
        switch code {
        case .libraryUnavailable:
            let detail = self.detail ?? code.rawValue
            if let range = detail.firstRange(of: "; install ") { return "\(field): " + detail[..<range.lowerBound] }
            return "\(field): \(detail)"
        case .unsupported where field == "codec":
            return "--decoder: " + (detail ?? description)
        default:
            return (input == "-" ? "standard input" : input) + ": " + description
        }
    }
}
