public import NALU
public import NALUEncoder

/// Frames into an encoder, its access units into an output: the loop `nalu encode` and
/// ``ExportSession`` share. Frames come one at a time from the caller's input (a decoder on its
/// own thread hands out a bounded number ahead: ``DecodedVideoInput``), so memory does not grow
/// with the input's length.
///
/// ```swift
/// let pipeline = EncodePipeline(session: session, output: output)
/// let frames = try pipeline.encode { _ in try input.nextFrame() }
/// let notes = try pipeline.finish()
/// ```
public final class EncodePipeline {
    /// The encoder.
    public let session: EncoderSession
    /// Where the access units go.
    public let output: EncodedOutput
    /// Changes made at chosen frames (bitrate, forced IDR).
    public var liveChanges = EncoderLiveChanges()
    /// The encoder's PSNR/SSIM measurements, summed.
    public private(set) var quality: QualityTotals
    /// The source pts kept (a compressed input's range): earlier frames are skipped, the first
    /// later one ends the input (and ``onRangeEnd`` runs).
    public var keptRange: Range<Int64>?
    /// Runs when a frame past ``keptRange`` ends the input (to stop the decoder).
    public var onRangeEnd: () -> Void = {}
    /// Frames read at most.
    public var limit = Int64.max
    /// Whether to stop reading and finish the output with the frames so far (a stopping signal).
    public var shouldStop: () -> Bool = { false }
    /// Runs before each frame and each access unit is handled; throwing ends the encode (a
    /// cancellation: `CancellationError`).
    public var checkpoint: () throws -> Void = {}
    /// Runs after each frame is given to the encoder (a progress line).
    public var onFrame: (EncoderSession.Statistics) -> Void = { _ in }
    /// Runs after each access unit is written (a progress meter).
    public var onPacket: () -> Void = {}

    /// A pipeline from `session` into `output`; set the properties before ``encode(_:)``.
    public init(session: EncoderSession, output: EncodedOutput) {
        self.session = session
        self.output = output
        quality = QualityTotals(codec: session.configuration.codec)
    }

    /// A pipeline for `plan`'s frames: its limit and kept range, the decoder stopped at the
    /// range's end, and an IDR picture first for a chunk or a range of raw or Y4M frames (so the
    /// parts join).
    public convenience init(session: EncoderSession, output: EncodedOutput, plan: EncodeInputPlan) {
        self.init(session: session, output: output)
        limit = plan.limit
        keptRange = plan.keptRange
        onRangeEnd = { plan.decoded?.cancel() }
        if plan.frameRange != nil || plan.decoded?.chunkRange != nil { session.requestKeyframe() }
    }

    /// The summary of the encode (``EncodeSummary``) with its live changes and quality
    /// measurements; `signal`: the signal that stopped it, or 0.
    public func summary(elapsed: Double, frameRate: Rational, output path: String, interruptedBy signal: Int32) -> EncodeSummary {
        var summary = EncodeSummary(session.statistics, elapsed: elapsed, frameRate: frameRate, output: path, codec: session.configuration.codec)
        if signal != 0 { summary.markInterrupted(signal: signal) }
        summary.add(liveChanges.applied)
        summary.add(quality)
        return summary
    }

    /// Encodes the frames `next` gives (given how many were encoded so far; `nil` ends) and
    /// returns how many were encoded.
    /// - Throws: the encoder's ``NALUEncoder/EncoderError``, the output's `NALUError`, and what `next` or
    ///   ``checkpoint`` throw, as thrown: untyped (`any Error`) for those (a closure literal is not given
    ///   typed throws by Swift 6.3; a caller's own error keeps its type).
    public func encode(_ next: (Int64) throws -> Frame?) throws -> Int64 {
        var count: Int64 = 0
        do {
            while count < limit, !shouldStop() {
                guard let frame = try next(count) else { break }
                try checkpoint()
                if let keptRange {
                    if frame.pts < keptRange.lowerBound { continue }
                    if frame.pts >= keptRange.upperBound {
                        onRangeEnd()
                        break
                    }
                }
                try liveChanges.beforeFrame(count, session: session)
                try session.encode(frame, write)
                count += 1
                onFrame(session.statistics)
            }
            try checkpoint()
        } catch {
            output.discard()
            throw error
        }
        return count
    }

    /// Flushes the encoder and completes the output (renamed into place); returns the muxer's
    /// notes. ``checkpoint`` runs after the flush and once more when everything is written,
    /// just before the output is committed.
    /// - Throws: ``ExportError`` carrying the cause whole (``ExportError/init(stage:)``): the encoder's, the
    ///   output's `NALUError`, or what ``checkpoint`` threw (`CancellationError`); the output is discarded.
    public func finish() throws(ExportError) -> [String] {
        do {
            do {
                try session.flush(write)
                try checkpoint()
                return try output.finish(beforeCommit: checkpoint)
            } catch {
                output.discard()
                throw error
            }
        } catch {
            throw ExportError(stage: error)
        }
    }

    private func write(_ packet: EncodedPacket) throws {
        try checkpoint()
        quality.take(packet)
        try output.write(packet)
        onPacket()
    }
}
