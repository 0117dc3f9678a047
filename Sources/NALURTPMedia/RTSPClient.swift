public import NALU
import NALURTP

/// One frame of interleaved data on the RTSP connection (RFC 2326 10.12: `$`, channel, 16-bit
/// length, data).
public struct RTSPInterleavedFrame: Sendable, Hashable {
    public var channel: UInt8
    public var payload: [UInt8]
}

/// An RTSP client (RFC 2326; RFC 7826 where a server speaks it) on one TCP connection to the
/// URL's host: OPTIONS, DESCRIBE (Basic and Digest authentication, 3xx redirects on the same
/// host followed at most ``maxRedirects`` times), SETUP, PLAY, GET_PARAMETER, TEARDOWN, and the
/// interleaved RTP/RTCP frames that come on the connection. Network access goes only to the
/// URL's host.
public final class RTSPClient {
    /// Redirects followed at most.
    public static let maxRedirects = 5
    /// Interleaved frames held while waiting for a response, at most.
    public static let maxHeldFrames = 4096

    /// The URL requests go to (after redirects).
    public private(set) var url: RTSPURL
    private var connection: TCPConnection
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Offset in the connection's stream of `buffer[0]`.
    private var bufferBase: Int64 = 0
    private var cseq = 0
    private var authenticator: RTSPAuthenticator?
    private var held: [RTSPInterleavedFrame] = []
    private let timeoutMilliseconds: Int64
    /// The `Session` identifier the server gave at SETUP.
    public private(set) var session: String?
    /// The session timeout in seconds (RFC 2326 12.37; 60 when the server gives none).
    public private(set) var sessionTimeout = 60

    /// Connects to `url`'s host; a response must come within `timeoutSeconds`.
    public init(url: RTSPURL, timeoutSeconds: Int = 10) throws(NALUError) {
        self.url = url
        timeoutMilliseconds = Int64(timeoutSeconds) * 1000
        connection = try TCPConnection(host: url.host, port: url.port, timeoutSeconds: timeoutSeconds)
    }

    /// Sends `method` for `uri` with `headers` and returns the response with the same CSeq;
    /// a 401 is answered once with the URL's credentials (Digest or Basic).
    /// - Throws: `NALUError`: `.io` for the connection (or no response in time), the parser's
    ///   errors, `.invalidValue` (field `RTSP <METHOD>`) for a status other than 2xx/3xx.
    @discardableResult
    public func request(_ method: String, uri: String? = nil, headers: [(String, String)] = []) throws(NALUError) -> RTSPResponse {
        let target = uri ?? url.description
        var response = try exchange(method, uri: target, headers: headers)
        if response.statusCode == 401, authenticator == nil, let user = url.user {
            authenticator = RTSPAuthenticator(challenges: response.headers("WWW-Authenticate"), user: user, password: url.password ?? "")
            if authenticator != nil { response = try exchange(method, uri: target, headers: headers) }
        }
        guard (200..<400).contains(response.statusCode) else {
            var detail = "\(response.statusCode) \(response.reason)"
            if response.statusCode == 401 { detail += url.user == nil ? " (give rtsp://USER:PASSWORD@…)" : " (the credentials were refused)" }
            throw NALUError(.invalidValue, field: "RTSP \(method) \(target)", detail: detail)
        }
        return response
    }

    /// OPTIONS (RFC 2326 10.1): the methods the server takes (`Public`).
    public func options() throws(NALUError) -> [String] {
        let response = try request("OPTIONS")
        return (response.header("Public") ?? "").split(separator: ",").map { $0.trimmingCharacters() }
    }

    /// DESCRIBE (RFC 2326 10.2) with `Accept: application/sdp`, following 3xx `Location`s on the
    /// same host. Returns the SDP text and the base URL its `a=control` values resolve against.
    public func describe() throws(NALUError) -> (sdp: String, base: RTSPURL) {
        for _ in 0...Self.maxRedirects {
            let response = try request("DESCRIBE", headers: [("Accept", "application/sdp")])
            if (300..<400).contains(response.statusCode) {
                guard let location = response.header("Location") else {
                    throw NALUError(.missing, field: "RTSP Location", detail: "\(response.statusCode) without a Location")
                }
                let target = try RTSPURL(parsing: url.resolving(location))
                guard target.host == url.host else {
                    throw NALUError(.unsupported, field: "RTSP Location", detail: "\(location): another host (network access goes only to \(url.host))")
                }
                // A new connection to the new port (same host): the old one's unread bytes dropped.
                connection = try TCPConnection(host: target.host, port: target.port)
                buffer = []
                readIndex = 0
                bufferBase = 0
                authenticator = nil
                var moved = target
                moved.user = url.user
                moved.password = url.password
                url = moved
                continue
            }
            let base = (response.header("Content-Base") ?? response.header("Content-Location")).flatMap { try? RTSPURL(parsing: $0) } ?? url
            return (String(decoding: response.body, as: UTF8.self), base)
        }
        throw NALUError(.invalidValue, field: "RTSP Location", detail: "more than \(Self.maxRedirects) redirects")
    }

