#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import NALU

/// Reads a ``ByteSource`` on a thread of its own, ahead of the parser, so the kernel's copy out
/// of the page cache (a third of a conversion's time on small NAL units) runs on the other core.
///
/// The thread fills buffers of `headroom` + `chunkSize` bytes, one `read` call each (so a
/// pipe's bytes are passed on as soon as they arrive, as without read-ahead), at offset
/// `headroom`; at most `depth` filled buffers wait for the reader. The reader takes them
/// whole through ``ChunkExchanger`` (`ReadBuffer`), or `read(into:)` copies out of them.
/// Memory is bounded: the waiting buffers, the one being read, and the reader's own buffer and
/// a part-used one, `depth + 3` buffers of `headroom` + `chunkSize` bytes at most
/// (3.75 MiB by default); a buffer the thread gets back is reused, never one more allocated
/// while one is free.
///
/// After the end of the input or an error the thread stops; the error is reported once, in stream
/// order, and later calls read the source directly on the caller's thread (a regular file that
/// grew, a pipe read again, as without read-ahead).
///
/// The thread blocks every signal (the process's handlers run on its other threads) and is
/// detached: when the reader is done with it, it stops at its next buffer. A thread blocked in
/// `read` on a pipe that never delivers does not hold up the process's exit.
package final class ReadAhead: ChunkExchanger {
    /// Room left in front of the bytes of each buffer, for the reader's unfinished NAL unit.
    package var headroom: Int { state.headroom }

    private let state: State
    private var started = false
    /// Set once the thread has stopped and its end or error was passed on: read directly.
    private var direct = false
    /// A chunk `read(into:)` has only partly copied out, or one put back.
    private var pending: ExchangedChunk?

    /// Reads `source` ahead once ``start()`` is called (or at the first read).
    /// - Parameters:
    ///   - source: read only by the thread while it runs, and on the caller's thread after it
    ///     stopped; the caller must not read it otherwise.
    ///   - chunkSize: bytes asked of the source per read.
    ///   - headroom: room left in front of the bytes of each buffer.
    ///   - depth: filled buffers that may wait for the reader.
    ///   - findsStartCodes: whether the thread also finds the Annex-B start codes of each buffer
    ///     (``StartCodeCandidates``), while its bytes are in that core's cache.
    ///   - lengthSize: for a length-prefixed stream, its length size: the thread also follows
    ///     the lengths through each buffer (``LengthChain``), so the reader can load its next NAL
    ///     units ahead.
    ///   - searchedEighths: with `findsStartCodes`, how much of each buffer the thread searches
    ///     (0–8 eighths, from its first byte) for good; `nil` lets it move with the load
    ///     (``State/balanceWork(threadWaits:)``).
    package init(_ source: any ByteSource, chunkSize: Int = 512 << 10, headroom: Int = 256 << 10, depth: Int = 2,
                 findsStartCodes: Bool = false, lengthSize: Int? = nil, searchedEighths: Int? = nil) {
        state = State(source: source, headroom: max(0, headroom), chunkSize: max(1, chunkSize), depth: max(1, depth),
                      findsStartCodes: findsStartCodes, searchedEighths: searchedEighths.map { min(8, max(0, $0)) },
                      chain: lengthSize.map { LengthChain(lengthSize: $0) })
    }

    deinit {
        state.cancel()
        if let pending { pending.storage.deallocate() }
    }

    /// Whether the thread was started (a read happened).
    package var hasStarted: Bool { started }

    /// Starts the thread (once); until then nothing is read.
    package func start() {
        guard !started else { return }
        started = true
        state.start()
    }

    package func nextChunk() throws(NALUError) -> ExchangedChunk? {
        if let chunk = pending {
            pending = nil
            return chunk
        }
        guard !direct else { return nil }
        start()
        switch try state.take() {
        case .chunk(let chunk):
            return chunk
        case .stopped:
            direct = true
            return nil
        }
    }

    package func giveBack(_ storage: UnsafeMutableRawBufferPointer) {
        // A buffer of another size (the reader's first, or one it grew) is freed, not kept.
        if direct || storage.count != state.bufferSize {
            storage.deallocate()
        } else {
            state.recycle(storage)
        }
    }

    package func putBack(_ chunk: ExchangedChunk) {
        // Only the chunk `nextChunk()` just returned comes back, so nothing is pending.
        assert(pending == nil, "putBack with a chunk pending")
        if let old = pending { giveBack(old.storage) }
        pending = chunk
    }

    /// Copies the next bytes into `buffer`, from the buffers read ahead; after the thread
    /// stopped, reads the source directly.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard buffer.count > 0, let to = buffer.baseAddress else { return 0 }
        guard var chunk = try nextChunk() else { return try state.readDirectly(into: buffer) }
        guard chunk.count > 0 else {
            giveBack(chunk.storage)
            return 0
        }
        let count = min(buffer.count, chunk.count)
        if let from = chunk.storage.baseAddress {
            to.copyMemory(from: UnsafeRawPointer(from + chunk.start), byteCount: count)
        }
        if count < chunk.count {
            chunk.start += count
            chunk.count -= count
            pending = chunk
        } else {
            giveBack(chunk.storage)
        }
        return count
    }
}

