#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// A buffered ``ByteSink`` writing to a file or standard output.
///
/// A file is written under a temporary name beside its destination and renamed into place by
/// ``commit()``, so a failed run never leaves a silently truncated output: it leaves either the
/// complete file or none. Standard output (`"-"`) is written through as bytes arrive.
public final class FileSink: ByteSink {
    /// The destination path, or `"-"` for standard output.
    public let path: String
    private let temporaryPath: String?
    private var descriptor: Int32
    private var buffer: [UInt8]
    private let capacity: Int
    private var committed = false
    /// Bytes accepted so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Opens `path` for writing (`"-"`: standard output), buffering up to `bufferSize` bytes.
    public init(path: String, bufferSize: Int = 1 << 20) throws(NALUError) {
        self.path = path
        capacity = max(4096, bufferSize)
        buffer = []
        buffer.reserveCapacity(capacity)
        if path == "-" {
            descriptor = 1
            temporaryPath = nil
        } else {
            let temporary = path + ".nalu-partial"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw NALUError(.io, field: path, detail: FileSource.errnoText()) }
            descriptor = fd
            temporaryPath = temporary
        }
    }

    deinit {
        // Not committed: remove the partial file so no truncated output is left behind.
        if let temporaryPath, !committed {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Writes of at least this many bytes skip the buffer (after draining it), saving a copy.
    public static var writeThroughThreshold: Int { 64 * 1024 }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        bytesWritten += Int64(bytes.count)
        if bytes.count >= Self.writeThroughThreshold {
            try drain()
            try writeAll(bytes)
            return
        }
        if buffer.count + bytes.count > capacity { try drain() }
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes buffered bytes to the descriptor.
    public func drain() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let count = systemWrite(descriptor, base, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            remaining -= count
            base += count
        }
    }

    /// Flushes and, for a file, renames it into place. Without this call a file output is removed.
    public func commit() throws {
        try drain()
        guard let temporaryPath, !committed else { return }
        guard close(descriptor) == 0 else { throw NALUError(.io, field: path, detail: FileSource.errnoText()) }
        committed = true
        guard rename(temporaryPath, path) == 0 else {
            let text = FileSource.errnoText()
            unlink(temporaryPath)
            throw NALUError(.io, field: path, detail: text)
        }
    }
}
