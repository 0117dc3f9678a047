public import NALU
import NALUEncoder

/// A ``DecoderSession`` for Swift concurrency: an actor whose methods run on a thread of its own
/// (as ``NALUEncoder/AsyncEncoderSession`` does), so the blocking decoder calls never occupy a
/// thread of the cooperative pool.
///
/// ```swift
/// let decoder = try AsyncDecoderSession(codec: .hevc, parameterSets: sets, factory: De265DecoderFactory())
/// for unit in units { for frame in try await decoder.decode(unit) { try await show(frame) } }
/// for frame in await decoder.flush() { try await show(frame) }
/// ```
///
/// ``DecodedFrame`` is `Sendable`: frames can go to any task.
@available(macOS 14.0, iOS 17.0, *)
public actor AsyncDecoderSession {
    private let thread: EncoderThread
    private let session: DecoderSession

    /// Checks `factory` against `codec` and starts the session's thread; the backend opens at
    /// the first access unit.
    public init(codec: Codec, parameterSets: [[UInt8]] = [], factory: any DecoderBackendFactory, threadCount: Int = 0,
                retryPolicy: DecoderSession.RetryPolicy = .init()) throws(DecoderError) {
        session = try DecoderSession(codec: codec, parameterSets: parameterSets, factory: factory, threadCount: threadCount,
                                     retryPolicy: retryPolicy)
        thread = EncoderThread()
    }

    deinit { thread.stop() }

    /// Runs the actor's methods on the session's own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// Decodes one access unit (``DecoderSession/decode(_:)``).
    public func decode(_ accessUnit: CodedAccessUnit) throws(DecoderError) -> [DecodedFrame] {
        try session.decode(accessUnit)
    }

    /// Drains the frames held for reordering (``DecoderSession/flush()``).
    public func flush() -> [DecodedFrame] {
        session.flush()
    }

    /// Counters over the session's life.
    public var statistics: DecoderSession.Statistics { session.statistics }

    /// The bitstream errors reported so far.
    public var problems: [DecoderSession.Problem] { session.problems }

    /// Calls `handler` (on the session's thread) for every ``DecoderSession/Event``.
    public func setEventHandler(_ handler: (@Sendable (DecoderSession.Event) -> Void)?) {
        session.eventHandler = handler
    }
}
