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
    private let buffer: OutputBuffer
    private let capacity: Int
    /// Bytes accepted so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Opens `path` for writing (`"-"`: standard output), buffering up to `bufferSize` bytes.
    public init(path: String, bufferSize: Int = 1 << 20) throws(NALUError) {
        self.path = path
        capacity = max(4096, bufferSize)
        buffer = OutputBuffer(capacity: capacity)
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
        if bytes.count >= Self.writeThroughThreshold || bytes.count > buffer.capacity {
            // What is buffered (typically the start code or length of this NAL unit) and the
            // payload go out in one writev(2), the payload straight from the caller's memory.
            try writeAll(buffer.bytes, bytes)
            buffer.count = 0
            return
        }
        if buffer.count + bytes.count > buffer.capacity { try drain() }
        buffer.append(bytes)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes buffered bytes to the descriptor.
    public func drain() throws {
        guard buffer.count > 0 else { return }
        try writeAll(buffer.bytes, UnsafeRawBufferPointer(start: nil, count: 0))
        buffer.count = 0
    }

    /// Writes `first` then `second` with as few system calls as the kernel allows (one, unless a
    /// write is partial), retrying after `EINTR`.
    private func writeAll(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) throws {
        var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count))
        var remaining = first.count + second.count
        while remaining > 0 {
            let count = withUnsafeMutablePointer(to: &vectors) { pair in
                pair.withMemoryRebound(to: iovec.self, capacity: 2) { list in
                    let skip = list[0].iov_len == 0 ? 1 : 0
                    return writev(descriptor, list + skip, Int32(2 - skip))
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            remaining -= count
            // Advance past what was written.
            var written = count
            let firstTaken = min(written, vectors.0.iov_len)
            vectors.0.iov_base = vectors.0.iov_base.map { $0 + firstTaken }
            vectors.0.iov_len -= firstTaken
            written -= firstTaken
            vectors.1.iov_base = vectors.1.iov_base.map { $0 + written }
            vectors.1.iov_len -= written
        }
    }

    /// Whether ``overwrite(_:at:)`` works: the output is a regular file.
    public var canOverwrite: Bool { target.kind == .file }

    /// Replaces bytes already written, `offset` bytes from the start of the output, with `bytes`
    /// (`pwrite(2)`, after writing out what is buffered): for a header whose content is known
    /// only once what follows it is written, such as the size of an MP4 `mdat` box. Regular
    /// files only (``canOverwrite``).
    public func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard canOverwrite, offset >= 0, offset <= bytesWritten - Int64(bytes.count) else {
            throw NALUError(.unsupported, field: path, detail: "cannot overwrite \(bytes.count) bytes at offset \(offset)")
        }
        guard let base = bytes.baseAddress else { return }
        try drain()
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            done += count
        }
    }

    /// Flushes and completes the output: a file is renamed into place. Without this call a file
    /// output is removed when the sink is released.
    public func commit() throws {
        try drain()
        try target.commit()
    }
}

/// The bytes a ``FileSink`` holds back: raw memory with a fixed capacity, owned by this object.
private final class OutputBuffer {
    let capacity: Int
    private let storage: UnsafeMutableRawPointer
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Appends `bytes`; the caller has made room.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0, bytes.count <= capacity - count else { return }
        (storage + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }
}
