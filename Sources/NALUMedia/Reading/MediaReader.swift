public import NALU
import NALUIO

/// What a ``MediaReader`` is told beforehand.
public struct MediaReaderOptions: Sendable {
    /// How the input is opened (codec, length size and record of a raw length-prefixed
    /// stream, transport stream PID, spool directory, …): as ``MediaSource`` opens it.
    public var source: MediaSourceOptions
    /// Whether the other tracks' samples are read and yielded (``MediaReaderItem/sample(_:)``);
    /// `false` reads the video only (``MediaReader/unreadTracks`` then lists them all).
    public var readsOtherTracks: Bool
    /// Items read ahead of the consumer at most (access units, samples, damage reports): the
    /// look-ahead, and so the memory, is bounded by this many access units.
    public var lookAhead: Int
    /// The largest access unit accepted, in NAL unit bytes (``NALU/NALUError/Code/tooLarge``).
    public var maxAccessUnitBytes: Int

    public init(source: MediaSourceOptions = MediaSourceOptions(), readsOtherTracks: Bool = true, lookAhead: Int = 8,
                maxAccessUnitBytes: Int = AccessUnitAssembler.defaultMaxAccessUnitBytes) {
        self.source = source
        self.readsOtherTracks = readsOtherTracks
        self.lookAhead = lookAhead
        self.maxAccessUnitBytes = maxAccessUnitBytes
    }
}

/// Reads any input nalu reads — MP4/MOV (fragmented too), MPEG-TS, Annex-B, length-prefixed
/// with a record; files and pipes — and yields its complete coded access units, ready for a
/// decoder (``NALU/CodedAccessUnit``: NAL units, times in the track's timescale, keyframe
/// class, picture type, index, byte offset, the parameter sets in force), and the samples of
/// its other tracks (audio, subtitles, timecode: ``MediaTrackSample``), in decoding order,
/// interleaved by time; damaged NAL units are reported (``MediaReaderItem/damaged(_:)``) and
/// left out, and reading goes on.
///
/// The AVAssetReader of nalu. Synchronously:
///
/// ```swift
/// let reader = try MediaReader(path: "in.mp4")
/// let decoder = try DecoderSession(codec: reader.codec, parameterSets: reader.outOfBandParameterSets,
///                                  factory: AVCodecDecoderFactory())
/// while let item = try reader.next() {
///     switch item {
///     case .accessUnit(let unit): for frame in try decoder.decode(unit) { show(frame) }
///     case .sample(let sample): play(sample)
///     case .damaged(let damage): log(damage)
///     }
/// }
/// ```
///
/// or as an `AsyncSequence` (`for try await item in reader`, its `Failure` ``NALU/NALUError``),
/// where cancelling the task that iterates ends the reading: the pending `next()` throws a
/// ``NALU/NALUError`` with code ``NALU/NALUError/Code/cancelled`` naming the path.
///
/// Every throwing member throws ``NALU/NALUError`` (typed).
///
/// The access units are those of ``MediaSource/forEachCodedAccessUnit(maxAccessUnitBytes:damaged:_:)``,
/// the library's one grouping (H.264 7.4.1.2.3, H.265 7.4.2.4.4). The other tracks' samples come
/// before the first access unit that decodes after them, on one clock (an MP4 track's media
/// time through the start of its edit list; a transport stream's 90 kHz time): an MP4's every
/// other track; a transport stream's first ADTS AAC stream (read by a second pass over the
/// file). What is not read is listed in ``unreadTracks``, never dropped silently.
///
/// The input is read on a thread of the reader's own, at most
/// ``MediaReaderOptions/lookAhead`` items ahead of the consumer, so memory stays bounded
/// whatever the input's length; the file is never read whole (an MP4 from a pipe is spooled to
/// an unlinked temporary file, as ``MediaSource`` does). The thread starts at the first
/// ``next()`` and ends with the input, an error, ``cancel()`` or the reader's release (a
/// thread waiting on a pipe for bytes ends when that read returns). One consumer at a time.
public final class MediaReader: @unchecked Sendable {
    /// The path read (`"-"`: standard input).
    public let path: String
    /// The video's codec.
    public let codec: Codec
    /// How the input is contained.
    public let container: MediaContainer
    /// The parameter sets from outside the stream (an MP4 sample entry's record, or the
    /// record given): what a decoder starts with.
    public let outOfBandParameterSets: [[UInt8]]
    /// The video's timescale (an MP4 track's; 90 000 for a transport stream), or `nil` for a
    /// raw stream, which has no times.
    public let timescale: UInt32?
    /// The video track's MP4 track_ID, or the transport stream PID, when there is one.
    public let videoTrackID: UInt32?
    /// Frames per second the container's timing implies, if it has timing
    /// (``MediaSource/containerFrameRate()``).
    public let containerFrameRate: Rational?
    /// The other tracks whose samples are yielded.
    public let otherTracks: [MediaReaderTrack]
    /// The other tracks or streams of the input that are not read (not asked for, a transport
    /// stream from a pipe or one that is no ADTS AAC, the second audio stream of a transport
    /// stream): their descriptions. Empty when nothing is left out.
    public let unreadTracks: [String]

