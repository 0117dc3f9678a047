#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUDecoder
import NALUEncoder
import NALUIO
import NALUMedia

/// Frames of one `nalu compare` input in presentation order: a Y4M file read directly, or any
/// compressed input decoded on a thread of its own (so two inputs go in step with bounded memory).
final class CompareInput {
    private enum Kind {
        case y4m(Y4MReader<EncodeSource>)
        case decoded(DecodedFrameQueue)
    }

    let path: String
    private var kind: Kind
    /// The frame handed out last (kept alive until the next call).
    private var current: DecodedFrame?
    private var decoding: UncheckedBox<InputDecoder>?
    /// Whether decoded frames with samples above their bit depth are clamped (for an encoder,
    /// issue 40 item 2), each such frame warned about (the first 10).
    var clampsSamples = false
    /// Frames clamped so far, and frames handed out.
    private(set) var clampedFrames = 0
    private var handedOut = 0

    /// The frame rate the decoded stream's SPS VUI gives (read after a frame came: the decoding
    /// thread set it before handing the frame over, under the queue's lock).
    var decoderFrameRate: Rational? {
        guard current != nil, let rate = decoding?.value.description?.frameRate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        return rate
    }

    /// - Parameter firstSample: MP4 input: the sync sample to start decoding at (decoding order).
    init(path: String, decoder: DecoderName, options: MediaSourceOptions, firstSample: Int = 0) throws {
        self.path = path
        if path.lowercased().hasSuffix(".y4m") {
            kind = .y4m(try Y4MReader(EncodeSource(path: path)))
            return
        }
        // Open once here so bad input and missing libraries fail before the thread starts.
        let source = try openMediaSource(path, options)
        let decoding = try InputDecoder(path: path, source: source, decoder: decoder)
        decoding.firstSample = firstSample
        let queue = DecodedFrameQueue(capacity: 4)
        let box = UncheckedBox(decoding)
        self.decoding = box
        guard DetachedThread.start({
            do {
                try box.value.run(problem: { error in StandardError.write("nalu: warning: \(path): \(error)\n") }) { frame in
                    queue.push(frame)
                }
                // What could not be decoded is an error once every decodable frame is handed
                // out (``loss``), not in their place.
                queue.finish(nil, loss: box.value.lossSummary.map { CLIError(path, $0, status: ExitStatus.dataError) })
            } catch {
                queue.finish(error)
            }
        }) else {
            throw CLIError(path, "cannot start a decoding thread", status: ExitStatus.failure)
        }
        kind = .decoded(queue)
    }

    /// The next frame, valid until the next call; `nil` at the end.
    func next() throws -> Frame? {
        switch kind {
        case .y4m(var reader):
            let frame = try reader.nextFrame()
            kind = .y4m(reader)
            return frame
        case .decoded(let queue):
            current = try queue.pop()
            if clampsSamples, let frame = current {
                let (clamped, count) = frame.clampingToBitDepth()
                if count > 0 {
                    current = clamped
                    clampedFrames += 1
                    if clampedFrames <= 10 {
                        StandardError.write("nalu: warning: \(path): frame \(handedOut) (access unit \(frame.accessUnitIndex)): \(count) sample(s) above \(frame.maximumSample), the \(frame.pixelFormat.bitDepth)-bit maximum (a decoder's concealment of damage), clamped to it\(clampedFrames == 10 ? "; further frames clamped are not listed" : "")\n")
                    }
                }
            }
            if current != nil { handedOut += 1 }
            return current?.frame()
        }
    }

    /// The colour description and sample aspect ratio of the frame last handed out (decoded input).
    var signal: (colour: ColourDescription, sampleAspectRatio: Rational?)? {
        current.map { ($0.colour, $0.sampleAspectRatio) }
    }

    /// After ``next()`` returned `nil`: what the decoder could not decode (damaged NAL units,
    /// failed decoders), as the error to end with once the output is complete; `nil` when
    /// nothing was lost, for Y4M input, or before the end.
    var loss: CLIError? {
        if case .decoded(let queue) = kind { return queue.loss }
        return nil
    }

    /// Stops a decoding thread early (the comparison ended).
    func cancel() {
        if case .decoded(let queue) = kind { queue.cancel() }
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
    private var lossAtEnd: CLIError?
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
    func finish(_ error: (any Error)?, loss: CLIError? = nil) {
        lock.withLock {
            finished = true
            failure = error
            lossAtEnd = loss
            lock.signal()
        }
    }

    /// The loss the producer reported at the end (`nil` before it finished).
    var loss: CLIError? {
        lock.withLock { finished ? lossAtEnd : nil }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            frames.removeAll()
            lock.signal()
        }
    }

    /// The next frame, waiting for it; `nil` at the end; the producer's error when it failed.
    func pop() throws -> DecodedFrame? {
        let (frame, error): (DecodedFrame?, (any Error)?) = lock.withLock {
            while frames.isEmpty && !finished { lock.wait() }
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
