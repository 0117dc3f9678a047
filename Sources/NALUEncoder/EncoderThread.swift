#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex with a condition variable (POSIX threads), for the few places the package shares
/// state between threads.
package final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for ``signal()``; call with the lock held (inside ``withLock(_:)``).
    package func wait() { pthread_cond_wait(condition, mutex) }

    package func signal() { pthread_cond_signal(condition) }
}

/// A serial executor that runs every job on one thread of its own, outside Swift's cooperative
/// thread pool: what ``AsyncEncoderSession`` runs on, so a blocking encoder call (x265 takes tens
/// of milliseconds per frame) never holds a cooperative thread.
@available(macOS 14.0, iOS 17.0, *)
package final class EncoderThread: SerialExecutor, @unchecked Sendable {
    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var jobs: [UnownedJob] = []
    private var stopping = false

    package init() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        #if canImport(Darwin)
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<EncoderThread>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #else
        let status = pthread_create(&thread, nil, { context in
            if let context { Unmanaged<EncoderThread>.fromOpaque(context).takeRetainedValue().run() }
            return nil
        }, context)
        #endif
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<EncoderThread>.fromOpaque(context).release()
            // No thread: jobs run on the enqueuing thread instead (still serially, see enqueue).
            stopping = true
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let runHere = lock.withLock { () -> Bool in
            if stopping { return true }
            jobs.append(job)
            lock.signal()
            return false
        }
        if runHere { job.runSynchronously(on: asUnownedSerialExecutor()) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once its queue is empty.
    package func stop() {
        lock.withLock {
            stopping = true
            lock.signal()
        }
    }

    private func run() {
        while true {
            let next = lock.withLock { () -> UnownedJob? in
                while jobs.isEmpty && !stopping { lock.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
