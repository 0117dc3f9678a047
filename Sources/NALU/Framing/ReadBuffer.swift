/// A growable byte buffer with a stable address, owned by a streaming reader.
///
/// Readers fill it from a ``ByteSource``, hand out views into it to non-escaping closures, and
/// compact it between reads, so memory stays bounded by the largest NAL unit plus one chunk.
///
/// When the source reads ahead on a thread of its own (``ChunkExchangingSource``), a fill takes
/// the next buffer the source filled instead of reading: the unfinished NAL unit of the current
/// buffer is copied in front of the new bytes (the room the source leaves for it) and the
/// current buffer goes back to the source, so the new bytes are never copied. An unfinished NAL
/// unit larger than that room is extended with a copy of the new bytes, as a read would.
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
    /// The source's exchanger once it has one (see ``fill(from:)``).
    private var exchanger: (any ChunkExchanger)?
    /// Set when the source is no ``ChunkExchangingSource`` or its exchanger has stopped.
    private var readsOnly = false
    /// Start codes the source found in the bytes of the last exchanged chunk.
    private var candidates = StartCodeCandidates()
    /// Stream offset of the candidates' offset 0; the list applies from `candidatesFrom` to
    /// `candidatesTo` (stream offsets), and not at all when they are equal.
    private var candidatesOrigin: Int64 = 0
    private var candidatesFrom: Int64 = 0
    private var candidatesTo: Int64 = 0
    /// Index of the first position not yet passed by a search.
    private var candidateCursor = 0
    /// Candidates before this index have had their first bytes loaded (``touchAhead(_:from:origin:bytes:)``).
    private var touchedUpTo = 0
    /// Where the touched bytes are folded, so the loads are not optimised away.
    private var touchSink: UInt8 = 0
    /// Where the length fields of the last exchanged chunk start (``ExchangedChunk/unitHints``),
    /// at offsets from stream offset `hintsOrigin`.
    private var unitHints: [UInt32] = []
    private var hintsOrigin: Int64 = 0
    /// Index of the first hint past the last NAL unit read, and of the first not yet loaded.
    private var hintCursor = 0
    private var hintsTouchedUpTo = 0

    /// Where buffers that held delivered bytes go (``BufferRetirement``); `nil`: they are reused.
    private let retirement: (any BufferRetirement)?

    init(capacity: Int, retirement: (any BufferRetirement)? = nil) {
        self.retirement = retirement
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, capacity), alignment: 16)
    }

    deinit {
        if let retirement { retirement.retire(storage) } else { storage.deallocate() }
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
        // (With a retirement the bytes before `head` may still be read: never written again.)
        if filled == 0 && retirement == nil { head = 0 }
    }

    /// Makes room to read into. When less than a quarter of the buffer is free after the data,
    /// moves the data to the front; when that still leaves less than a quarter free, doubles the
    /// capacity (up to `limit`). Returns `false` when the buffer is full and already at the limit.
    /// With an exchanger, the next fill takes a new buffer with room in front for data that
    /// fits there: nothing is moved.
    func grow(limit: Int) -> Bool {
        if let exchanger, filled <= exchanger.headroom { return true }
        return makeRoom(limit: limit)
    }

    private func makeRoom(limit: Int) -> Bool {
        guard capacity - head - filled < max(1, capacity / 4) else { return true }
        if let retirement { return moveToNewBuffer(limit: limit, retirement) }
        if head > 0, let base = storage.baseAddress {
            if filled > 0 { base.copyMemory(from: UnsafeRawPointer(base + head), byteCount: filled) }
            head = 0
        }
        guard capacity - filled < max(1, capacity / 4) else { return true }
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

    /// ``makeRoom(limit:)`` with a ``BufferRetirement``: the bytes go to the front of another
    /// buffer (of twice the capacity, up to `limit`, when they take more than three quarters of
    /// one), and this one is retired, never written again.
    private func moveToNewBuffer(limit: Int, _ retirement: any BufferRetirement) -> Bool {
        var newCapacity = capacity
        if capacity - filled < max(1, capacity / 4) && capacity < limit {
            newCapacity = min(limit, capacity * 2)
        }
        // Nothing to gain from a buffer of the same size when the bytes are at its front already.
        guard head > 0 || newCapacity > capacity else { return filled < capacity }
        let fresh = retirement.reusableBuffer(byteCount: newCapacity)
            ?? UnsafeMutableRawBufferPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let to = fresh.baseAddress, let from = storage.baseAddress, filled > 0 {
            to.copyMemory(from: UnsafeRawPointer(from + head), byteCount: filled)
        }
        retirement.retire(storage)
        storage = fresh
        head = 0
        return true
    }

    /// Reads once from `source` into the free space, or takes the next buffer it read ahead;
    /// returns the number of bytes added after the data.
    func fill(from source: inout some ByteSource) throws -> Int {
        candidatesTo = candidatesFrom
        if !readsOnly, let count = try exchange(with: source) { return count }
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[(head + filled)..<capacity])
        let count = try source.read(into: free)
        guard count >= 0, count <= free.count else {
            throw NALUError(.io, field: "read", detail: "source returned \(count) for \(free.count) bytes")
        }
        filled += count
        return count
    }

    /// Takes the next chunk from the source's exchanger; `nil` when bytes must be read instead.
    private func exchange(with source: some ByteSource) throws -> Int? {
        if exchanger == nil {
            guard let exchanging = source as? any ChunkExchangingSource else {
                readsOnly = true
                return nil
            }
            guard let found = exchanging.chunkExchanger else { return nil }
            exchanger = found
        }
        guard let exchanger else { return nil }
        guard var chunk = try exchanger.nextChunk() else {
            // Read as usual from now on; `grow` may have left no room for it.
            self.exchanger = nil
            readsOnly = true
            _ = makeRoom(limit: Int.max)
            return nil
        }
        guard chunk.count > 0 else {
            exchanger.giveBack(chunk.storage)
            return 0
        }
        if filled <= chunk.start, let to = chunk.storage.baseAddress, let from = storage.baseAddress {
            // The unfinished NAL unit goes in front of the new bytes; this buffer goes back.
            if filled > 0 {
                (to + chunk.start - filled).copyMemory(from: UnsafeRawPointer(from + head), byteCount: filled)
            }
            if let retirement { retirement.retire(storage) } else { exchanger.giveBack(storage) }
            storage = chunk.storage
            head = chunk.start - filled
            let chunkOffset = baseOffset + Int64(filled)
            filled += chunk.count
            if chunk.candidates.covered > chunk.start - chunk.candidatesOrigin {
                candidatesOrigin = chunkOffset - Int64(chunk.start - chunk.candidatesOrigin)
                candidatesFrom = chunkOffset
                candidatesTo = candidatesOrigin + Int64(chunk.candidates.covered)
                candidates = chunk.candidates
                candidateCursor = 0
                touchedUpTo = 0
            }
            unitHints = chunk.unitHints
            hintsOrigin = chunkOffset - Int64(chunk.start - chunk.candidatesOrigin)
            hintCursor = 0
            hintsTouchedUpTo = 0
            return chunk.count
        }
        // A NAL unit larger than the room in front: copy what fits after it, keep the rest.
        let free = capacity - head - filled
        let count = min(free, chunk.count)
        guard count > 0 else {
            // `grow` leaves room unless it fails; a 0 here would read as the end of the input.
            exchanger.putBack(chunk)
            throw NALUError(.tooLarge, field: "read buffer", byteOffset: baseOffset, detail: "no room for the next bytes (\(filled) bytes held)")
        }
        if let to = storage.baseAddress, let from = chunk.storage.baseAddress {
            (to + head + filled).copyMemory(from: UnsafeRawPointer(from + chunk.start), byteCount: count)
        }
        filled += count
        if count < chunk.count {
            chunk.start += count
            chunk.count -= count
            exchanger.putBack(chunk)
        } else {
            exchanger.giveBack(chunk.storage)
        }
        return count
    }

    /// ``AnnexB/findStartCodeOrZeros(in:from:)`` in `bytes` (this buffer's ``bytes``), answered
    /// from the start codes the source found while reading where it found them
    /// (``StartCodeCandidates``): the same index, without reading every byte again.
    @inline(__always)
    func findStartCodeOrZeros(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard candidatesTo > candidatesFrom else { return AnnexB.findStartCodeOrZeros(in: bytes, from: start) }
        return findWithCandidates(in: bytes, from: start)
    }

    /// Candidates whose bytes are loaded together, ahead of the search.
    private static let touchBatch = 16
    /// How many candidates ahead of the search the loaded ones start.
    private static let touchDistance = 8

    /// Loads the first byte of the next ``touchBatch`` NAL units past the search at once.
    ///
    /// The source's thread wrote these bytes, so each first look at a NAL unit here misses the
    /// cache (about a tenth of a microsecond each, an eighth of this thread's time on 800-byte NAL
    /// units); independent loads issued together wait for memory once for the whole batch.
    private func touchAhead(_ positions: [UInt32], from cursor: Int, origin: Int, bytes: UnsafeRawBufferPointer) {
        let first = max(touchedUpTo, cursor)
        let last = min(positions.count, cursor &+ Self.touchDistance &+ Self.touchBatch)
        var folded = touchSink
        var index = first
        while index < last {
            let offset = origin &+ Int(positions[index]) &+ 3
            if offset >= 0, offset < bytes.count { folded |= bytes[offset] }
            index &+= 1
        }
        touchSink = folded
        touchedUpTo = last
    }

    /// Loads ahead the first bytes of the length-prefixed NAL units after the one at stream
    /// offset `offset` (its first byte after the length), as ``touchAhead(_:from:origin:bytes:)``
    /// does for start codes: the source's thread followed the lengths (``LengthChain``) where
    /// it read them, so the lengths this reader reads next are in this core's cache.
    func touchUnitsAhead(after offset: Int64) {
        guard !unitHints.isEmpty else { return }
        var cursor = hintCursor
        while cursor < unitHints.count, hintsOrigin &+ Int64(unitHints[cursor]) < offset { cursor &+= 1 }
        hintCursor = cursor
        guard cursor &+ Self.touchDistance >= hintsTouchedUpTo else { return }
        let bytes = self.bytes
        let origin = Int(hintsOrigin - baseOffset)
        let first = max(hintsTouchedUpTo, cursor)
        let last = min(unitHints.count, cursor &+ Self.touchDistance &+ Self.touchBatch)
        var folded = touchSink
        var index = first
        while index < last {
            let position = origin &+ Int(unitHints[index])
            if position >= 0, position < bytes.count { folded |= bytes[position] }
            index &+= 1
        }
        touchSink = folded
        hintsTouchedUpTo = last
    }

    private func findWithCandidates(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let from = Int(candidatesFrom - baseOffset)
        let to = min(Int(candidatesTo - baseOffset), bytes.count)
        let origin = Int(candidatesOrigin - baseOffset)
        var start = start
        if start < from {
            // Before the chunk, and the start codes that straddle its first byte.
            let before = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, from + 2)])
            if let found = AnnexB.findStartCodeOrZeros(in: before, from: start) { return found }
            start = from
        }
        guard start < to else { return AnnexB.findStartCodeOrZeros(in: bytes, from: start) }
        // Inside a zero run whose first position is listed, the run itself answers.
        if start + 2 < bytes.count, bytes[start] == 0, bytes[start + 1] == 0, bytes[start + 2] <= 1 { return start }
        let positions = candidates.positions
        var cursor = candidateCursor
        if cursor > 0, cursor <= positions.count, origin + Int(positions[cursor - 1]) >= start { cursor = 0 }
        while cursor < positions.count, origin + Int(positions[cursor]) < start { cursor += 1 }
        candidateCursor = cursor
        if cursor < positions.count {
            let found = origin + Int(positions[cursor])
            if found < to {
                if cursor &+ Self.touchDistance >= touchedUpTo { touchAhead(positions, from: cursor, origin: origin, bytes: bytes) }
                return found
            }
        }
        return AnnexB.findStartCodeOrZeros(in: bytes, from: to)
    }
}
