// The SDP reader (NALURTP's SessionDescription, RFC 8866 with the RFC 6184/7798 parameters) on
// untrusted text. Properties: nothing traps; a description read is written and read back with
// the same stream (codec, port, payload type, packetization, sprop-max-don-diff, and for H.264
// the parameter sets) and the same AAC stream (RFC 3640).
import NALU
import NALURTP

enum SDPHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let description = try? SessionDescription(parsing: text) else { return }
        _ = RTCPDescription(sdp: text, video: description.video)
        if let audio = description.audio { _ = RTCPDescription(sdp: text, audio: audio) }
        let again: SessionDescription
        do {
            again = try SessionDescription(parsing: description.text)
        } catch {
            throw FuzzPropertyViolation(description: "a description written does not read back: \(error)")
        }
        let (one, two) = (description.video, again.video)
        try fuzzCheck(one.codec == two.codec && one.port == two.port && one.payloadType == two.payloadType, "the stream changed")
        try fuzzCheck(one.packetizationMode == two.packetizationMode && one.maxDonDiff == two.maxDonDiff, "the packetization changed")
        if one.codec == .h264 { try fuzzCheck(one.parameterSets == two.parameterSets, "the parameter sets changed") }
        try fuzzCheck(description.audio == again.audio, "the AAC stream changed")
    }
}
