/// Bytes a source read ahead, handed to a ``ReadBuffer`` with the memory that holds them.
///
/// `storage[start..<(start + count)]` holds the bytes; `storage[0..<start]` is free room in
/// front of them, where the reader copies the unfinished NAL unit of its previous buffer so that
/// it and the new bytes are contiguous without moving the new bytes.
package struct ExchangedChunk {
    package var storage: UnsafeMutableRawBufferPointer
    package var start: Int
    package var count: Int
    /// Start codes found in the bytes as read, at offsets from ``candidatesOrigin`` (the first
    /// byte read into `storage`); empty when not searched.
    package var candidates: StartCodeCandidates
    /// The index in `storage` the candidates' offsets count from.
    package var candidatesOrigin: Int
    /// For a length-prefixed stream, where its length fields start (``LengthChain``), at offsets
    /// from ``candidatesOrigin``: hints for loading ahead, empty when not followed.
    package var unitHints: [UInt32] = []

    package init(storage: UnsafeMutableRawBufferPointer, start: Int, count: Int,
                 candidates: StartCodeCandidates = StartCodeCandidates()) {
        self.storage = storage
        self.start = start
        self.count = count
        self.candidates = candidates
        self.candidatesOrigin = start
    }
}

/// A source that reads ahead of its reader (on a thread of its own) and trades whole buffers
/// with it instead of copying bytes into the reader's buffer.
///
/// The protocol is a strict hand-over: memory passed to ``giveBack(_:)`` is never touched by the
/// reader again, and memory returned by ``nextChunk()`` is never touched by the source again.
package protocol ChunkExchanger: AnyObject {
    /// The room every chunk leaves in front of its bytes (``ExchangedChunk/start``) at least.
    var headroom: Int { get }
    /// The next bytes in stream order; a chunk of `count` 0 at the end of the input; `nil` when
    /// the source no longer reads ahead (after the end, or after an error was reported), so the
    /// reader must call `read(into:)` as usual.
    /// - Throws: the error the read ahead met, once, in stream order.
    func nextChunk() throws -> ExchangedChunk?
    /// Returns memory the reader no longer uses (a previous buffer, or a chunk it has copied).
    func giveBack(_ storage: UnsafeMutableRawBufferPointer)
    /// Returns the part of the chunk ``nextChunk()`` just returned that the reader had no room
    /// for: it is the next chunk again.
    func putBack(_ chunk: ExchangedChunk)
}

/// A ``ByteSource`` that may trade buffers with its reader (``ChunkExchanger``).
package protocol ChunkExchangingSource {
    /// The exchanger to use from now on, or `nil` while bytes must be read with `read(into:)`
    /// (for example bytes a ``ReplaySource`` still has to replay).
    var chunkExchanger: (any ChunkExchanger)? { get }
}

extension ReplaySource: ChunkExchangingSource where Source: ChunkExchangingSource {
    package var chunkExchanger: (any ChunkExchanger)? {
        replayed ? source.chunkExchanger : nil
    }
}