extension ReadAhead: ByteSource, ChunkExchangingSource {
    package var chunkExchanger: (any ChunkExchanger)? { self }

    /// Whether a second CPU is likely free for the read-ahead thread (``SecondCPU``): it only
    /// pays when the thread gets a core of its own; sharing one, the two threads cost ~15–20%
    /// more time than one. The environment variable `NALU_READ_AHEAD` overrides the guess: `0`
    /// never, `1` always.
    package static var hasSecondCPU: Bool { SecondCPU.isLikelyFree(unless: "NALU_READ_AHEAD") }
}

extension ReadAhead {
    enum Taken {
        case chunk(ExchangedChunk)
        case stopped
    }

    /// What the thread and the reader share, under one mutex. The thread holds a reference to it
    /// while it runs, so the reader may go away first.
    final class State: @unchecked Sendable {
        let headroom: Int
        let bufferSize: Int
        let depth: Int
        /// Read by the thread while it runs; by the reader only after it stopped.
        private var source: any ByteSource
        /// The mutex, and two conditions: ``filledCondition`` (a buffer is filled or the thread
        /// stops) and ``freedCondition`` (a buffer comes back or the reader is gone).
        private let monitor = ThreadMonitor(conditions: 2)
        private static let filledCondition = 0
        private static let freedCondition = 1
        // Guarded by `monitor`:
        private var free: [UnsafeMutableRawBufferPointer] = []
        /// Buffers the reader has not taken yet, oldest first; at most `depth`.
        private var filled: [ExchangedChunk] = []
        private var failure: NALUError?
        private var ended = false
        private var cancelled = false
        /// Eighths of each buffer the thread searches for start codes, from its first byte
        /// (`findsStartCodes` only); the reader searches the rest (``balanceWork(threadWaits:)``).
        private var searchedEighths: Int
        /// Whether `searchedEighths` follows the load.
        private let balances: Bool
        /// The length fields followed through the buffers (length-prefixed input); the thread's.
        private var chain: LengthChain?

        let findsStartCodes: Bool

        init(source: any ByteSource, headroom: Int, chunkSize: Int, depth: Int, findsStartCodes: Bool, searchedEighths: Int?,
             chain: LengthChain?) {
            self.source = source
            self.chain = chain
            self.findsStartCodes = findsStartCodes
            self.searchedEighths = searchedEighths ?? 8
            balances = searchedEighths == nil
            self.headroom = headroom
            self.bufferSize = headroom + chunkSize
            self.depth = depth
            free.reserveCapacity(depth + 3)
            filled.reserveCapacity(depth + 1)
        }

        deinit {
            freeHeldBuffers()
        }

        func start() {
            guard DetachedThread.start({ [self] in run() }) else {
                // No thread: the reader reads directly, as without read-ahead.
                lock()
                ended = true
                unlock()
                return
            }
        }

