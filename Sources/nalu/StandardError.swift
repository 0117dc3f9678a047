#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes diagnostics to standard error.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            _ = fwrite(base, 1, bytes.count, stderr)
        }
        fflush(stderr)
    }

    /// Whether standard error is a terminal (for progress lines).
    static var isTerminal: Bool { isatty(2) == 1 }
}

/// Ends the process with `status`.
func exitProcess(_ status: Int32) -> Never {
    exit(status)
}
