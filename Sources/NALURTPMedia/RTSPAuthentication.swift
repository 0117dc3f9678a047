import NALU
import NALURTP

/// A challenge of `WWW-Authenticate` (RFC 2617 section 1.2, 3.2.1), and the `Authorization`
/// header that answers it: Basic (RFC 2617 2) or Digest with MD5 (RFC 2617 3.2.2).
struct RTSPAuthenticator {
    enum Scheme { case basic, digest }
    let scheme: Scheme
    let parameters: [String: String]
    let user: String
    let password: String
    private var nonceCount = 0

    /// The strongest challenge among `values` (Digest before Basic); `nil` when none is known.
    init?(challenges values: [String], user: String, password: String) {
        var chosen: (Scheme, [String: String])?
        for value in values {
            let trimmed = value.trimmingSpaces()
            if trimmed.lowercased().hasPrefix("digest ") {
                chosen = (.digest, Self.parameters(trimmed.dropFirst("digest ".count)))
                break
            }
            if trimmed.lowercased().hasPrefix("basic") && chosen == nil { chosen = (.basic, [:]) }
        }
        guard let (scheme, parameters) = chosen else { return nil }
        if scheme == .digest, parameters["nonce"] == nil || (parameters["algorithm"].map { $0.lowercased() != "md5" } ?? false) { return nil }
        self.scheme = scheme
        self.parameters = parameters
        self.user = user
        self.password = password
    }

    /// The `Authorization` value for `method` on `uri`.
    mutating func authorization(method: String, uri: String) -> String {
        switch scheme {
        case .basic:
            return "Basic " + Base64.encode(Array("\(user):\(password)".utf8))
        case .digest:
            let realm = parameters["realm"] ?? ""
            let nonce = parameters["nonce"] ?? ""
            let ha1 = MD5.hex(Array("\(user):\(realm):\(password)".utf8))
            let ha2 = MD5.hex(Array("\(method):\(uri)".utf8))
            var value = "Digest username=\"\(user)\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\""
            let qops = (parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters() }
            if qops.contains("auth") {
                nonceCount += 1
                let digits = String(nonceCount, radix: 16)
                let nc = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
                let cnonce = MD5.hex(Array("\(nonce):\(nonceCount)".utf8)).prefix(16)
                let response = MD5.hex(Array("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)".utf8))
                value += ", qop=auth, nc=\(nc), cnonce=\"\(cnonce)\", response=\"\(response)\""
            } else {
                value += ", response=\"\(MD5.hex(Array("\(ha1):\(nonce):\(ha2)".utf8)))\""
            }
            if let opaque = parameters["opaque"] { value += ", opaque=\"\(opaque)\"" }
            return value + ", algorithm=MD5"
        }
    }

    /// `name=value` and `name="value"` pairs separated by commas (names lowercased).
    static func parameters(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty, result.count < 32 {
            rest = rest.drop { $0 == " " || $0 == "," || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters().lowercased()
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.hasPrefix("\"") {
                rest = rest.dropFirst()
                let close = rest.firstIndex(of: "\"") ?? rest.endIndex
                value = rest[..<close]
                rest = close == rest.endIndex ? rest[close...] : rest[rest.index(after: close)...]
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = rest[comma...]
            }
            result[name] = value.trimmingCharacters()
        }
        return result
    }
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingSpaces() }
}
