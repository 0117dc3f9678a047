public import NALU

/// A ``RandomAccessByteSource`` over bytes in memory (tests, small files, data already loaded).
public struct MemoryRandomAccessSource: RandomAccessByteSource, Sendable {
    /// The bytes.
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
            to.copyMemory(from: from + start, byteCount: count)
        }
        return count
    }
}
