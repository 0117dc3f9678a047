public import NALU

/// An `rtsp://[user[:password]@]host[:port][/path]` URL (RFC 2326 3.2; RFC 7826 18.2).
public struct RTSPURL: Sendable, Hashable, CustomStringConvertible {
    /// The host: a name, a dotted IPv4 address, or an IPv6 address without its brackets.
    public var host: String
    /// The port (554 when the URL has none).
    public var port: UInt16
    /// The path with its leading `/` (`/` when empty), query included.
    public var path: String
    /// The user name and password given in the URL (percent-decoded), for authentication.
    public var user: String?
    public var password: String?

    /// Parses `text`.
    /// - Throws: `NALUError` `.invalidValue` naming `RTSP URL` and the byte offset of the part
    ///   that is wrong (scheme, host, port).
    public init(parsing text: String) throws(NALUError) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("rtsp://") else {
            throw NALUError(.invalidValue, field: "RTSP URL", byteOffset: 0, detail: "not rtsp://HOST[:PORT]/PATH")
        }
        var rest = Substring(text.dropFirst("rtsp://".count))
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        path = authorityEnd == rest.endIndex ? "/" : String(rest[authorityEnd...])
        rest = authority
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = info.firstIndex(of: ":") {
                user = Self.percentDecoded(info[..<colon])
                password = Self.percentDecoded(info[info.index(after: colon)...])
            } else {
                user = Self.percentDecoded(info)
            }
        }
        let hostOffset = Int64(text.utf8.count - rest.utf8.count + (rest.utf8.count - authority.utf8.count))
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw NALUError(.invalidValue, field: "RTSP URL host", byteOffset: hostOffset, detail: "no ] after the IPv6 address")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw NALUError(.invalidValue, field: "RTSP URL host", byteOffset: hostOffset, detail: "text after the IPv6 address")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw NALUError(.invalidValue, field: "RTSP URL host", byteOffset: hostOffset, detail: "empty or not ASCII")
        }
        if let portText {
            guard let number = UInt16(portText), number > 0 else {
                throw NALUError(.invalidValue, field: "RTSP URL port", byteOffset: hostOffset + Int64(host.utf8.count + 1), detail: "not 1…65535")
            }
            port = number
        } else {
            port = 554
        }
    }

    /// The URL without the user information (what requests carry).
    public var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "rtsp://\(name):\(port)\(path)"
    }

    /// `reference` (an `a=control` or `Location` value) against this URL (RFC 3986 5.2, the
    /// cases RTSP servers send: absolute, `*`, absolute path, relative).
    public func resolving(_ reference: String) -> String {
        if reference.lowercased().hasPrefix("rtsp://") || reference.lowercased().hasPrefix("rtsps://") { return reference }
        if reference.isEmpty || reference == "*" { return description }
        let name = host.contains(":") ? "[\(host)]" : host
        if reference.hasPrefix("/") { return "rtsp://\(name):\(port)\(reference)" }
        let base = description.hasSuffix("/") ? description : description + "/"
        return base + reference
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
