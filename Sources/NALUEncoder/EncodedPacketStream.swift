/// The packets of ``AsyncEncoderSession/packets(encoding:)``: an `AsyncSequence` that ends
/// normally only once the encoder was flushed, and throws `CancellationError` when the task
/// iterating it is cancelled (an `AsyncThrowingStream` alone just ends then, which a caller
/// would take for a complete encode).
public struct EncodedPacketStream: AsyncSequence, Sendable {
    public typealias Element = EncodedPacket
    public typealias Failure = any Error

    private let base: AsyncThrowingStream<EncodedPacket, any Error>
    private let completion: StreamCompletion

    init(_ base: AsyncThrowingStream<EncodedPacket, any Error>, completion: StreamCompletion) {
        self.base = base
        self.completion = completion
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), completion: completion)
    }

    /// The iterator: the stream's packets, then `nil` after the flush, or `CancellationError`.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<EncodedPacket, any Error>.Iterator
        let completion: StreamCompletion
        var ended = false

        /// The next packet; `nil` after the flush.
        /// - Throws: the encoder's ``EncoderError``, or `CancellationError` when the task
        ///   iterating is cancelled (issue 39 item 3 asks for `CancellationError`, so this stays
        ///   untyped: `throws(EncoderError)` could not carry it).
        public mutating func next() async throws -> EncodedPacket? {
            guard !ended else { return nil }
            if let packet = try await base.next() { return packet }
            ended = true
            // The stream ended without an error: complete only if the producer flushed.
            guard completion.isComplete else { throw CancellationError() }
            return nil
        }
    }
}

/// Whether the producer of an ``EncodedPacketStream`` delivered everything (set before the
/// stream finishes, read after it ended).
final class StreamCompletion: @unchecked Sendable {
    private let lock = ThreadLock()
    private var complete = false

    func markComplete() { lock.withLock { complete = true } }
    var isComplete: Bool { lock.withLock { complete } }
}
