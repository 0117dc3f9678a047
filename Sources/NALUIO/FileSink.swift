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
    private let descriptor: Int32
    /// The buffer, in memory this object owns: reached through a pointer, so a write (once per
    /// NAL unit, or twice with its start code or length) costs no dynamic exclusivity check, as a
    /// stored `var` of a class would.
    private let buffer: UnsafeMutablePointer<OutputBuffer>
    /// Bytes accepted so far.
    public var bytesWritten: Int64 { buffer.pointee.accepted }

    /// Opens `path` for writing (`"-"`: standard output), buffering up to `bufferSize` bytes.
    /// `replacing`: a link, FIFO or device at `path` is replaced, not written (``OutputTarget/init(path:replacing:)``).
    public init(path: String, bufferSize: Int = 1 << 20, replacing: Bool = false) throws(NALUError) {
        self.path = path
        target = try OutputTarget(path: path, replacing: replacing)
        descriptor = target.descriptor
        buffer = UnsafeMutablePointer<OutputBuffer>.allocate(capacity: 1)
        buffer.initialize(to: OutputBuffer(capacity: max(4096, bufferSize)))
    }

    deinit {
        buffer.pointee.storage.deallocate()
        buffer.pointee.vectors.deallocate()
        buffer.deinitialize(count: 1)
        buffer.deallocate()
    }

    /// How the destination is written (file replaced by rename, device in place, standard output).
    public var kind: OutputTarget.Kind { target.kind }

    /// Abandons the output: a temporary file is removed, the destination keeps what it held.
    public func discard() { target.discard() }

    /// Writes of at least this many bytes skip the buffer (after draining it), saving a copy.
    public static var writeThroughThreshold: Int { 64 * 1024 }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        buffer.pointee.accepted += Int64(bytes.count)
        if bytes.count >= Self.writeThroughThreshold || bytes.count > buffer.pointee.capacity {
            if buffer.pointee.vectorCount > 0 { try writeVectors() }
            // What is buffered (typically the start code or length of this NAL unit) and the
            // payload go out in one writev(2), the payload straight from the caller's memory.
            try writeAll(buffer.pointee.bytes, bytes)
            buffer.pointee.count = 0
            return
        }
        if buffer.pointee.count + bytes.count > buffer.pointee.capacity { try drain() }
        buffer.pointee.append(bytes)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(NALUError) {
        try bytes.withBytes { (buffer) throws(NALUError) in try write(buffer) }
    }

    /// Takes `bytes` without copying them: they are written, in order with everything else, by
    /// the next ``returnLent()``, ``drain()`` or write that needs the room, one `writev(2)` for
    /// many runs (a run that starts where the previous one ended extends it).
    public func write(lent bytes: UnsafeRawBufferPointer) throws(NALUError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        buffer.pointee.accepted += Int64(bytes.count)
        // Room for this run, the buffered bytes before it, and those after it (written as a last
        // segment by `writeVectors`).
        if buffer.pointee.vectorCount > OutputBuffer.maxVectors - 3 { try writeVectors() }
        buffer.pointee.lend(base, count: bytes.count)
    }

    /// Writes out what was lent (and what was buffered before or between it).
    public func returnLent() throws(NALUError) {
        if buffer.pointee.vectorCount > 0 { try writeVectors() }
    }

    /// Writes buffered bytes to the descriptor.
    public func drain() throws(NALUError) {
        if buffer.pointee.vectorCount > 0 { return try writeVectors() }
        guard buffer.pointee.count > 0 else { return }
        try writeAll(buffer.pointee.bytes, UnsafeRawBufferPointer(start: nil, count: 0))
        buffer.pointee.count = 0
    }

    /// Writes `first` then `second` with as few system calls as the kernel allows (one, unless a
    /// write is partial), retrying after `EINTR`.
    private func writeAll(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) throws(NALUError) {
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

    /// Writes the pending vectors (lent runs and the buffered bytes between them) in order, with
    /// as few `writev(2)` calls as the kernel allows, retrying after `EINTR`; empties the buffer.
    private func writeVectors() throws(NALUError) {
        buffer.pointee.closeSegment()
        let vectors = buffer.pointee.vectors
        let total = buffer.pointee.vectorCount
        var first = 0
        while first < total {
            let count = writev(descriptor, vectors + first, Int32(total - first))
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            guard count > 0 else { throw NALUError(.io, field: path, detail: "writev wrote nothing") }
            // Advance past what was written.
            var written = count
            while first < total && written >= vectors[first].iov_len {
                written -= vectors[first].iov_len
                first += 1
            }
            if written > 0 {
                vectors[first].iov_base = vectors[first].iov_base.map { $0 + written }
                vectors[first].iov_len -= written
            }
        }
        buffer.pointee.vectorCount = 0
        buffer.pointee.segmentStart = 0
        buffer.pointee.count = 0
    }

    /// Whether ``overwrite(_:at:)`` works: the output is a regular file.
    public var canOverwrite: Bool { target.kind == .file }

    /// Replaces bytes already written, `offset` bytes from the start of the output, with `bytes`
    /// (`pwrite(2)`, after writing out what is buffered): for a header whose content is known
    /// only once what follows it is written, such as the size of an MP4 `mdat` box. Regular
    /// files only (``canOverwrite``).
    public func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(NALUError) {
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
            guard count > 0 else { throw NALUError(.io, field: path, detail: "pwrite wrote nothing") }
            done += count
        }
    }

    /// Flushes and completes the output: a file is renamed into place. Without this call a file
    /// output is removed when the sink is released.
    public func commit() throws(NALUError) {
        try drain()
        try target.commit()
    }
}

/// The bytes a ``FileSink`` holds back: raw memory with a fixed capacity, owned (and freed) by
/// the sink, the count of bytes the sink accepted, and the `iovec`s of lent runs waiting for
/// `writev(2)` (with the buffered bytes between them as segments of `storage`).
private struct OutputBuffer {
    /// `iovec`s held at most (well under `IOV_MAX`, 1024 on Linux).
    static let maxVectors = 256
    let capacity: Int
    let storage: UnsafeMutableRawPointer
    var count = 0
    var accepted: Int64 = 0
    let vectors: UnsafeMutablePointer<iovec>
    var vectorCount = 0
    /// Where the buffered bytes not yet in a vector start (bytes before it are in one).
    var segmentStart = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        vectors = UnsafeMutablePointer<iovec>.allocate(capacity: Self.maxVectors)
    }

    /// Puts the buffered bytes not yet in a vector into one; the caller has made room.
    mutating func closeSegment() {
        guard count > segmentStart else { return }
        vectors[vectorCount] = iovec(iov_base: storage + segmentStart, iov_len: count - segmentStart)
        vectorCount += 1
        segmentStart = count
    }

    /// Appends a lent run after the buffered bytes, extending the last run when adjacent; the
    /// caller has made room for three vectors (two here, one for the segment after).
    mutating func lend(_ base: UnsafeRawPointer, count length: Int) {
        closeSegment()
        let start = UnsafeMutableRawPointer(mutating: base)
        if vectorCount > 0, count == segmentStart, let end = vectors[vectorCount - 1].iov_base.map({ $0 + vectors[vectorCount - 1].iov_len }),
           end == start {
            vectors[vectorCount - 1].iov_len += length
            return
        }
        vectors[vectorCount] = iovec(iov_base: start, iov_len: length)
        vectorCount += 1
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Appends `bytes`; the caller has made room.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0, bytes.count <= capacity - count else { return }
        (storage + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }
}