    /// What the thread reads from; handed to it at the first ``next()``.
    private final class Production: @unchecked Sendable {
        let source: MediaSource
        let others: OtherTrackFeed?
        let maxAccessUnitBytes: Int
        init(source: MediaSource, others: OtherTrackFeed?, maxAccessUnitBytes: Int) {
            self.source = source
            self.others = others
            self.maxAccessUnitBytes = maxAccessUnitBytes
        }
    }

    private let queue: ReadAheadQueue
    /// Guards `production` (taken once, by the first ``next()``).
    private let monitor = ThreadMonitor()
    private var production: Production?

    /// Opens `path` (`"-"`: standard input) and reads its container's headers; the streams
    /// themselves are read by ``next()``.
    /// - Throws: ``NALU/NALUError``: what ``MediaSource/init(path:options:)`` throws (`.io`,
    ///   `.unrecognisedFormat`, `.invalidValue` for options that contradict the input), and
    ///   the other tracks' table errors.
    public init(path: String, options: MediaReaderOptions = MediaReaderOptions()) throws(NALUError) {
        let source = try MediaSource(path: path, options: options.source)
        self.path = path
        codec = source.codec
        container = source.container
        outOfBandParameterSets = source.outOfBandParameterSets
        containerFrameRate = try? source.containerFrameRate()
        if let mp4 = source.mp4 {
            timescale = mp4.track.timescale
            videoTrackID = mp4.track.trackID
        } else if let video = source.transportStream?.video {
            timescale = 90_000
            videoTrackID = UInt32(video.pid)
        } else {
            timescale = nil
            videoTrackID = nil
        }
        let others = options.readsOtherTracks ? try OtherTrackFeed(source: source) : nil
        otherTracks = others?.tracks ?? []
        let read = Set(otherTracks.map(\.trackID))
        if let transportStream = source.transportStream {
            unreadTracks = transportStream.otherStreams.filter { !read.contains(UInt32($0.pid)) }.map(\.description)
        } else {
            unreadTracks = source.otherTracks.filter { !read.contains($0.trackID) }.map(\.description)
        }
        queue = ReadAheadQueue(capacity: options.lookAhead, field: path)
        production = Production(source: source, others: others, maxAccessUnitBytes: options.maxAccessUnitBytes)
    }

    deinit {
        queue.cancel()
    }

    /// The next item in decoding order, waiting for it; `nil` at the end of the input.
    /// - Throws: ``NALU/NALUError`` (typed): the reading's error (naming the field and byte
    ///   offset) after the items before it, once; code ``NALU/NALUError/Code/cancelled`` (field:
    ///   the path) after ``cancel()``.
    public func next() throws(NALUError) -> MediaReaderItem? {
        try start()
        return try queue.take()
    }

