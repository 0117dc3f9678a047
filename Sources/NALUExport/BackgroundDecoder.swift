public import NALU
public import NALUDecoder
import NALUEncoder
import NALUIO
public import NALUMedia

/// The decoded pictures of a compressed input (MP4/MOV, MPEG-TS, Annex-B, length-prefixed) in
/// presentation order, decoded on a thread of their own: at most ``framesInFlight`` pictures
/// wait between that thread and the caller, so a slow consumer (an encoder) slows the decoder
/// and memory does not grow with the input's length (back-pressure).
///
/// ```swift
/// let pictures = try BackgroundDecoder(path: "in.mp4", factory: AVCodecDecoderFactory())
/// while let picture = try pictures.next() { … }
/// if let loss = pictures.loss { throw loss }   // pictures that could not be decoded
/// ```
public final class BackgroundDecoder {
    /// The input's path.
    public let path: String
    /// Pictures decoded ahead of the caller at most.
    public let framesInFlight: Int
    private let queue: DecodedFrameQueue
    /// The frame handed out last (kept alive until the next call).
    private var current: DecodedFrame?
    private let decoding: UncheckedBox<InputDecoder>
    private let warning: @Sendable (String) -> Void
    /// Whether decoded frames with samples above their bit depth are clamped (for an encoder,
    /// issue 40 item 2), each such frame warned about (the first 10).
    public var clampsSamples = false
    /// Frames clamped so far.
    public private(set) var clampedFrames = 0
    private var handedOut = 0

    /// The frame rate the decoded stream's SPS VUI gives (read after a frame came: the decoding
    /// thread set it before handing the frame over, under the queue's lock).
    public var decoderFrameRate: Rational? {
        guard current != nil, let rate = decoding.value.description?.frameRate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        return rate
    }

    /// Opens `path` and starts decoding it with `factory`'s library.
    ///
    /// - Parameters:
    ///   - options: how the input is read (``NALUMedia/MediaSourceOptions``).
    ///   - firstSample: MP4 input: the sync sample to start decoding at (decoding order); the
    ///     samples before it are read past, not decoded.
    ///   - framesInFlight: pictures decoded ahead at most (at least 1).
    ///   - threadCount: the decoder library's threads (0: its choice, one per core).
    ///   - warning: what is stepped over (a transport stream's damage, an access unit the
    ///     decoder rejected, a picture clamped), as `path: text`; called on any thread.
    /// - Throws: ``ExportError``: ``ExportError/Code/resources`` without a thread; else the cause
    ///   carried whole (``ExportError/init(stage:)``): a ``NALUDecoder/DecoderError`` when no
    ///   decoder opens, a ``NALU/NALUError`` when the input cannot be read.
    public init(path: String, factory: any DecoderBackendFactory, options: MediaSourceOptions = MediaSourceOptions(),
                firstSample: Int = 0, framesInFlight: Int = 4, threadCount: Int = 0,
                warning: @escaping @Sendable (String) -> Void = { _ in }) throws(ExportError) {
        do {
            self.path = path
            self.warning = warning
            self.framesInFlight = max(1, framesInFlight)
            var options = options
            if options.onTransportStreamWarning == nil {
                // A transport stream's damage is stepped over, not fatal: said through `warning`.
                options.onTransportStreamWarning = { text in warning("\(path): \(text)") }
            }
            // Opened here so bad input and missing libraries fail before the thread starts.
            let source = try MediaSource(path: path, options: options)
            let decoding = try InputDecoder(path: path, source: source, factory: factory, threadCount: threadCount)
            decoding.firstSample = firstSample
            let queue = DecodedFrameQueue(capacity: self.framesInFlight)
            let box = UncheckedBox(decoding)
            self.decoding = box
            self.queue = queue
            guard DetachedThread.start({
                do {
                    try box.value.run(problem: { error in warning("\(path): \(error)") }) { frame in
                        queue.push(frame)
                    }
                    // What could not be decoded is an error once every decodable frame is handed
                    // out (``loss``), not in their place.
                    queue.finish(nil, loss: box.value.lossSummary.map { ExportError(.picturesLost, subject: path, $0) })
                } catch {
                    queue.finish(error)
                }
            }) else {
                throw ExportError(.resources, subject: path, "cannot start a decoding thread")
            }
        } catch {
            throw ExportError(stage: error)
        }
    }

