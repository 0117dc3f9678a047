#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// A regular file read at offsets with POSIX `pread(2)`: the ``RandomAccessByteSource`` behind
/// MP4/MOV reading. Reads do not share a file position, so they need no coordination.
public final class RandomAccessFile: RandomAccessByteSource {
    private let descriptor: Int32
    /// The path opened.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64

    /// Opens `path` for reading. Pipes and terminals are refused: they cannot be read at offsets.
    public init(path: String) throws(NALUError) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw NALUError(.io, field: path, detail: FileSource.errnoText()) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let text = FileSource.errnoText()
            close(fd)
            throw NALUError(.io, field: path, detail: text)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw NALUError(.unsupported, field: path, detail: "not a regular file; MP4 input must be seekable")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, offset >= 0, offset < size else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: path, byteOffset: offset, detail: FileSource.errnoText())
        }
    }
}
