public import NALU

/// An RTSP response (RFC 2326 section 7, RFC 7826 section 8): status line, headers and a
/// `Content-Length` body, parsed with bounded sizes.
public struct RTSPResponse: Sendable, Hashable {
    /// Largest status line plus header section, in bytes.
    public static let maxHeaderBytes = 16 * 1024
    /// Most header lines.
    public static let maxHeaders = 64
    /// Largest body (`Content-Length`), in bytes.
    public static let maxBodyBytes = 1 << 20

    /// `RTSP/1.0` or `RTSP/2.0`.
    public var version: String
    /// The Status-Code (RFC 2326 7.1.1), 100…999.
    public var statusCode: Int
    /// The Reason-Phrase.
    public var reason: String
    /// The headers in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The message body (`Content-Length` bytes).
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive, RFC 2326 4.2).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// Every value of header `name` (case-insensitive).
    public func headers(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The `CSeq` header as a number.
    public var cseq: Int? { header("CSeq").flatMap { Int($0.trimmingSpaces()) } }

    public static func == (lhs: RTSPResponse, rhs: RTSPResponse) -> Bool {
        lhs.version == rhs.version && lhs.statusCode == rhs.statusCode && lhs.reason == rhs.reason && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(body)
    }

    public init(version: String, statusCode: Int, reason: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.version = version
        self.statusCode = statusCode
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// Parses one response at the start of `bytes`; `nil` when more bytes are needed.
    /// `base` is the offset of `bytes` in the connection's stream, for errors.
    /// - Returns: the response and the bytes it took.
    /// - Throws: `NALUError` naming the field (`RTSP status line`, `RTSP header`, `Content-Length`)
    ///   and the byte offset, for a malformed response or one over the limits.
    public static func parse(_ bytes: ArraySlice<UInt8>, base: Int64 = 0) throws(NALUError) -> (response: RTSPResponse, consumed: Int)? {
        let start = bytes.startIndex
        // Find the end of the header section (CRLF CRLF; a bare LF LF accepted too).
        var end: Int?
        var bodyStart = 0
        var index = start
        let limit = min(bytes.endIndex, start + maxHeaderBytes)
        while index < limit {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A {
                    end = index; bodyStart = index + 2; break
                }
                if index + 2 < bytes.endIndex, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
                    end = index; bodyStart = index + 3; break
                }
            }
            index += 1
        }
        guard let headerEnd = end else {
            if bytes.count >= maxHeaderBytes {
                throw NALUError(.tooLarge, field: "RTSP header section", byteOffset: base + Int64(maxHeaderBytes),
                                detail: "no empty line within \(maxHeaderBytes) bytes")
            }
            return nil
        }
        // Split into lines.
        var lines: [(text: String, offset: Int)] = []
        var lineStart = start
        var position = start
        while position <= headerEnd {
            if bytes[position] == 0x0A {
                var lineEnd = position
                if lineEnd > lineStart, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                lines.append((String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self), lineStart - start))
                lineStart = position + 1
                guard lines.count <= maxHeaders + 1 else {
                    throw NALUError(.tooLarge, field: "RTSP header", byteOffset: base + Int64(lineStart - start), detail: "more than \(maxHeaders) headers")
                }
            }
            position += 1
        }
        guard let statusLine = lines.first else {
            throw NALUError(.invalidValue, field: "RTSP status line", byteOffset: base, detail: "empty")
        }
        let parts = statusLine.text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "RTSP/1.0" || parts[0] == "RTSP/2.0" else {
            throw NALUError(.invalidValue, field: "RTSP status line", byteOffset: base, detail: "not RTSP/1.0 or RTSP/2.0 STATUS REASON")
        }
        guard parts[1].utf8.count == 3, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let code = Int(parts[1]), code >= 100 else {
            throw NALUError(.invalidValue, field: "RTSP Status-Code", byteOffset: base + Int64(parts[0].utf8.count + 1),
                            detail: "not three digits 100…999")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            if let first = line.text.utf8.first, first == 0x20 || first == 0x09, !headers.isEmpty {
                // A continuation line (RFC 2616 2.2 LWS).
                headers[headers.count - 1].value += " " + line.text.trimmingSpaces()
                continue
            }
            guard let colon = line.text.firstIndex(of: ":"), colon != line.text.startIndex else {
                throw NALUError(.invalidValue, field: "RTSP header", byteOffset: base + Int64(line.offset), detail: "no NAME: VALUE")
            }
            headers.append((String(line.text[..<colon]), String(line.text[line.text.index(after: colon)...]).trimmingSpaces()))
        }
        var length = 0
        if let value = headers.first(where: { $0.name.lowercased() == "content-length" }) {
            let text = value.value
            guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(text) else {
                throw NALUError(.invalidValue, field: "Content-Length", byteOffset: base, detail: "not a decimal number")
            }
            guard number <= maxBodyBytes else {
                throw NALUError(.tooLarge, field: "Content-Length", byteOffset: base, detail: "\(number) bytes; at most \(maxBodyBytes)")
            }
            length = number
        }
        guard bytes.endIndex - bodyStart >= length else { return nil }
        let body = Array(bytes[bodyStart..<(bodyStart + length)])
        let response = RTSPResponse(version: String(parts[0]), statusCode: code, reason: parts.count > 2 ? String(parts[2]) : "",
                                    headers: headers, body: body)
        return (response, bodyStart + length - start)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
