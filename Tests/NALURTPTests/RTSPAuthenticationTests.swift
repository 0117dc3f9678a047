import Testing
@testable import NALURTPMedia

/// MD5 (RFC 1321 A.5's test suite) and the Digest answer of RFC 2617 3.5's example, computed
/// without qop (RFC 2069 form, what GStreamer's server asks for) and checked against the
/// RFC's own values.
struct RTSPAuthenticationTests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5MatchesRFC1321(message: String, digest: String) {
        #expect(MD5.hex(Array(message.utf8)) == digest)
    }

    @Test func digestAnswersTheRFC2617Example() throws {
        let challenge = #"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
        var authenticator = try #require(RTSPAuthenticator(challenges: [challenge], user: "Mufasa", password: "Circle Of Life"))
        let value = authenticator.authorization(method: "GET", uri: "/dir/index.html")
        // MD5(MD5(A1):nonce:MD5(A2)) for the RFC's A1 and A2 (RFC 2617 3.2.2.1, no qop).
        let ha1 = MD5.hex(Array("Mufasa:testrealm@host.com:Circle Of Life".utf8))
        let ha2 = MD5.hex(Array("GET:/dir/index.html".utf8))
        #expect(ha1 == "939e7578ed9e3c518a452acee763bce9")  // RFC 2617 3.5's HA1
        #expect(value.contains(#"response="\#(MD5.hex(Array("\(ha1):dcd98b7102dd2f0e8b11d0f600bfb0c093:\(ha2)".utf8)))""#))
        #expect(value.contains(#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#) && value.hasPrefix(#"Digest username="Mufasa""#))
        #expect(RTSPAuthenticator(challenges: [#"Digest realm="r", nonce="n", algorithm=SHA-256"#], user: "u", password: "p") == nil)
        var basic = try #require(RTSPAuthenticator(challenges: [#"Basic realm="x""#], user: "Aladdin", password: "open sesame"))
        #expect(basic.authorization(method: "DESCRIBE", uri: "rtsp://h/") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")  // RFC 7617 2
    }
}