    /// SETUP (RFC 2326 10.4) of the stream at `control` with `transport`; keeps the `Session`
    /// and its timeout. Returns the server's `Transport`.
    public func setup(_ control: String, transport: String) throws(NALUError) -> String {
        var headers = [("Transport", transport)]
        if let session { headers.append(("Session", session)) }
        let response = try request("SETUP", uri: control, headers: headers)
        guard let value = response.header("Session") else { throw NALUError(.missing, field: "RTSP Session", detail: "SETUP answered without one") }
        let parts = value.split(separator: ";")
        session = parts.first.map { $0.trimmingCharacters() }
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters().lowercased() == "timeout", let seconds = Int(pair[1].trimmingCharacters()),
               (1...86_400).contains(seconds) {
                sessionTimeout = seconds
            }
        }
        return response.header("Transport") ?? ""
    }

    /// PLAY (RFC 2326 10.5) from the start of the session. The response's `RTP-Info` (12.33)
    /// gives each stream's RTP time at the start (``RTSPRTPInfo``).
    @discardableResult
    public func play() throws(NALUError) -> RTSPResponse {
        try request("PLAY", headers: sessionHeaders + [("Range", "npt=0.000-")])
    }

    /// Sends GET_PARAMETER (RFC 2326 10.8) as a keep-alive without waiting for its answer
    /// (``nextFrame(timeoutMilliseconds:)`` takes it off the connection).
    public func sendKeepAlive() throws(NALUError) {
        try send("GET_PARAMETER", uri: url.description, headers: sessionHeaders)
    }

    /// TEARDOWN (RFC 2326 10.7) of the session.
    public func teardown() throws(NALUError) {
        guard session != nil else { return }
        try request("TEARDOWN", headers: sessionHeaders)
        session = nil
    }

    /// The next interleaved frame, waiting at most `timeoutMilliseconds`; `nil` on timeout.
    /// Responses (keep-alive answers) on the way are read and dropped.
    public func nextFrame(timeoutMilliseconds: Int32) throws(NALUError) -> RTSPInterleavedFrame? {
        if !held.isEmpty { return held.removeFirst() }
        let deadline = MonotonicClock.now() + Int64(timeoutMilliseconds) * 1_000_000
        while true {
            switch try nextMessage() {
            case .frame(let frame): return frame
            case .response: continue
            case nil:
                let left = (deadline - MonotonicClock.now()) / 1_000_000
                if left <= 0 { return nil }
                _ = try connection.receive(into: &buffer, timeoutMilliseconds: Int32(clamping: left))
            }
        }
    }

    /// Sends `payload` as an interleaved frame on `channel` (RFC 2326 10.12: `$`, channel,
    /// 16-bit length, data), e.g. RTCP on the RTCP channel.
    /// - Throws: `NALUError`: `.tooLarge` for a payload over 65 535 bytes; `.io` for the connection.
    public func sendInterleaved(channel: UInt8, _ payload: [UInt8]) throws(NALUError) {
        guard let length = UInt16(exactly: payload.count) else {
            throw NALUError(.tooLarge, field: "RTSP interleaved frame", detail: "\(payload.count) bytes; at most 65535")
        }
        try connection.send([UInt8(ascii: "$"), channel, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
    }

    private var sessionHeaders: [(String, String)] { session.map { [("Session", $0)] } ?? [] }

    private enum Message {
        case frame(RTSPInterleavedFrame)
        case response(RTSPResponse)
    }

    private func send(_ method: String, uri: String, headers: [(String, String)]) throws(NALUError) {
        cseq += 1
        var text = "\(method) \(uri) RTSP/1.0\r\nCSeq: \(cseq)\r\nUser-Agent: nalu\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if authenticator != nil { text += "Authorization: \(authenticator!.authorization(method: method, uri: uri))\r\n" }
        try connection.send(Array((text + "\r\n").utf8))
    }

    private func exchange(_ method: String, uri: String, headers: [(String, String)]) throws(NALUError) -> RTSPResponse {
        try send(method, uri: uri, headers: headers)
        let wanted = cseq
        let deadline = MonotonicClock.now() + timeoutMilliseconds * 1_000_000
        while true {
            switch try nextMessage() {
            case .frame(let frame):
                if held.count < Self.maxHeldFrames { held.append(frame) }
            case .response(let response):
                if response.cseq == wanted { return response }
            case nil:
                let left = (deadline - MonotonicClock.now()) / 1_000_000
                guard left > 0 else { throw NALUError(.io, field: "RTSP \(method)", detail: "no answer from \(connection.peer) in time") }
                _ = try connection.receive(into: &buffer, timeoutMilliseconds: Int32(clamping: left))
            }
        }
    }

    /// The message at the read position, or `nil` when more bytes are needed.
    private func nextMessage() throws(NALUError) -> Message? {
        defer { compact() }
        let available = buffer.count - readIndex
        guard available > 0 else { return nil }
        let offset = bufferBase + Int64(readIndex)
        if buffer[readIndex] == 0x24 {
            guard available >= 4 else { return nil }
            let length = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
            guard available >= 4 + length else { return nil }
            let frame = RTSPInterleavedFrame(channel: buffer[readIndex + 1], payload: Array(buffer[(readIndex + 4)..<(readIndex + 4 + length)]))
            readIndex += 4 + length
            return .frame(frame)
        }
        guard buffer[readIndex] == UInt8(ascii: "R") else {
            throw NALUError(.invalidValue, field: "RTSP message", byteOffset: offset, detail: "neither a response nor $ interleaved data")
        }
        guard let (response, consumed) = try RTSPResponse.parse(buffer[readIndex...], base: offset) else { return nil }
        readIndex += consumed
        return .response(response)
    }

    /// Drops the bytes read once they are many (amortized linear).
    private func compact() {
        guard readIndex > 65_536, readIndex * 2 > buffer.count else { return }
        buffer.removeFirst(readIndex)
        bufferBase += Int64(readIndex)
        readIndex = 0
    }
}
