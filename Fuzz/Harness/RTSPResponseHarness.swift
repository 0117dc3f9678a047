// The RTSP response parser (NALURTPMedia's RTSPResponse, RFC 2326 7 / RFC 7826 8) on untrusted
// bytes. Properties: nothing traps; a response read took between 1 and all of the bytes, its body
// is its Content-Length, reading exactly the bytes it took gives the same response, and half of
// them asks for more (nil) rather than giving another response.
import NALU
import NALURTPMedia

enum RTSPResponseHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        guard let (response, consumed) = try? RTSPResponse.parse(bytes[...], base: 0) else { return }
        try fuzzCheck(consumed > 0 && consumed <= bytes.count, "consumed \(consumed) of \(bytes.count) bytes")
        try fuzzCheck(response.body.count <= RTSPResponse.maxBodyBytes, "a body over the limit")
        if let length = response.header("Content-Length") {
            try fuzzCheck(Int(length) == response.body.count, "the body is not Content-Length bytes")
        }
        guard let again = try? RTSPResponse.parse(bytes[0..<consumed]) else {
            throw FuzzPropertyViolation(description: "the bytes a response took do not read back")
        }
        try fuzzCheck(again.response == response && again.consumed == consumed, "reading the bytes taken gives another response")
        let half = try? RTSPResponse.parse(bytes[0..<(consumed / 2)])
        try fuzzCheck(half == nil, "half of a response reads as a response")
    }
}
