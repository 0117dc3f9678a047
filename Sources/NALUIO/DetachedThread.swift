#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the helper threads of ``ReadAhead`` and of NALUMedia's `ParsingAhead`: detached
/// (nothing joins them; a caller that must wait for one does so itself) and with every signal
/// blocked, so the process's handlers run on its other threads (the thread inherits the mask
/// set around its creation: no signal can reach it before it runs).
package enum DetachedThread {
    /// Runs `body` on a new thread; `false` when none could be created.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        let created = pthread_create(&thread, nil, detachedThreadEntry, context)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
        return true
    }

    /// The closure, boxed to pass through `pthread_create`'s context pointer.
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

#if canImport(Darwin)
private func detachedThreadEntry(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    Unmanaged<DetachedThread.Body>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
#else
private func detachedThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<DetachedThread.Body>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
#endif
