#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// A buffered ``ByteSink`` writing to a file, a device or standard output.
///
/// The path is opened through ``OutputTarget``: a regular file is written under a unique
/// temporary name beside its destination and renamed into place by ``commit()``, so a failed or
/// interrupted run leaves either the complete file or the old one, never a truncated output. A
/// device or FIFO is written in place, a symbolic link through to its target; standard output
/// (`"-"`) is written through as bytes arrive.
public final class FileSink: ByteSink {
    /// The destination path, or `"-"` for standard output.
    public let path: String
    private let target: OutputTarget
    private var descriptor: Int32
    private var buffer: [UInt8]
    private let capacity: Int
    /// Bytes accepted so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Opens `path` for writing (`"-"`: standard output), buffering up to `bufferSize` bytes.
    public init(path: String, bufferSize: Int = 1 << 20) throws(NALUError) {
        self.path = path
        capacity = max(4096, bufferSize)
        buffer = []
        buffer.reserveCapacity(capacity)
        target = try OutputTarget(path: path)
        descriptor = target.descriptor
    }

    /// How the destination is written (file replaced by rename, device in place, standard output).
    public var kind: OutputTarget.Kind { target.kind }

    /// Abandons the output: a temporary file is removed, the destination keeps what it held.
    public func discard() { target.discard() }

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

    /// Flushes and completes the output: a file is renamed into place. Without this call a file
    /// output is removed when the sink is released.
    public func commit() throws {
        try drain()
        try target.commit()
    }
}
