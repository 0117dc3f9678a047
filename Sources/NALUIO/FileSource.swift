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
///
/// On Linux the streaming readers read a regular file through memory-mapped windows
/// (``MappedFileWindows``) rather than `read(2)`: the same bytes, without the kernel's copy.
public final class FileSource: ByteSource {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The path opened, or `"-"` for standard input.
    public let path: String
    /// Bytes ``read(into:)`` has returned.
    package private(set) var streamPosition: Int64 = 0
    #if os(Linux)
    private let windows: MappedFileWindows?
    #endif

    /// Opens `path` for reading; `"-"` reads standard input.
    public convenience init(path: String) throws(NALUError) {
        try self.init(path: path, mappedWindowSize: defaultMappedWindowSize)
    }

    /// Opens `path` for reading; a regular file is read through windows of `mappedWindowSize`
    /// bytes (0: with `read(2)`).
    package init(path: String, mappedWindowSize: Int) throws(NALUError) {
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
        #if os(Linux)
        windows = mappedWindowSize > 0 && Self.isRegularFile(descriptor)
            ? MappedFileWindows(descriptor: descriptor, path: path, windowSize: mappedWindowSize) : nil
        #endif
    }

    /// Whether `descriptor` is a regular file.
    package static func isRegularFile(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
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

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 {
                streamPosition += Int64(count)
                return count
            }
            if errno == EINTR { continue }
            throw NALUError(.io, field: path, detail: Self.errnoText())
        }
    }

    static func errnoText() -> String {
        guard let text = strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

extension FileSource: WindowedByteSource {
    package var lendsWindows: Bool {
        #if os(Linux)
        windows != nil
        #else
        false
        #endif
    }

    package func window(from offset: Int64, minimumCount: Int) throws -> UnsafeMutableRawBufferPointer {
        #if os(Linux)
        if let windows { return try windows.window(from: offset, minimumCount: minimumCount) }
        #endif
        throw NALUError(.unsupported, field: path, detail: "not read through windows")
    }

    package func verifyWindow() throws {
        #if os(Linux)
        try windows?.verify()
        #endif
    }
}
