#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Descriptors 0–2 at a command-line tool's start-up (issue 32 item 4; `nalu` calls it first).
public enum StandardDescriptors {
    /// Opens /dev/null on each of standard input, output and error that is closed, in that
    /// order, as coreutils and OpenSSH do. Otherwise the next file the process opens (the input, an
    /// output's temporary file) would take the number, and what is printed to standard error
    /// (warnings, the encoder libraries' logs) would be written into it. An `open` always takes
    /// the lowest free number, so the descriptor opened is the closed one.
    /// A process that cannot do so exits with 71 (`EX_OSERR`) at once.
    public static func openClosedOnes() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened != descriptor {
                // /dev/null missing or another number taken: nothing safe to write to; stop
                // rather than write the output's bytes somewhere unexpected.
                if opened >= 0 { close(opened) }
                _exit(71) // EX_OSERR
            }
        }
    }
}
