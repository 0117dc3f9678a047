/// A source of bytes read in chunks: a file, a pipe, a socket or memory.
///
/// The core's streaming readers (``AnnexBReader``, ``LengthPrefixedReader``) pull from a
/// `ByteSource` into a buffer they own, so they run in constant memory whatever the input size.
public protocol ByteSource {
    /// Reads up to `buffer.count` bytes into `buffer` and returns how many were read; 0 means the
    /// end of the input. Implementations may return fewer bytes than asked before the end.
    /// - Throws: ``NALUError``: a source reports its own failure (a socket closed, a file that
    ///   cannot be read) as ``NALUError/Code/io`` naming what it reads, its own text as the
    ///   detail (``NALUError/converting(_:field:)`` makes one from any error).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int
}

/// A ``ByteSource`` over bytes in memory, optionally handing them out in chunks of a fixed size
/// (useful to check that results do not depend on where reads split the input).
public struct MemorySource: ByteSource, Sendable {
    private let bytes: [UInt8]
    private var position = 0
    private let chunkSizes: [Int]
    private var chunkIndex = 0

    /// Reads `bytes`, at most `chunkSize` bytes per call (`nil`: as much as asked).
    public init(_ bytes: [UInt8], chunkSize: Int? = nil) {
        self.bytes = bytes
        self.chunkSizes = chunkSize.map { [max(1, $0)] } ?? []
    }

    /// Reads `bytes` in chunks whose sizes cycle through `chunkSizes`.
    public init(_ bytes: [UInt8], chunkSizes: [Int]) {
        self.bytes = bytes
        self.chunkSizes = chunkSizes.map { max(1, $0) }
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        var count = min(buffer.count, bytes.count - position)
        if !chunkSizes.isEmpty {
            count = min(count, chunkSizes[chunkIndex % chunkSizes.count])
            chunkIndex += 1
        }
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
            to.copyMemory(from: from + position, byteCount: count)
        }
        position += count
        return count
    }
}

/// A destination for bytes: a file, a pipe or memory.
///
/// Every requirement throws ``NALUError`` (typed): a sink reports an operating system failure
/// as ``NALUError/Code/io`` naming the output, with `errno`'s text as the detail.
public protocol ByteSink {
    /// Writes all of `bytes`.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError)
    /// Writes all of `bytes`, which the caller keeps valid and unchanged until the sink's
    /// ``returnLent()``: a sink may keep a pointer to them instead of copying (a file sink gathers
    /// such runs into one `writev(2)`). The default copies, as ``write(_:)`` does.
    mutating func write(lent bytes: UnsafeRawBufferPointer) throws(NALUError)
    /// Writes out (or copies) every byte lent with ``write(lent:)``: after this call the sink
    /// holds no pointer into the lender's memory. The default does nothing.
    mutating func returnLent() throws(NALUError)
}

extension ByteSink {
    /// Copies, as ``write(_:)``.
    public mutating func write(lent bytes: UnsafeRawBufferPointer) throws(NALUError) { try write(bytes) }

    /// Nothing lent is held.
    public mutating func returnLent() throws(NALUError) {}

    /// Writes all of `bytes`.
    public mutating func write(_ bytes: [UInt8]) throws(NALUError) {
        try bytes.withBytes { (buffer) throws(NALUError) in try write(buffer) }
    }
}

/// A ``ByteSink`` that collects bytes in memory.
public struct MemorySink: ByteSink, Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Reserves room for `count` bytes.
    public mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

    /// Empties the sink, keeping its storage for reuse.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }
}
