#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUEncoder
import NALUIO
import NALUDecoder
import NALUExport

/// The input of `nalu encode`, opened once: a file or standard input read through one
/// descriptor. The first bytes are peeked (to tell Y4M from raw frames) and handed out again, so
/// pipes and FIFOs work. A read interrupted by a stopping signal (``Signals``) ends the input, so
/// the encode can finish its output.
final class EncodeSource: ByteSource {
    let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var pending: [UInt8] = []
    /// Bytes handed to the reader so far.
    private(set) var bytesDelivered: Int64 = 0

    /// Opens `path` (`"-"`: standard input).
    init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CLIError(path, Failure.errnoText(errno), status: ExitStatus.noInput) }
            descriptor = fd
            ownsDescriptor = true
        }
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// The size of a regular file, or `nil` for pipes.
    var regularFileSize: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Moves the read position of a regular file to `offset`, dropping the peeked bytes;
    /// ``bytesDelivered`` counts from there.
    func seek(to offset: Int64) throws {
        guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw NALUError(.io, field: path == "-" ? "standard input" : path, detail: "seek to byte \(offset): " + Failure.errnoText(errno))
        }
        pending.removeAll()
        bytesDelivered = 0
    }

    /// Up to `count` first bytes, kept to be read again.
    func peek(_ count: Int) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: count)
        while pending.count < count {
            let got = try chunk.withUnsafeMutableBytes { try readDescriptor(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<(count - pending.count)])) }
            if got == 0 { break }
            pending += chunk[0..<got]
        }
        return pending
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { bytes in
                if let from = bytes.baseAddress { base.copyMemory(from: from, byteCount: count) }
            }
            pending.removeFirst(count)
            bytesDelivered += Int64(count)
            return count
        }
        let count = try readDescriptor(into: buffer)
        bytesDelivered += Int64(count)
        return count
    }

    private func readDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if Signals.stopRequested { return 0 }
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: path == "-" ? "standard input" : path, detail: Failure.errnoText(errno))
        }
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif

/// Where `nalu encode` gets frames: a raw planar file, a Y4M stream, or the test pattern. Every
/// kind reuses one frame buffer, so memory is constant whatever the input size.
enum EncodeInput {
    case raw(RawVideoReader<EncodeSource>, EncodeSource)
    case y4m(Y4MReader<EncodeSource>)
    case pattern(TestPattern, next: Int64)
    /// A compressed input, decoded (``NALUExport/DecodedVideoInput``).
    case decoded(DecodedVideoInput)

    var pixelFormat: PixelFormat {
        switch self {
        case .raw(let reader, _): reader.buffer.pixelFormat
        case .y4m(let reader): reader.header.pixelFormat
        case .pattern(let pattern, _): pattern.buffer.pixelFormat
        case .decoded(let input): input.pixelFormat
        }
    }

    var size: FrameSize {
        switch self {
        case .raw(let reader, _): FrameSize(width: reader.buffer.width, height: reader.buffer.height)
        case .y4m(let reader): FrameSize(width: reader.header.width, height: reader.header.height)
        case .pattern(let pattern, _): FrameSize(width: pattern.buffer.width, height: pattern.buffer.height)
        case .decoded(let input): FrameSize(width: input.width, height: input.height)
        }
    }

    /// The next frame, borrowing the input's buffer until the next call, or `nil` at the end.
    mutating func nextFrame() throws(EncoderError) -> Frame? {
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
            } catch let error as EncoderError {
                throw error
            } catch let error as DecoderError {
                throw EncoderError(.invalidInput, field: "decode", detail: "\(error.cliError(input: input.path))")
            } catch {
                throw EncoderError(.invalidInput, field: "decode", detail: "\(error)")
            }
        }
    }

    /// Raw input: the bytes after the last whole frame (a partial last frame), given `frames`
    /// whole frames were read.
    func trailingBytes(frames: Int64) -> Int64? {
        guard case .raw(let reader, let source) = self else { return nil }
        return source.bytesDelivered - frames * Int64(reader.frameSize)
    }
}
