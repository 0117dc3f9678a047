#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

#if canImport(Glibc)
let systemRead = Glibc.read
let systemWrite = Glibc.write
#elseif canImport(Musl)
let systemRead = Musl.read
let systemWrite = Musl.write
#elseif canImport(Darwin)
let systemRead = Darwin.read
let systemWrite = Darwin.write
#endif

/// A ``ByteSource`` over a POSIX file descriptor: a regular file, a pipe or standard input.
public final class FileSource: ByteSource {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The path opened, or `"-"` for standard input.
    public let path: String

    /// Opens `path` for reading; `"-"` reads standard input.
    public init(path: String) throws(NALUError) {
        self.path = path
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw NALUError(.io, field: path, detail: Self.errnoText()) }
            descriptor = fd
            ownsDescriptor = true
            #if os(Linux)
            // Whole-file streaming: ask for aggressive read-ahead.
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
            #endif
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The size of a regular file in bytes, or `nil` for pipes and terminals.
    public var regularFileSize: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try Self.read(descriptor, into: buffer, path: path)
    }

    /// One `read(2)` of `descriptor` into `buffer`, again after `EINTR`; 0 at the end.
    /// - Throws: ``NALUError`` `.io` naming `path`, with the system's reason.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(NALUError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: path, detail: errnoText())
        }
    }

    static func errnoText() -> String {
        guard let text = strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }
}
