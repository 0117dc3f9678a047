import NALU
import NALUIO

/// The bounded hand-over between ``MediaReader``'s reading thread and its consumer: at most
/// ``capacity`` items wait; the thread blocks when it is full, the consumer when it is empty
/// (a blocked synchronous ``take()``, or an `async` ``take()`` suspended on a continuation
/// that the thread resumes). Items come out in the order they went in, then the thread's
/// error, then the end.
///
/// Cancellation (``cancel()``, the consuming task's cancellation, or the reader going away)
/// wakes both sides: the thread's next ``put(_:)`` throws ``Stopped`` (the read unwinds and the
/// thread ends), and every ``take()`` from then on throws a ``NALU/NALUError`` with code
/// ``NALU/NALUError/Code/cancelled`` naming ``field``.
final class ReadAheadQueue: @unchecked Sendable {
    /// Thrown by ``put(_:)`` once the queue is cancelled.
    struct Stopped: Error {}

    let capacity: Int
    /// What the errors name: the path read.
    let field: String
    /// Condition 0: an item, the end or a cancellation for the consumer; 1: room for the thread.
    private let monitor = ThreadMonitor(conditions: 2)
    // Guarded by `monitor`:
    private var items: [MediaReaderItem] = []
    private var head = 0
    private var finished = false
    private var failure: NALUError?
    private var cancelled = false
    private var waiter: CheckedContinuation<Result<MediaReaderItem?, NALUError>, Never>?
    /// The reading thread was started and has not ended yet.
    private var threadRunning = false

    init(capacity: Int, field: String) {
        self.capacity = max(1, capacity)
        self.field = field
    }

    /// The error of a take after ``cancel()``.
    private var cancellation: NALUError { NALUError(.cancelled, field: field) }

    // MARK: The reading thread

    /// Hands `item` over, waiting while ``capacity`` items wait already.
    /// - Throws: ``Stopped`` when the queue is cancelled.
    func put(_ item: MediaReaderItem) throws {
        monitor.lock()
        while items.count - head >= capacity && !cancelled { monitor.wait(1) }
        if cancelled {
            monitor.unlock()
            throw Stopped()
        }
        if let waiter {
            self.waiter = nil
            monitor.unlock()
            waiter.resume(returning: .success(item))
            return
        }
        items.append(item)
        monitor.signal(0)
        monitor.unlock()
    }

    /// Ends the items: `error` (unless the read was stopped by a cancellation) comes after them,
    /// as a ``NALU/NALUError`` (``NALU/NALUError/converting(_:field:)``: the read throws
    /// nothing else).
    func finish(_ error: (any Error)?) {
        monitor.lock()
        finished = true
        if let error, !(error is Stopped) { failure = NALUError.converting(error, field: field) }
        let waiter = self.waiter
        self.waiter = nil
        var result: Result<MediaReaderItem?, NALUError> = .success(nil)
        if waiter != nil { result = endLocked() }
        monitor.broadcast(0)
        monitor.unlock()
        waiter?.resume(returning: result)
    }

    /// The reading thread starts (before it is created).
    func threadStarts() {
        monitor.lock()
        threadRunning = true
        monitor.unlock()
    }

    /// The reading thread has let go of everything it read from (its last act).
    func threadEnded() {
        monitor.lock()
        threadRunning = false
        monitor.broadcast(0)
        monitor.unlock()
    }

    /// Waits until the reading thread, if one started, has ended.
    func waitForThread() {
        monitor.lock()
        while threadRunning { monitor.wait(0) }
        monitor.unlock()
    }

    // MARK: The consumer

    /// Stops the reading: wakes both sides (see the type's description).
    func cancel() {
        monitor.lock()
        cancelled = true
        let waiter = self.waiter
        self.waiter = nil
        monitor.broadcast(0)
        monitor.broadcast(1)
        monitor.unlock()
        waiter?.resume(returning: .failure(cancellation))
    }

    /// The next item, waiting for it; `nil` at the end.
    func take() throws(NALUError) -> MediaReaderItem? {
        monitor.lock()
        defer { monitor.unlock() }
        while true {
            if let result = readyLocked() { return try result.get() }
            monitor.wait(0)
        }
    }

    /// The next item, suspending until it comes; `nil` at the end. Cancelling the task
    /// cancels the queue.
    func take() async throws(NALUError) -> MediaReaderItem? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<MediaReaderItem?, NALUError>, Never>) in
                monitor.lock()
                if let result = readyLocked() {
                    monitor.unlock()
                    continuation.resume(returning: result)
                } else if waiter != nil {
                    monitor.unlock()
                    continuation.resume(returning: .failure(NALUError(.unsupported, field: "MediaReader",
                                                                      detail: "next() called while another call waits: one consumer at a time")))
                } else {
                    waiter = continuation
                    monitor.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// What a take gets now, or `nil` to wait (the monitor held).
    private func readyLocked() -> Result<MediaReaderItem?, NALUError>? {
        if cancelled { return .failure(cancellation) }
        if head < items.count {
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= capacity {
                items.removeFirst(head)
                head = 0
            }
            monitor.signal(1)
            return .success(item)
        }
        if finished { return endLocked() }
        return nil
    }

    /// The thread's error once, then the end (the monitor held).
    private func endLocked() -> Result<MediaReaderItem?, NALUError> {
        if let failure {
            self.failure = nil
            return .failure(failure)
        }
        return .success(nil)
    }
}