    /// The next access unit, passing the other tracks' samples by; damage goes to `damaged`.
    /// - Throws: ``NALU/NALUError`` (typed): what ``next()`` throws, or what `damaged` throws
    ///   (a closure literal passed here says so: `{ (damage) throws(NALUError) in … }`).
    public func nextAccessUnit(damaged: (DamagedNALUnit) throws(NALUError) -> Void = { _ in }) throws(NALUError) -> CodedAccessUnit? {
        while let item = try next() {
            switch item {
            case .accessUnit(let unit): return unit
            case .damaged(let damage): try damaged(damage)
            case .sample: continue
            }
        }
        return nil
    }

    /// Stops reading: the thread ends at its next hand-over, and ``next()`` throws
    /// ``NALU/NALUError/Code/cancelled`` from then on.
    public func cancel() {
        queue.cancel()
    }

    /// Starts the reading thread at the first call.
    private func start() throws(NALUError) {
        monitor.lock()
        let production = self.production
        self.production = nil
        monitor.unlock()
        guard let production else { return }
        let queue = self.queue
        let slot = ProductionSlot(production)
        queue.threadStarts()
        let started = DetachedThread.start {
            Self.read(slot.take(), into: queue)
            // Everything read from is released by now: say so (``waitUntilReadingEnds()``).
            queue.threadEnded()
        }
        guard started else {
            queue.threadEnded()
            let error = NALUError(.io, field: "thread", detail: "no thread could be started to read \(path)")
            queue.finish(error)
            throw error
        }
    }

    /// Waits until the reading thread, if it started, has ended and let go of the input
    /// (after ``cancel()`` or the end of the items): for a caller that must know no thread
    /// still holds the file (the fuzz harness, before the leak check).
    package func waitUntilReadingEnds() {
        queue.waitForThread()
    }

    /// Hands the production to the thread, which takes it out so it is released when the
    /// reading returns, not when the thread's closure is.
    private final class ProductionSlot: @unchecked Sendable {
        private var production: Production?
        init(_ production: Production) { self.production = production }
        func take() -> Production? {
            defer { production = nil }
            return production
        }
    }

    /// The reading thread: every access unit, the other tracks' samples before it, the damage.
    private static func read(_ production: Production?, into queue: ReadAheadQueue) {
        guard let production else { return queue.finish(nil) }
        do {
            let others = production.others
            try production.source.forEachCodedAccessUnit(maxAccessUnitBytes: production.maxAccessUnitBytes, damaged: { damage in
                try queue.put(.damaged(damage))
            }) { unit in
                if let others, let timing = unit.timing {
                    try others.emit(upTo: others.videoClock(timing)) { try queue.put(.sample($0)) }
                }
                try queue.put(.accessUnit(unit))
            }
            try others?.emit(upTo: nil) { try queue.put(.sample($0)) }
            queue.finish(nil)
        } catch {
            queue.finish(error)
        }
    }
}

extension MediaReader: AsyncSequence {
    public typealias Element = MediaReaderItem

    public typealias Failure = NALUError

    /// Iterates a ``MediaReader``: each `next()` suspends (without blocking a thread) until the
    /// reading thread hands the next item over. Cancelling the iterating task cancels the
    /// reader: the pending or next `next()` throws ``NALU/NALUError/Code/cancelled`` naming the
    /// path. Its `Failure` is ``NALU/NALUError``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = NALUError
        let reader: MediaReader

        /// The next item; `nil` at the end.
        /// - Throws: ``NALU/NALUError`` (typed): the reading's error, or
        ///   ``NALU/NALUError/Code/cancelled`` once the task is cancelled.
        public mutating func next() async throws(NALUError) -> MediaReaderItem? {
            try await Self.item(of: reader)
        }

        /// ``next()`` (`AsyncIteratorProtocol`'s requirement with typed throws): the items do
        /// not depend on the caller's isolation.
        /// - Throws: ``NALU/NALUError`` (typed), as ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NALUError) -> MediaReaderItem? {
            try await Self.item(of: reader)
        }

        private static func item(of reader: MediaReader) async throws(NALUError) -> MediaReaderItem? {
            if Task.isCancelled {
                reader.cancel()
                throw NALUError(.cancelled, field: reader.path)
            }
            try reader.start()
            return try await reader.queue.take()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: self)
    }
}
