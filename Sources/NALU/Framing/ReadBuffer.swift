/// A growable byte buffer with a stable address, owned by a streaming reader.
///
/// Readers fill it from a ``ByteSource``, hand out views into it to non-escaping closures, and
/// compact it between reads, so memory stays bounded by the largest NAL unit plus one chunk.
final class ReadBuffer {
    private(set) var storage: UnsafeMutableRawBufferPointer
    /// Where byte 0 of ``bytes`` is in ``storage``: discarding moves it forward, and the bytes
    /// are moved back to the front only when the free space after them runs short, so a partial
    /// NAL unit is copied about once per buffer's worth of input, not once per read.
    private var head = 0
    /// Bytes `0..<filled` of ``bytes`` hold data.
    private(set) var filled = 0
    /// Stream offset of byte 0.
    var baseOffset: Int64 = 0

    init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, capacity), alignment: 16)
    }

    deinit { storage.deallocate() }

    var capacity: Int { storage.count }

    /// A read-only view of the valid bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[head..<(head + filled)]) }

    /// Drops the first `count` bytes.
    func discard(_ count: Int) {
        guard count > 0 else { return }
        let dropped = min(count, filled)
        head += dropped
        filled -= dropped
        baseOffset += Int64(dropped)
        if filled == 0 { head = 0 }
    }

    /// Makes room to read into. When less than a quarter of the buffer is free after the data,
    /// moves the data to the front; when that still leaves less than a quarter free, doubles the
    /// capacity (up to `limit`). Returns `false` when the buffer is full and already at the limit.
    func grow(limit: Int) -> Bool {
        guard capacity - head - filled < capacity / 4 else { return true }
        if head > 0, let base = storage.baseAddress {
            if filled > 0 { base.copyMemory(from: UnsafeRawPointer(base + head), byteCount: filled) }
            head = 0
        }
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
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[(head + filled)..<capacity])
        let count = try source.read(into: free)
        guard count >= 0, count <= free.count else {
            throw NALUError(.io, field: "read", detail: "source returned \(count) for \(free.count) bytes")
        }
        filled += count
        return count
    }
}
