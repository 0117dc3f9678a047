import NALU
import NALUIO
import NALUMP4

/// Reads an Annex-B stream, finds its access units (``NALU/AccessUnitSplitter``) and counts
/// its pictures' order on a thread of its own, while the caller's thread muxes and writes: the
/// MP4 conversion of a stream of small NAL units spends a third of its parsing thread's time
/// there, while the write itself is the rest.
///
/// The thread runs the stream's one reader, splitter and picture order counter, and hands the
/// caller batches: each NAL unit's view with what the splitter made of it
/// (``Record``), one batch per buffer the reader read (or per ``maxRecords`` NAL units), at
/// most ``depth`` waiting. The reader never reuses a buffer it delivered NAL units from: it
/// retires it here (``NALU/BufferRetirement``), and a retired buffer is handed out again (or
/// freed) only once the caller has written the batches that point into it. Memory is bounded:
/// the waiting batches' buffers and the reader's own, about `depth + 2` buffers of the reader's
/// chunk size (512 KiB; ``keptBuffers`` are kept for reuse, the rest freed), and at most
/// `depth` × ``maxRecords`` records of ~150 bytes; a NAL unit larger than a buffer grows the
/// reader's buffer as without this thread (each larger buffer a new one, the old retired).
///
/// Errors stay in stream order: the thread's error (reading, framing, a slice header) ends the
/// last batch and is thrown by the caller after it pushed the NAL units before it, where the
/// one-thread path throws it. An error of the caller (a write) stops the thread at its next
/// batch; the caller waits for it before returning, so the source is never used by two threads.
package final class ParsingAhead: @unchecked Sendable {
    /// A NAL unit and what the splitter made of it.
    struct Record {
        var unit: NALUnitView
        var completed: AccessUnitSummary?
        var isFirstVCL: Bool
        var pictureOrder: (PictureOrderCount, reorderLimit: Int)?
    }

    /// The NAL units the thread read up to one `beforeReuse` of the reader.
    struct Batch {
        var records: [Record]
        /// Buffers the reader retired before the batch was handed over: the caller lets them go
        /// once it has written the batch.
        var retired: [UnsafeMutableRawBufferPointer]
        /// The end of the stream (or of the thread, with `error`): the splitter's last access unit.
        var end = false
        var lastAccessUnit: AccessUnitSummary?
        var error: (any Error)?
    }

    /// Batches waiting for the caller at most.
    static let depth = 4
    /// NAL units per batch at most (a buffer of tiny NAL units is handed over in parts), so the
    /// waiting records stay under ~3 MiB whatever the stream.
    static let maxRecords = 4096
    /// Buffers kept for reuse at most (the rest are freed).
    static let keptBuffers = depth + 2

    /// Its condition is signalled when a batch is handed over or taken, the caller stops, or the
    /// thread ends.
    private let monitor = ThreadMonitor()
    // Guarded by `monitor`:
    private var queue: [Batch] = []
    private var retired: [UnsafeMutableRawBufferPointer] = []
    private var reusable: [UnsafeMutableRawBufferPointer] = []
    private var stopped = false
    private var running = false

    private init() {
        queue.reserveCapacity(Self.depth + 1)
    }

    deinit {
        for batch in queue { for buffer in batch.retired { buffer.deallocate() } }
        for buffer in retired { buffer.deallocate() }
        for buffer in reusable { buffer.deallocate() }
    }

    /// Whether parsing ahead pays for `source` in this process: a second CPU is likely free
    /// (``NALUIO/ReadAhead/hasSecondCPU``; `NALU_READ_AHEAD=0` keeps one thread) and the source
    /// can be read on one other thread (``MediaSource/prepareToReadOnOneThread()``, which readies
    /// it).
    static func applies(to source: MediaSource) -> Bool {
        ReadAhead.hasSecondCPU && source.prepareToReadOnOneThread()
    }

    /// Pushes every NAL unit of `source` into `muxer`, the parsing on a second thread, and
    /// finishes the muxer; `nil` (nothing read) when no thread could be started.
    static func mux<Sink: ByteSink>(_ source: MediaSource, into muxer: MP4Muxer<Sink>) throws -> MP4MuxerSummary? {
        let ahead = ParsingAhead()
        nonisolated(unsafe) let source = source
        let codec = source.codec
        ahead.running = true
        let started = DetachedThread.start { ahead.parse(source, codec: codec) }
        guard started else { return nil }
        defer { ahead.stopAndWait() }
        while true {
            let batch = ahead.take()
            do {
                for record in batch.records {
                    try muxer.push(record.unit, completed: record.completed, isFirstVCL: record.isFirstVCL, pictureOrder: record.pictureOrder)
                }
                // The muxer's output points into the batch's buffers until this.
                try muxer.returnLent()
            } catch {
                // What was lent is written before the buffers go, as a reader does on an error.
                try? muxer.returnLent()
                ahead.release(batch.retired)
                throw error
            }
            ahead.release(batch.retired)
            if let error = batch.error { throw error }
            if batch.end { return try muxer.finish(lastAccessUnit: batch.lastAccessUnit) }
        }
    }

    /// The thread: the reader, the splitter and the counter, a batch per buffer.
    private func parse(_ source: MediaSource, codec: Codec) {
        var splitter = AccessUnitSplitter(codec: codec)
        var counter = PictureOrderCounter()
        var records: [Record] = []
        records.reserveCapacity(1024)
        do {
            try source.forEachNALUnit(beforeReuse: { [self] in try handOver(&records) }, retirement: self) { unit in
                let step = try splitter.push(unit)
                var order: (PictureOrderCount, reorderLimit: Int)?
                if step.isFirstVCL {
                    order = try splitter.pictureOrderCount(after: step, counter: &counter, offset: unit.offset)
                }
                if codec.isEndOfSequence(firstByte: unit.firstByte) { counter.endOfSequence() }
                records.append(Record(unit: unit, completed: step.completed, isFirstVCL: step.isFirstVCL, pictureOrder: order))
                // A buffer of tiny NAL units: hand over part of it (its delivered bytes are
                // never written by the reader again, retired or not).
                if records.count >= Self.maxRecords { try handOver(&records) }
            }
            try handOver(&records, end: true, lastAccessUnit: splitter.finish())
        } catch is Stopped {
        } catch {
            try? handOver(&records, end: true, error: error)
        }
        lock()
        running = false
        monitor.broadcast()
        unlock()
    }

    /// The caller stopped taking batches.
    private struct Stopped: Error {}

    /// Hands `records` (and the buffers retired so far) to the caller, waiting while ``depth``
    /// batches wait. Throws ``Stopped`` once the caller stopped.
    private func handOver(_ records: inout [Record], end: Bool = false, lastAccessUnit: AccessUnitSummary? = nil,
                          error: (any Error)? = nil) throws {
        lock()
        defer { unlock() }
        // (Retired buffers go with a batch of their own when no NAL unit came: a large NAL unit
        // growing the reader's buffer.)
        guard !records.isEmpty || end || !retired.isEmpty else { return }
        while queue.count >= Self.depth && !stopped { monitor.wait() }
        if stopped { throw Stopped() }
        queue.append(Batch(records: records, retired: retired, end: end, lastAccessUnit: lastAccessUnit, error: error))
        retired.removeAll(keepingCapacity: true)
        monitor.broadcast()
        records.removeAll(keepingCapacity: true)
    }

    /// The caller's side: the next batch, waiting for it.
    private func take() -> Batch {
        lock()
        defer { unlock() }
        while queue.isEmpty { monitor.wait() }
        let batch = queue.removeFirst()
        monitor.broadcast()
        return batch
    }

    /// The caller is done with these buffers: kept for the reader, up to ``keptBuffers``.
    private func release(_ buffers: [UnsafeMutableRawBufferPointer]) {
        guard !buffers.isEmpty else { return }
        lock()
        defer { unlock() }
        for buffer in buffers {
            if reusable.count < Self.keptBuffers { reusable.append(buffer) } else { buffer.deallocate() }
        }
    }

    /// Stops the thread at its next batch and waits until it has ended.
    private func stopAndWait() {
        lock()
        defer { unlock() }
        stopped = true
        monitor.broadcast()
        while running { monitor.wait() }
    }

    private func lock() { monitor.lock() }
    private func unlock() { monitor.unlock() }
}

extension ParsingAhead: BufferRetirement {
    package func retire(_ buffer: UnsafeMutableRawBufferPointer) {
        lock()
        retired.append(buffer)
        unlock()
    }

    package func reusableBuffer(byteCount: Int) -> UnsafeMutableRawBufferPointer? {
        lock()
        defer { unlock() }
        guard let index = reusable.lastIndex(where: { $0.count == byteCount }) else { return nil }
        return reusable.remove(at: index)
    }
}

extension MP4FileSink {
    /// ``MediaSink/write(_:)`` with the parsing on a second thread (``ParsingAhead``): where it
    /// pays (`always` false: ``ParsingAhead/applies(to:)``) or wherever the source allows it
    /// (`always` true: ``MediaSource/prepareToReadOnOneThread()``, whatever the CPUs); `nil`, nothing
    /// read, where it does not apply or no thread can be started.
    package func writeParsingAhead(_ source: MediaSource, always: Bool) throws -> MediaSinkReport? {
        guard always ? source.prepareToReadOnOneThread() : ParsingAhead.applies(to: source),
              let summary = try ParsingAhead.mux(source, into: muxer) else { return nil }
        return report(summary)
    }
}