    deinit { queue.cancel() }

    /// The next picture in presentation order, waiting for the decoder; `nil` at the end.
    /// Throws an ``ExportError`` carrying what ended the decoding whole (a
    /// ``NALUDecoder/DecoderError``, a ``NALU/NALUError``: ``ExportError/stageError``).
    public func next() throws(ExportError) -> DecodedFrame? {
        do {
            current = try queue.pop()
            if clampsSamples, let frame = current {
                let (clamped, count) = frame.clampingToBitDepth()
                if count > 0 {
                    current = clamped
                    clampedFrames += 1
                    if clampedFrames <= 10 {
                        warning("\(path): frame \(handedOut) (access unit \(frame.accessUnitIndex)): \(count) sample(s) above \(frame.maximumSample), the \(frame.pixelFormat.bitDepth)-bit maximum (a decoder's concealment of damage), clamped to it\(clampedFrames == 10 ? "; further frames clamped are not listed" : "")")
                    }
                }
            }
            if current != nil { handedOut += 1 }
            return current
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The colour description and sample aspect ratio of the frame last handed out.
    public var signal: (colour: ColourDescription, sampleAspectRatio: Rational?)? {
        current.map { ($0.colour, $0.sampleAspectRatio) }
    }

    /// After ``next()`` returned `nil`: what the decoder could not decode (damaged NAL units,
    /// failed decoders), as the error to end with once the output is complete
    /// (``ExportError/Code/picturesLost``); `nil` when nothing was lost, or before the end.
    public var loss: ExportError? { queue.loss }

    /// Stops the decoding thread early: the pictures waiting are dropped, the thread ends after
    /// the access unit it is decoding.
    public func cancel() { queue.cancel() }

    /// ``cancel()`` as a closure any thread may call (a task's cancellation handler): the
    /// caller waiting in ``next()`` wakes up with `nil`.
    public var canceller: @Sendable () -> Void {
        let queue = self.queue
        return { queue.cancel() }
    }
}

/// A value handed to one other thread, which alone uses it from then on.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A bounded queue of decoded frames from one producer thread to one consumer.
final class DecodedFrameQueue: @unchecked Sendable {
    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var frames: [DecodedFrame] = []
    private var finished = false
    private var cancelled = false
    private var failure: (any Error)?
    private var lossAtEnd: ExportError?
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a frame, waiting while the queue is full; `false` once cancelled.
    @discardableResult
    func push(_ frame: DecodedFrame) -> Bool {
        lock.withLock {
            while frames.count >= capacity && !cancelled { lock.wait() }
            if cancelled { return false }
            frames.append(frame)
            lock.signal()
            return true
        }
    }

    /// Ends the queue: with `error`, the consumer's ``pop()`` throws it once the frames are
    /// taken; `loss` is kept for ``loss`` (the frames end normally).
    func finish(_ error: (any Error)?, loss: ExportError? = nil) {
        lock.withLock {
            finished = true
            failure = error
            lossAtEnd = loss
            lock.signal()
        }
    }

    /// The loss the producer reported at the end (`nil` before it finished).
    var loss: ExportError? {
        lock.withLock { finished ? lossAtEnd : nil }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            frames.removeAll()
            lock.signal()
        }
    }

    /// The next frame, waiting for it; `nil` at the end or once cancelled; the producer's error
    /// when it failed.
    func pop() throws -> DecodedFrame? {
        let (frame, error): (DecodedFrame?, (any Error)?) = lock.withLock {
            while frames.isEmpty && !finished && !cancelled { lock.wait() }
            if cancelled { return (nil, nil) }
            if !frames.isEmpty {
                let frame = frames.removeFirst()
                lock.signal()
                return (frame, nil)
            }
            return (nil, failure)
        }
        if let error { throw error }
        return frame
    }
}
