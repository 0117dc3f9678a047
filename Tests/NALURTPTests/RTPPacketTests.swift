import Testing
import NALU
@testable import NALURTP

/// RFC 3550 5.1 header fields, the CSRC list, a header extension (5.3.1) and padding, and the
/// wrap-around of sequence numbers and timestamps.
@Suite struct RTPPacketTests {
    @Test func writesAndReadsTheFixedHeader() throws {
        let packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 0xFFFE, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304,
                               contributingSources: [7, 8], payload: [0x65, 1, 2, 3])
        let bytes = packet.bytes
        #expect(bytes.count == 12 + 8 + 4)
        #expect(bytes[0] == 0x82)  // V=2, P=0, X=0, CC=2
        #expect(bytes[1] == 0x80 | 96)
        let read = try RTPPacket(parsing: bytes)
        #expect(read == packet)
    }

    @Test func skipsAHeaderExtensionAndRemovesPadding() throws {
        // V=2 P=1 X=1 CC=1; extension of 2 words; payload 3 bytes; 4 padding bytes (count 4).
        var bytes: [UInt8] = [0xB1, 0x60, 0x00, 0x05, 0, 0, 0x0B, 0xB8, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 9]
        bytes += [0xBE, 0xDE, 0x00, 0x02, 1, 2, 3, 4, 5, 6, 7, 8]
        bytes += [0x41, 0x9A, 0x02]
        bytes += [0, 0, 0, 4]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payload == [0x41, 0x9A, 0x02])
        #expect(packet.contributingSources == [9])
        #expect(packet.hadHeaderExtension)
        #expect(packet.paddingCount == 4)
        #expect(packet.sequenceNumber == 5 && packet.timestamp == 3000 && packet.payloadType == 0x60)
    }

    @Test func refusesMalformedHeadersWithTheirField() {
        #expect { try RTPPacket(parsing: [0x80, 96, 0, 1]) } throws: { ($0 as? NALUError)?.field == "RTP fixed header" }
        #expect { try RTPPacket(parsing: [0x40] + [UInt8](repeating: 0, count: 11)) } throws: { ($0 as? NALUError)?.field == "RTP version" }
        // CC = 3 with no CSRC bytes.
        #expect { try RTPPacket(parsing: [0x83] + [UInt8](repeating: 0, count: 11)) } throws: { ($0 as? NALUError)?.field == "CSRC list" }
        // Extension length past the packet.
        let extended: [UInt8] = [0x90] + [UInt8](repeating: 0, count: 11) + [0, 0, 0xFF, 0xFF]
        #expect { try RTPPacket(parsing: extended) } throws: { ($0 as? NALUError)?.field == "RTP header extension length" }
        // Padding count larger than the payload.
        let padded: [UInt8] = [0xA0] + [UInt8](repeating: 0, count: 11) + [1, 2, 200]
        #expect { try RTPPacket(parsing: padded) } throws: { ($0 as? NALUError)?.field == "RTP padding" }
        // Padding count 0.
        let zero: [UInt8] = [0xA0] + [UInt8](repeating: 0, count: 11) + [1, 0]
        #expect { try RTPPacket(parsing: zero) } throws: { ($0 as? NALUError)?.field == "RTP padding" }
    }

    @Test func sequenceNumbersAndTimestampsWrap() {
        #expect(RTPSequence.distance(from: 65_535, to: 0) == 1)
        #expect(RTPSequence.distance(from: 0, to: 65_535) == -1)
        #expect(RTPSequence.distance(from: 100, to: 99) == -1)
        #expect(RTPSequence.timestampDistance(from: UInt32.max - 1499, to: 1500) == 3000)
        var unwrapper = RTPSequenceUnwrapper()
        let values = [65_533, 65_534, 65_535, 0, 1, 65_535, 2].map { unwrapper.unwrap(UInt16($0)) }
        #expect(values == [65_533, 65_534, 65_535, 65_536, 65_537, 65_535, 65_538])
        var timestamps = RTPTimestampUnwrapper()
        let times = [UInt32.max - 2999, UInt32.max, 2999].map { timestamps.unwrap($0) }
        #expect(times == [Int64(UInt32.max) - 2999, Int64(UInt32.max), Int64(UInt32.max) + 3000])
    }
}
