/// A growable byte buffer with a stable address, owned by a streaming reader.
///
/// Readers fill it from a ``ByteSource``, hand out views into it to non-escaping closures, and
/// compact it between reads, so memory stays bounded by the largest NAL unit plus one chunk.
final class ReadBuffer {
    private(set) var storage: UnsafeMutableRawBufferPointer
    /// Bytes `0..<filled` hold data.
    var filled = 0
    /// Stream offset of byte 0.
    var baseOffset: Int64 = 0

    init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, capacity), alignment: 16)
    }

    deinit { storage.deallocate() }

    var capacity: Int { storage.count }

    /// A read-only view of the valid bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<filled]) }

    /// Drops the first `count` bytes, moving the rest to the front.
    func discard(_ count: Int) {
        guard count > 0 else { return }
        let kept = filled - count
        if kept > 0, let base = storage.baseAddress {
            base.copyMemory(from: UnsafeRawPointer(base + count), byteCount: kept)
        }
        filled = kept
        baseOffset += Int64(count)
    }

    /// Makes room to read into: doubles the capacity (up to `limit`) when less than a quarter is
    /// free. Returns `false` when the buffer is full and already at the limit.
    func grow(limit: Int) -> Bool {
        guard capacity - filled < capacity / 4 else { return true }
        guard capacity < limit else { return filled < capacity }
        let newCapacity = min(limit, capacity * 2)
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let to = bigger.baseAddress, let from = storage.baseAddress, filled > 0 {
            to.copyMemory(from: UnsafeRawPointer(from), byteCount: filled)
        }
        storage.deallocate()
        storage = bigger
        return true
    }

    /// Reads once from `source` into the free space; returns the number of bytes read.
    func fill(from source: inout some ByteSource) throws -> Int {
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[filled..<capacity])
        let count = try source.read(into: free)
        guard count >= 0, count <= free.count else {
            throw NALUError(.io, field: "read", detail: "source returned \(count) for \(free.count) bytes")
        }
        filled += count
        return count
    }
}
