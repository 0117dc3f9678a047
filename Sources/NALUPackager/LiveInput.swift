#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
import NALUIO
import NALUTS
import NALUMedia

/// A pipe, FIFO or file read as a live packager needs it: each read returns what has arrived
/// (it waits for at least one byte, never for a full buffer), and every 100 ms of waiting it asks
/// `shouldStop`; when that says yes, the input ends there (the packager then completes the last
/// segment and ends the playlists).
public final class LiveInput: ByteSource {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let shouldStop: () -> Bool
    /// Bytes read so far.
    public private(set) var bytesRead: Int64 = 0
    /// Whether the input ended because `shouldStop` said so (not at its end): what was read last
    /// may stop inside a picture.
    public private(set) var stopped = false

    /// Opens `path` (`"-"`: standard input).
    /// - Throws: ``NALU/NALUError`` `.io` when it cannot be opened.
    public init(path: String, shouldStop: @escaping () -> Bool = { false }) throws {
        self.shouldStop = shouldStop
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            // A FIFO's open waits for a writer: a signal interrupts it (EINTR), which ends the
            // run when `shouldStop` says so (the command then exits 128 + the signal).
            var opened: Int32
            repeat {
                opened = open(path, O_RDONLY | O_CLOEXEC)
            } while opened < 0 && errno == EINTR && !shouldStop()
            descriptor = opened
            guard descriptor >= 0 else {
                throw NALUError(.io, field: path, detail: String(cString: strerror(errno)))
            }
            ownsDescriptor = true
        }
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// The file read (device and inode), which the package may not replace.
    var identity: FileIdentity? { FileIdentity(descriptor: descriptor) }

    /// Reads what has arrived, at least one byte (waiting for it), or 0 at the input's end or
    /// when `shouldStop` said so.
    /// - Throws: ``NALU/NALUError`` `.io` naming the input and the bytes read before, with the
    ///   system's reason.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if stopped || shouldStop() {
                stopped = true
                return 0
            }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: "input", byteOffset: bytesRead, detail: String(cString: strerror(errno)))
            }
            if ready == 0 { continue }
            let count = systemRead(descriptor, base, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw NALUError(.io, field: "input", byteOffset: bytesRead, detail: String(cString: strerror(errno)))
            }
            bytesRead += Int64(count)
            return count
        }
    }
}

/// Caps each read of a source at `limit` bytes, so a reader that fills its whole buffer before
/// it returns (``NALUTS/TransportStreamReader``) hands on what has arrived without waiting for more.
struct ChunkedSource<Source: ByteSource>: ByteSource {
    var source: Source
    let limit: Int

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, limit)]))
    }
}

/// `read(2)` (the method of the same name hides it inside ``LiveInput``).
private func systemRead(_ descriptor: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, base, count)
}
