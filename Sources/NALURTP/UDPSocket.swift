#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// An IPv4 UDP endpoint: a dotted address and a port.
public struct UDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var address: String
    public var port: UInt16

    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// Parses `ADDRESS:PORT` (an IPv4 address in dotted form).
    /// - Throws: ``NALU/NALUError`` `.invalidValue` naming what is wrong.
    public init(parsing text: String) throws(NALUError) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw NALUError(.invalidValue, field: "address", detail: "\(text); expected ADDRESS:PORT with a port 1…65535")
        }
        let address = String(text[..<colon])
        guard UDPEndpoint.ipv4(address) != nil else {
            throw NALUError(.invalidValue, field: "address", detail: "\(address) is not a dotted IPv4 address")
        }
        self.init(address: address, port: port)
    }

    public var description: String { "\(address):\(port)" }

    /// The address in network byte order, or `nil` when it is not a dotted IPv4 address.
    static func ipv4(_ address: String) -> in_addr? {
        var value = in_addr()
        let parsed = address.withCString { inet_pton(AF_INET, $0, &value) }
        return parsed == 1 ? value : nil
    }

    func socketAddress() throws(NALUError) -> sockaddr_in {
        guard let host = Self.ipv4(address) else {
            throw NALUError(.invalidValue, field: "address", detail: "\(address) is not a dotted IPv4 address")
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = host
        return socketAddress
    }
}

/// A UDP socket (POSIX): bound to a local endpoint to receive, or sending to one destination.
/// Only the addresses given are used.
public final class UDPSocket {
    private let descriptor: Int32

    /// An unbound socket for sending.
    public init() throws(NALUError) {
        descriptor = socket(AF_INET, Self.datagram, 0)
        guard descriptor >= 0 else { throw Self.error("socket") }
    }

    /// A socket bound to `endpoint` for receiving (port 0: one the system picks, see
    /// ``localPort``), with a receive buffer of `receiveBuffer` bytes asked for.
    public init(bindingTo endpoint: UDPEndpoint, receiveBuffer: Int = 4 << 20) throws(NALUError) {
        descriptor = socket(AF_INET, Self.datagram, 0)
        guard descriptor >= 0 else { throw Self.error("socket") }
        var size = Int32(clamping: receiveBuffer)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address: sockaddr_in
        do {
            address = try endpoint.socketAddress()
        } catch {
            close(descriptor)
            throw error
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let failure = Self.error("bind \(endpoint)")
            close(descriptor)
            throw failure
        }
    }

    deinit { close(descriptor) }

    #if canImport(Glibc)
    private static let datagram = Int32(SOCK_DGRAM.rawValue)
    #else
    private static let datagram = SOCK_DGRAM
    #endif

    /// The local port the socket is bound to.
    public var localPort: UInt16? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return status == 0 ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Sends one datagram to `destination`.
    public func send(_ bytes: [UInt8], to destination: UDPEndpoint) throws(NALUError) {
        var address = try destination.socketAddress()
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw Self.error("send to \(destination)") }
    }

    /// The next datagram, waiting at most `timeoutMilliseconds`; `nil` on timeout.
    public func receive(timeoutMilliseconds: Int32) throws(NALUError) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw Self.error("poll")
        }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else {
            if errno == EINTR || errno == EAGAIN { return nil }
            throw Self.error("receive")
        }
        return Array(buffer[0..<count])
    }

    /// The next datagram and the endpoint it came from, waiting at most `timeoutMilliseconds`;
    /// `nil` on timeout.
    public func receiveWithSource(timeoutMilliseconds: Int32) throws(NALUError) -> (bytes: [UInt8], source: UDPEndpoint)? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw Self.error("poll")
        }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else {
            if errno == EINTR || errno == EAGAIN { return nil }
            throw Self.error("receive")
        }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        var host = address.sin_addr
        let name = inet_ntop(AF_INET, &host, &text, socklen_t(text.count)) == nil ? "0.0.0.0" : String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (Array(buffer[0..<count]), UDPEndpoint(address: name, port: UInt16(bigEndian: address.sin_port)))
    }

    private static func error(_ what: String) -> NALUError {
        NALUError(.io, field: "UDP socket", detail: "\(what): " + String(cString: strerror(errno)))
    }
}

/// A monotonic clock in nanoseconds (for reorder delays and pacing).
public enum MonotonicClock {
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Sleeps `nanoseconds` (nothing when not positive).
    public static func sleep(nanoseconds: Int64) {
        guard nanoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
