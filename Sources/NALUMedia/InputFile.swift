#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
import NALUIO

/// An input opened once: a regular file, a pipe, a FIFO or standard input (`"-"`).
///
/// It reads as a stream (``ByteSource``) and, when it is a regular file, also at offsets
/// (``RandomAccessByteSource``, POSIX `pread`, which does not move the stream position), so the
/// container can be told from the first bytes read and an MP4 file read in place without opening
/// the path a second time.
public final class InputFile: ByteSource, RandomAccessByteSource {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The path opened, or `"-"` for standard input.
    public let path: String
    /// Whether the input is a regular file (seekable, with a size).
    public let isRegularFile: Bool
    /// The size of a regular file; 0 for pipes and terminals.
    public let size: Int64
    /// Set by ``readAheadFromNextRead(findingStartCodes:)``: stream reads come from it.
    private var readAhead: ReadAhead?

    /// Opens `path` for reading; `"-"` is standard input.
    /// - Throws: ``NALUError`` `.io` naming the path, with the system's reason.
    public init(path: String) throws(NALUError) {
        self.path = path
        let fd: Int32
        if path == "-" {
            fd = 0
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw NALUError(.io, field: path, detail: Self.errnoText()) }
            ownsDescriptor = true
        }
        descriptor = fd
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            isRegularFile = true
            size = Int64(info.st_size)
        } else {
            isRegularFile = false
            size = 0
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// From the next stream read on, reads the rest of the stream on a thread of its own, ahead
    /// of the reader (``ReadAhead``), so reading and parsing overlap on two cores; with
    /// `findingStartCodes`, that thread also finds the Annex-B start codes of what it read, and
    /// with `lengthSize` it follows the length fields of a length-prefixed stream.
    /// Positioned reads are not affected. Does nothing when the process may use only one CPU
    /// (``ReadAhead/hasSecondCPU``) or the descriptor cannot be duplicated (reads stay on the
    /// caller's thread).
    public func readAheadFromNextRead(findingStartCodes: Bool, lengthSize: Int? = nil) {
        guard readAhead == nil, ReadAhead.hasSecondCPU, let source = DuplicatedDescriptorSource(duplicating: descriptor, path: path) else { return }
        readAhead = ReadAhead(source, findsStartCodes: findingStartCodes, lengthSize: lengthSize)
    }

    /// Gives up reading ahead (``readAheadFromNextRead(findingStartCodes:lengthSize:)``) when its
    /// thread has not started: stream reads then stay on the caller's thread. Returns whether no
    /// read-ahead thread runs.
    package func dropIdleReadAhead() -> Bool {
        guard let readAhead else { return true }
        guard !readAhead.hasStarted else { return false }
        self.readAhead = nil
        return true
    }

    /// - Throws: ``NALU/NALUError`` (typed): `.io` naming the path, with the system's reason.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        if let readAhead {
            // The read-ahead thread reads a duplicate of this descriptor: its errors are NALUErrors.
            do { return try readAhead.read(into: buffer) } catch { throw NALUError.converting(error, field: path) }
        }
        return try FileSource.read(descriptor, into: buffer, path: path)
    }

    /// Positioned read; only for regular files (0 bytes otherwise).
    /// - Throws: ``NALU/NALUError`` (typed): `.io` naming the path and the offset, with the system's reason.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard isRegularFile, let base = buffer.baseAddress, buffer.count > 0, offset >= 0, offset < size else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NALUError(.io, field: path, byteOffset: offset, detail: Self.errnoText())
        }
    }

    /// Reads until `buffer` is full or the input ends; returns the bytes read.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count <= 0 { break }
            filled += count
        }
        return filled
    }

    package static func errnoText() -> String {
        guard let text = strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

extension InputFile: ChunkExchangingSource {
    package var chunkExchanger: (any ChunkExchanger)? { readAhead }
}

/// Any ``RandomAccessByteSource`` behind one type: the input file itself, or the spool an
/// MP4 read from a pipe is copied to.
public final class AnyRandomAccessSource: RandomAccessByteSource {
    private let base: any RandomAccessByteSource

    public init(_ base: any RandomAccessByteSource) { self.base = base }

    public var size: Int64 { base.size }

    /// - Throws: ``NALU/NALUError`` (typed): the wrapped source's error.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try base.read(at: offset, into: buffer)
    }
}
