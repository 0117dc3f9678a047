#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// An anonymous temporary file that is written once, front to back, and then read at offsets:
/// where a writer parks data whose final position is not known yet (the media data of an MP4
/// written with its `moov` first). The file is unlinked as soon as it is created, so it
/// disappears with the process whatever happens.
public final class SpoolFile: ByteSink, RandomAccessByteSource {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Bytes written so far (buffered ones included).
    public private(set) var size: Int64 = 0
    private var flushed: Int64 = 0

    /// Creates the file in `directory` (default: `$TMPDIR` or `/tmp`).
    public init(directory: String? = nil, bufferSize: Int = 1 << 20) throws(NALUError) {
        var directory = directory ?? ""
        if directory.isEmpty, let tmp = getenv("TMPDIR") { directory = String(cString: tmp) }
        if directory.isEmpty { directory = "/tmp" }
        var template = Array((directory + "/nalu-spool-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw NALUError(.io, field: directory, detail: FileSource.errnoText()) }
        template.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { _ = unlink(base) }
        }
        descriptor = fd
        capacity = max(4096, bufferSize)
        buffer.reserveCapacity(capacity)
    }

    deinit { close(descriptor) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        size += Int64(bytes.count)
        if buffer.count + bytes.count > capacity {
            try drain()
            if bytes.count >= capacity {
                try writeAll(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    private func drain() throws(NALUError) {
        guard !buffer.isEmpty else { return }
        try buffer.withBytes { (bytes) throws(NALUError) in try writeAll(bytes) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let count = pwrite(descriptor, base, remaining, off_t(flushed))
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: "spool file", detail: FileSource.errnoText())
            }
            remaining -= count
            base += count
            flushed += Int64(count)
        }
    }

    public func read(at offset: Int64, into target: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try drain()
        guard let base = target.baseAddress, target.count > 0, offset >= 0, offset < size else { return 0 }
        while true {
            let count = pread(descriptor, base, target.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: "spool file", byteOffset: offset, detail: FileSource.errnoText())
        }
    }
}
