#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU

/// A TCP connection to one host and port (the RTSP control connection, RFC 2326 10.12's
/// interleaved data on it too). Connects within a bounded time; reads with a timeout.
final class TCPConnection {
    private let descriptor: Int32
    /// The peer, `HOST:PORT`, for errors.
    let peer: String

    /// Connects to `host`:`port` (a name or a numeric IPv4/IPv6 address), trying each address
    /// the resolver gives, waiting at most `timeoutSeconds` for each.
    init(host: String, port: UInt16, timeoutSeconds: Int = 10) throws(NALUError) {
        peer = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw NALUError(.io, field: "RTSP connection", detail: "\(peer): cannot resolve: " + String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var current: UnsafeMutablePointer<addrinfo>? = first
        var lastError = "no address"
        while let entry = current {
            let candidate = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            if candidate >= 0 {
                var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                _ = setsockopt(candidate, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if connect(candidate, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    _ = setsockopt(candidate, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    descriptor = candidate
                    return
                }
                lastError = String(cString: strerror(errno))
                close(candidate)
            }
            current = entry.pointee.ai_next
        }
        throw NALUError(.io, field: "RTSP connection", detail: "\(peer): cannot connect: \(lastError)")
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(NALUError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, 0)
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw NALUError(.io, field: "RTSP connection", detail: "\(peer): send: " + String(cString: strerror(errno)))
            }
            sent += count
        }
    }

    /// Appends what arrives within `timeoutMilliseconds` (at most 64 KiB) to `buffer`.
    /// - Returns: bytes read; 0 on timeout.
    /// - Throws: `.io` when the peer closed the connection or the read failed.
    func receive(into buffer: inout [UInt8], timeoutMilliseconds: Int32) throws(NALUError) -> Int {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return 0 }
            throw NALUError(.io, field: "RTSP connection", detail: "\(peer): poll: " + String(cString: strerror(errno)))
        }
        guard ready > 0 else { return 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return 0 }
            throw NALUError(.io, field: "RTSP connection", detail: "\(peer): receive: " + String(cString: strerror(errno)))
        }
        guard count > 0 else { throw NALUError(.io, field: "RTSP connection", detail: "\(peer): closed by the server") }
        buffer += chunk[0..<count]
        return count
    }
}
