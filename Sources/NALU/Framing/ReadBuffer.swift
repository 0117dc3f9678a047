/// A growable byte buffer with a stable address, owned by a streaming reader.
///
/// Readers fill it from a ``ByteSource``, hand out views into it to non-escaping closures, and
/// compact it between reads, so memory stays bounded by the largest NAL unit plus one chunk.
///
/// When the source lends windows (``WindowedByteSource``: a regular file mapped into memory),
/// the bytes are the source's window instead, with no copy: each fill asks for a window from the
/// first byte still needed (at least twice the bytes held, so a NAL unit larger than a window is
/// mapped in O(its size) in all), and the previous window ends then, as a refill would overwrite
/// the buffer; readers call their `beforeReuse` hook first in both cases.
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
    /// The source, when it lends windows: ``storage`` is then its current window, not owned.
    private var windows: (any WindowedByteSource)?
    /// The source's ``WindowedByteSource/streamPosition`` when reading began (stream offset 0).
    private var windowOrigin: Int64 = 0
    /// The limit the last ``grow(limit:)`` was given.
    private var windowLimit = Int.max

    init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, capacity), alignment: 16)
    }

    /// A buffer that reads through `source`'s windows when it lends them, else as ``init(capacity:)``.
    init(capacity: Int, source: some ByteSource) {
        if let windowed = source as? any WindowedByteSource, windowed.lendsWindows {
            windows = windowed
            windowOrigin = windowed.streamPosition
            storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        } else {
            storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, capacity), alignment: 16)
        }
    }

    deinit {
        if windows == nil { storage.deallocate() }
    }

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
        if filled == 0 && windows == nil { head = 0 }
    }

    /// Makes room to read into. When less than a quarter of the buffer is free after the data,
    /// moves the data to the front; when that still leaves less than a quarter free, doubles the
    /// capacity (up to `limit`). Returns `false` when the buffer is full and already at the limit.
    /// Reading through windows, `false` when the bytes held reach `limit`.
    func grow(limit: Int) -> Bool {
        if windows != nil {
            windowLimit = limit
            return filled < limit
        }
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

    /// Reads once from `source` into the free space; returns the number of bytes read. Reading
    /// through windows, maps the next window instead (`source` is not used).
    func fill(from source: inout some ByteSource) throws -> Int {
        if windows != nil { return try fillWindow() }
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[(head + filled)..<capacity])
        let count = try source.read(into: free)
        guard count >= 0, count <= free.count else {
            throw NALUError(.io, field: "read", detail: "source returned \(count) for \(free.count) bytes")
        }
        filled += count
        return count
    }

    private func fillWindow() throws -> Int {
        guard var source = windows else { return 0 }
        let (doubled, overflow) = filled.multipliedReportingOverflow(by: 2)
        let minimum = max(filled + 1, min(windowLimit, overflow ? Int.max : doubled))
        let window = try source.window(from: windowOrigin + baseOffset, minimumCount: minimum)
        windows = source
        guard window.count >= filled else {
            throw NALUError(.io, field: "input", byteOffset: baseOffset + Int64(window.count),
                            detail: "input file shrank while being read (\(filled - window.count) bytes read before are gone)")
        }
        storage = window
        head = 0
        let count = window.count - filled
        filled = window.count
        return count
    }

    /// Throws when the source's current window lost bytes to the file shrinking under it (the
    /// bytes read there were zeros, not the file's); nothing when reading without windows.
    func verify() throws {
        try windows?.verifyWindow()
    }
}
