#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a command-line tool built on nalu (the `nalu` executable among them) does on SIGINT,
/// SIGTERM, SIGHUP and SIGPIPE, so that an interrupted run leaves no temporary output file:
///
/// - By default (`nalu convert`, `info`, …) the first signal removes every temporary output file
///   (``TemporaryFileRegistry``), leaving any existing target untouched, and exits with
///   128 + the signal number (130, 143, 129).
/// - While ``finishOnSignal`` is set (`nalu encode`), the first signal is only recorded: the command
///   stops reading input, flushes the encoder, completes its output and exits with 128 + the
///   signal number. A second signal aborts at once, still removing the temporary files.
/// - SIGPIPE (the reader of standard output went away) removes the temporary files and ends the
///   process by SIGPIPE, quietly, as `cat` does under `head`.
/// - SIGXFSZ (a write past the file size limit, `ulimit -f`) is ignored: the write fails with
///   `EFBIG`, an I/O error (exit 74) that removes the temporary files.
///
/// The handler only reads and writes plain words, calls `unlink`, `signal`, `raise` and `_exit`:
/// all async-signal-safe.
public enum ProcessSignals {
    /// The first stopping signal received, or 0.
    nonisolated(unsafe) public static var received: Int32 = 0
    /// Whether the first stopping signal asks the command to finish its output (encode).
    nonisolated(unsafe) public static var finishOnSignal = false

    /// Installs the handlers.
    public static func install() {
        TemporaryFileRegistry.prepare()
        _ = received
        _ = finishOnSignal
        // A parent may hand down a mask that blocks them (a test runner's thread, a service
        // manager): unblock, or the handlers would never run.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] {
            setHandler(number)
            sigaddset(&unblock, number)
        }
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        // Past `ulimit -f` a write fails with EFBIG, an I/O error (74) like ENOSPC whose path
        // removes the temporary files, instead of SIGXFSZ killing the process and leaving them
        // (issue 40 item 15).
        signal(SIGXFSZ, SIG_IGN)
    }

    /// The exit status for a stop by `signal`: 128 + its number.
    public static func exitStatus(_ signal: Int32) -> Int32 { 128 + signal }

    /// Whether a stopping signal arrived.
    public static var stopRequested: Bool { received != 0 }

    private static func setHandler(_ number: Int32) {
        var action = sigaction()
        #if os(Linux)
        action.__sigaction_handler.sa_handler = handleSignal
        #else
        action.__sigaction_u.__sa_handler = handleSignal
        #endif
        sigemptyset(&action.sa_mask)
        // No SA_RESTART: a read blocked on a pipe returns EINTR, so encode can stop reading.
        action.sa_flags = 0
        sigaction(number, &action, nil)
    }
}

/// The signal handler (a C function pointer: no captures).
private func handleSignal(_ number: Int32) {
    if number == SIGPIPE {
        TemporaryFileRegistry.removeAll()
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(ProcessSignals.exitStatus(number))
    }
    if ProcessSignals.finishOnSignal && ProcessSignals.received == 0 {
        ProcessSignals.received = number
        return
    }
    TemporaryFileRegistry.removeAll()
    _exit(ProcessSignals.exitStatus(number))
}
