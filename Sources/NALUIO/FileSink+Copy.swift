#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU

extension FileSink {
    /// Appends `count` bytes of the regular file open as `source`, from `offset`, after what was
    /// written before: on Linux copied by the kernel (`sendfile(2)` between two files, no copy
    /// through this process), elsewhere read with `pread(2)` and written.
    /// - Throws: ``NALUError`` `.io` from either file, `.truncated` when `source` ends first.
    package func append(copying source: Int32, offset: Int64, count: Int) throws {
        guard count > 0 else { return }
        try drain()
        var position = off_t(offset)
        var remaining = count
        #if canImport(Glibc)
        while remaining > 0 {
            let copied = sendfile(outputDescriptor, source, &position, remaining)
            if copied < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL || errno == ENOSYS { break }  // Not between these files: copy below.
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            guard copied > 0 else {
                throw NALUError(.truncated, field: path, byteOffset: Int64(position), detail: "the source ended \(remaining) bytes early")
            }
            remaining -= copied
        }
        #endif
        // What the kernel copied; the writes below count their own.
        addAccepted(count - remaining)
        if remaining > 0 {
            var chunk = [UInt8](repeating: 0, count: min(remaining, 1 << 20))
            while remaining > 0 {
                let want = min(remaining, chunk.count)
                let got = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, want, position) }
                if got < 0 {
                    if errno == EINTR { continue }
                    throw NALUError(.io, field: path, detail: FileSource.errnoText())
                }
                guard got > 0 else {
                    throw NALUError(.truncated, field: path, byteOffset: Int64(position), detail: "the source ended \(remaining) bytes early")
                }
                try chunk.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
                try drain()
                position += off_t(got)
                remaining -= got
            }
        }
    }
}
