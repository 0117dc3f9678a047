#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
public import NALUEncoder

/// A file or standard input read through one descriptor, as frames for an encoder
/// (``EncodeFrameInput``; `nalu encode`, `nalu compare`): the first bytes can be peeked (to tell
/// Y4M from raw frames) and are handed out again, so pipes and FIFOs work. A read after
/// ``isStopped`` returns `true` ends the input, so an encode stopped by a signal can finish its
/// output.
public final class FrameFileSource: SeekableByteSource {
    /// The path opened (`"-"`: standard input).
    public let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var pending: [UInt8] = []
    /// Bytes handed to the reader so far.
    public private(set) var bytesDelivered: Int64 = 0
    /// Whether reading should stop (a stopping signal): the input then ends.
    public var isStopped: () -> Bool

    /// Opens `path` (`"-"`: standard input). Throws ``ExportError/Code/noInput`` naming the path
    /// when it cannot be opened.
    public init(path: String, isStopped: @escaping () -> Bool = { false }) throws(ExportError) {
        self.path = path
        self.isStopped = isStopped
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ExportError(.noInput, subject: path, errnoText(errno)) }
            descriptor = fd
            ownsDescriptor = true
        }
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// The name in messages: the path, or `standard input`.
    public var subject: String { path == "-" ? "standard input" : path }

    /// The size of a regular file, or `nil` for pipes.
    public var regularFileSize: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The size of a regular file; other inputs cannot seek.
    public var size: Int64 {
        get throws {
            guard let size = regularFileSize else { throw NALUError(.io, field: path, detail: "not a regular file: cannot seek") }
            return size
        }
    }

    /// Moves the read position of a regular file to `offset`, dropping the peeked bytes;
    /// ``bytesDelivered`` counts from there.
    public func seek(to offset: Int64) throws(NALUError) {
        guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw NALUError(.io, field: subject, detail: "seek to byte \(offset): " + errnoText(errno))
        }
        pending.removeAll()
        bytesDelivered = 0
    }

    /// Up to `count` first bytes, kept to be read again.
    public func peek(_ count: Int) throws(NALUError) -> [UInt8] {
        return try NALUError.typed(field: "input") {
            var chunk = [UInt8](repeating: 0, count: count)
            while pending.count < count {
                let got = try chunk.withUnsafeMutableBytes { try readDescriptor(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<(count - pending.count)])) }
                if got == 0 { break }
                pending += chunk[0..<got]
            }
            return pending
        }
    }

    /// Reads up to `buffer.count` bytes (the peeked ones first); 0 at the end, or once stopped.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        return try NALUError.typed(field: "input") {
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
    }

    private func readDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if isStopped() { return 0 }
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: subject, detail: errnoText(errno))
        }
    }
}

/// `strerror`'s text for `number`.
func errnoText(_ number: Int32) -> String {
    guard let text = strerror(number) else { return "errno \(number)" }
    return String(cString: text)
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif
