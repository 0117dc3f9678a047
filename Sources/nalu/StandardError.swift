#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes diagnostics to standard error (file descriptor 2, unbuffered).
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var base = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = systemWrite(2, base, remaining)
                if written < 0 { if errno == EINTR { continue } else { return } }
                remaining -= written
                base += written
            }
        }
    }

    /// Whether standard error is a terminal (for progress lines).
    static var isTerminal: Bool { isatty(2) == 1 }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// Ends the process with `status`.
func exitProcess(_ status: Int32) -> Never {
    exit(status)
}
