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
/// thread ends), and every ``take()`` from then on throws `CancellationError`.
final class ReadAheadQueue: @unchecked Sendable {
    /// Thrown by ``put(_:)`` once the queue is cancelled.
    struct Stopped: Error {}

    let capacity: Int
    /// Condition 0: an item, the end or a cancellation for the consumer; 1: room for the thread.
    private let monitor = ThreadMonitor(conditions: 2)
    // Guarded by `monitor`:
    private var items: [MediaReaderItem] = []
    private var head = 0
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var waiter: CheckedContinuation<MediaReaderItem?, any Error>?
    /// The reading thread was started and has not ended yet.
    private var threadRunning = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

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
            waiter.resume(returning: item)
            return
        }
        items.append(item)
        monitor.signal(0)
        monitor.unlock()
    }

    /// Ends the items: `error` (unless the read was stopped by a cancellation) comes after them.
    func finish(_ error: (any Error)?) {
        monitor.lock()
        finished = true
        if !(error is Stopped) { failure = error }
        let waiter = self.waiter
        self.waiter = nil
        var result: Result<MediaReaderItem?, any Error> = .success(nil)
        if waiter != nil { result = endLocked() }
        monitor.broadcast(0)
        monitor.unlock()
        waiter?.resume(with: result)
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
        waiter?.resume(throwing: CancellationError())
    }

    /// The next item, waiting for it; `nil` at the end.
    func take() throws -> MediaReaderItem? {
        monitor.lock()
        defer { monitor.unlock() }
        while true {
            if let result = readyLocked() { return try result.get() }
            monitor.wait(0)
        }
    }

    /// The next item, suspending until it comes; `nil` at the end. Cancelling the task
    /// cancels the queue.
    func take() async throws -> MediaReaderItem? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MediaReaderItem?, any Error>) in
                monitor.lock()
                if let result = readyLocked() {
                    monitor.unlock()
                    continuation.resume(with: result)
                } else if waiter != nil {
                    monitor.unlock()
                    continuation.resume(throwing: NALUError(.unsupported, field: "MediaReader",
                                                            detail: "next() called while another call waits: one consumer at a time"))
                } else {
                    waiter = continuation
                    monitor.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// What a take gets now, or `nil` to wait (the monitor held).
    private func readyLocked() -> Result<MediaReaderItem?, any Error>? {
        if cancelled { return .failure(CancellationError()) }
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
    private func endLocked() -> Result<MediaReaderItem?, any Error> {
        if let failure {
            self.failure = nil
            return .failure(failure)
        }
        return .success(nil)
    }
}
