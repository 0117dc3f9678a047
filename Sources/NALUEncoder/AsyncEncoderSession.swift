public import NALU

/// An ``EncoderSession`` for Swift concurrency: an actor whose methods run on a thread of its
/// own, so the blocking encoder calls (about 60 ms per 1080p x265 frame) never occupy a thread
/// of the cooperative pool that every other task shares.
///
/// ```swift
/// let encoder = try AsyncEncoderSession(configuration: config, factory: X265BackendFactory())
/// for index in 0..<frames {
///     let frame = try Frame(i420: y, u, v, width: 1280, height: 720, pts: Int64(index))
///     for packet in try await encoder.encode(frame) { try await sink.write(packet) }
/// }
/// for packet in try await encoder.flush() { try await sink.write(packet) }
/// ```
///
/// - Every session gets one dedicated thread (a POSIX thread that sleeps while there is nothing
///   to do) as the actor's executor; it ends when the actor is released.
/// - Calls are serialised like any actor's: frames from several tasks are encoded one at a time,
///   in the order their calls reach the actor. Give each stream its own session.
/// - A frame is handed over with `sending`; ``Frame`` is `Sendable`: a frame made from arrays
///   (``Frame/init(i420:_:_:width:height:pts:)``) or ``Frame/copy()`` owns its memory and can be
///   sent from any task, including through an `AsyncStream<Frame>` (``packets(encoding:)``). A frame borrowing memory
///   must keep it valid until the call returns (the caller awaits it, so this holds as long as
///   no other task changes that memory meanwhile).
/// - The synchronous ``EncoderSession`` stays available for code that has its own threads.
@available(macOS 14.0, iOS 17.0, *)
public actor AsyncEncoderSession {
    private let thread: EncoderThread
    private let session: EncoderSession

    /// Validates `configuration` with `factory` (so bad settings fail here) and starts the
    /// session's thread; the backend is opened on the first frame.
    public init(configuration: EncoderConfiguration, factory: any EncoderBackendFactory,
                retryPolicy: EncoderSession.RetryPolicy = .init()) throws(EncoderError) {
        session = try EncoderSession(configuration: configuration, factory: factory, retryPolicy: retryPolicy)
        thread = EncoderThread()
    }

    deinit { thread.stop() }

    /// Runs the actor's methods on the session's own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// Encodes `frame` and returns the packets that are ready (``EncoderSession/encode(_:)``:
    /// when it throws, the packets drained before the error come first from the next call).
    public func encode(_ frame: sending Frame) throws(EncoderError) -> [EncodedPacket] {
        try session.encode(frame)
    }

    /// Drains every delayed picture (``EncoderSession/flush()``).
    public func flush() throws(EncoderError) -> [EncodedPacket] {
        try session.flush()
    }

    /// The packets of every frame of `frames`, then those of the final flush, as one stream
    /// (issue 32 item 13): what a pipeline of `AsyncSequence`s wants.
    ///
    /// ```swift
    /// for try await packet in encoder.packets(encoding: frames) { try await sink.write(packet) }
    /// ```
    ///
    /// The stream ends normally only after the flush (every frame's packets delivered); it ends
    /// by throwing the first error (an ``EncoderError``, or what `frames` throws); and when the
    /// task iterating it is cancelled, it ends by throwing `CancellationError` — never as a
    /// normal end, so a cancelled transcode cannot be mistaken for a complete one (issue 39).
    /// Ending the iteration early (or cancelling) cancels the encoding task.
    public nonisolated func packets<Frames: AsyncSequence & Sendable>(encoding frames: Frames)
        -> EncodedPacketStream where Frames.Element == Frame {
        let completion = StreamCompletion()
        let stream = AsyncThrowingStream<EncodedPacket, any Error> { continuation in
            let task = Task {
                do {
                    for try await frame in frames {
                        try Task.checkCancellation()
                        for packet in try await self.encode(frame) { continuation.yield(packet) }
                    }
                    try Task.checkCancellation()
                    for packet in try await self.flush() { continuation.yield(packet) }
                    completion.markComplete()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return EncodedPacketStream(stream, completion: completion)
    }

    /// Opens the backend now (``EncoderSession/prepare()``).
    public func prepare() throws(EncoderError) {
        try session.prepare()
    }

    /// Forces the next frame to be an IDR picture.
    public func requestKeyframe() {
        session.requestKeyframe()
    }

    /// Changes the average bitrate; returns whether the change was live (`false`: the encoder
    /// was rebuilt, the next frame is an IDR). See ``EncoderSession/setBitrate(_:)``.
    @discardableResult
    public func setBitrate(_ bitsPerSecond: Int) throws(EncoderError) -> Bool {
        try session.setBitrate(bitsPerSecond)
    }

    /// Drains and closes the backend, optionally switching configuration; the drained packets are
    /// returned.
    public func refresh(configuration: EncoderConfiguration? = nil) throws(EncoderError) -> [EncodedPacket] {
        try session.refreshCollecting(configuration: configuration)
    }

    /// The configuration in force.
    public var configuration: EncoderConfiguration { session.configuration }

    /// Counters over the session's life.
    public var statistics: EncoderSession.Statistics { session.statistics }

    /// The decoder configuration record (``EncoderSession/decoderConfigurationRecord(lengthSize:)``).
    public func decoderConfigurationRecord(lengthSize: Int = 4) throws(NALUError) -> DecoderConfigurationRecord? {
        try session.decoderConfigurationRecord(lengthSize: lengthSize)
    }

    /// Calls `handler` (on the session's thread) for every ``EncoderSession/Event``.
    public func setEventHandler(_ handler: (@Sendable (EncoderSession.Event) -> Void)?) {
        session.eventHandler = handler
    }
}