        /// The thread's loop: fill a free buffer with one read, hand it over, until the end.
        func run() {
            while true {
                lock()
                if filled.count >= depth { balanceWork(threadWaits: true) }
                while !cancelled && filled.count >= depth {
                    monitor.wait(Self.freedCondition)
                }
                if cancelled {
                    unlock()
                    return
                }
                let searched = findsStartCodes ? searchedEighths : 0
                let buffer: UnsafeMutableRawBufferPointer
                if let recycled = free.popLast() {
                    buffer = recycled
                    unlock()
                } else {
                    unlock()
                    buffer = .allocate(byteCount: bufferSize, alignment: 16)
                }
                var count = 0
                var error: NALUError?
                do throws(NALUError) {
                    count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[headroom...]))
                    if count < 0 || count > buffer.count - headroom {
                        throw NALUError(.io, field: "read", detail: "source returned \(count) for \(buffer.count - headroom) bytes")
                    }
                } catch let caught {
                    error = caught
                }
                var candidates = StartCodeCandidates()
                if searched > 0, error == nil, count > 0 {
                    let end = headroom + (searched == 8 ? count : count / 8 * searched)
                    candidates = StartCodeCandidates(of: UnsafeRawBufferPointer(rebasing: buffer[headroom..<end]))
                }
                var unitHints: [UInt32] = []
                if chain != nil, error == nil, count > 0 {
                    unitHints = chain?.positions(in: UnsafeRawBufferPointer(rebasing: buffer[headroom..<(headroom + count)])) ?? []
                }
                lock()
                if cancelled {
                    unlock()
                    buffer.deallocate()
                    return
                }
                if let error {
                    failure = error
                    free.append(buffer)
                    ended = true
                } else {
                    var chunk = ExchangedChunk(storage: buffer, start: headroom, count: count, candidates: candidates)
                    chunk.unitHints = unitHints
                    filled.append(chunk)
                    if count == 0 { ended = true }
                }
                monitor.signal(Self.filledCondition)
                let stop = ended
                unlock()
                if stop { return }
            }
        }

        /// The reader's side: the next filled buffer, or the stop (rethrowing the error first).
        func take() throws(NALUError) -> Taken {
            lock()
            defer { unlock() }
            if filled.isEmpty && failure == nil && !ended { balanceWork(threadWaits: false) }
            while filled.isEmpty && failure == nil && !ended {
                monitor.wait(Self.filledCondition)
            }
            if !filled.isEmpty {
                let chunk = filled.removeFirst()
                // The thread may read again (it waits only while `depth` buffers are filled).
                monitor.signal(Self.freedCondition)
                return .chunk(chunk)
            }
            if let error = failure {
                failure = nil
                throw error
            }
            return .stopped
        }

        /// Moves the start-code search toward whichever thread has time for it, an eighth of a
        /// buffer at a time: when the thread has to wait for the reader (`depth` buffers are
        /// waiting), it searches more of each buffer; when the reader has to wait for a buffer,
        /// the thread searches less and the reader the rest (everything past the list's
        /// ``StartCodeCandidates/covered``). Conversions keep the whole search on the thread
        /// (their reader rarely waits); `info` on large NAL units, little work per byte for the
        /// reader, moves it to the reader; on small NAL units it settles where both are equally
        /// busy. The list or its absence changes nothing in the result
        /// (`ReadBuffer.findStartCodeOrZeros`).
        private func balanceWork(threadWaits: Bool) {
            guard balances else { return }
            searchedEighths = threadWaits ? min(8, searchedEighths + 1) : max(0, searchedEighths - 1)
        }

        /// A buffer of `bufferSize` bytes the reader is done with.
        func recycle(_ buffer: UnsafeMutableRawBufferPointer) {
            lock()
            if ended || cancelled { buffer.deallocate() } else { free.append(buffer) }
            unlock()
        }

        /// Reads on the caller's thread once the thread has stopped.
        func readDirectly(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
            try source.read(into: buffer)
        }

        /// The reader is gone: the buffers waiting or free are freed, and the thread (if it was
        /// started) stops at its next buffer and frees the one it holds.
        func cancel() {
            lock()
            cancelled = true
            freeHeldBuffers()
            monitor.signal(Self.freedCondition)
            unlock()
        }

        /// Frees the filled and free buffers (under `monitor`, or when no thread can run).
        private func freeHeldBuffers() {
            for chunk in filled { chunk.storage.deallocate() }
            filled.removeAll()
            for buffer in free { buffer.deallocate() }
            free.removeAll()
        }

        private func lock() { monitor.lock() }
        private func unlock() { monitor.unlock() }
    }
}

/// Reads a descriptor of its own (a `dup` of the input's), closed when the last user is done: a
/// read-ahead thread still in `read` never reads a descriptor number the process reused.
package final class DuplicatedDescriptorSource: ByteSource {
    private let descriptor: Int32
    private let path: String

    /// Duplicates `descriptor`; `nil` when the system refuses.
    package init?(duplicating descriptor: Int32, path: String) {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        self.descriptor = copy
        self.path = path
    }

    deinit { close(descriptor) }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try FileSource.read(descriptor, into: buffer, path: path)
    }
}
