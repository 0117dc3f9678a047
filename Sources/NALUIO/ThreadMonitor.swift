#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex and the conditions waited on under it, shared by a helper thread
/// (``DetachedThread``) and the thread it works for: ``ReadAhead`` and NALUMedia's
/// `ParsingAhead`. The pthread objects live in memory of their own (a stable address, as
/// pthreads require) and are destroyed with this object.
package final class ThreadMonitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let conditionCount: Int

    /// A mutex and `conditions` conditions, numbered from 0.
    package init(conditions: Int = 1) {
        conditionCount = max(1, conditions)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.conditions = .allocate(capacity: conditionCount)
        self.conditions.initialize(repeating: pthread_cond_t(), count: conditionCount)
        for index in 0..<conditionCount { pthread_cond_init(self.conditions + index, nil) }
    }

    deinit {
        for index in 0..<conditionCount { pthread_cond_destroy(conditions + index) }
        conditions.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for condition `condition` (the mutex held, as `pthread_cond_wait` requires).
    package func wait(_ condition: Int = 0) { pthread_cond_wait(conditions + condition, mutex) }
    /// Wakes one thread waiting for `condition`.
    package func signal(_ condition: Int = 0) { pthread_cond_signal(conditions + condition) }
    /// Wakes every thread waiting for `condition`.
    package func broadcast(_ condition: Int = 0) { pthread_cond_broadcast(conditions + condition) }
}
