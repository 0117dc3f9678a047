// The RTCP compound packet reader (NALURTP's RTCPCompoundPacket: RFC 3550 SR/RR/SDES/BYE,
// RFC 4585/5104 feedback) on untrusted datagrams. Properties: nothing traps; a compound packet
// read is written and read back equal, and writing that again gives the same bytes.
import NALU
import NALURTP

enum RTCPHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        guard let compound = try? RTCPCompoundPacket(parsing: bytes) else { return }
        let written = compound.bytes
        let again: RTCPCompoundPacket
        do {
            again = try RTCPCompoundPacket(parsing: written)
        } catch {
            throw FuzzPropertyViolation(description: "a compound packet written does not read back: \(error)")
        }
        try fuzzCheck(again == compound, "the compound packet changed when written and read back")
        try fuzzCheck(again.bytes == written, "writing the packet read back gives other bytes")
        try fuzzCheck(written.count <= bytes.count, "the packet written is longer than the one read")
    }
}
