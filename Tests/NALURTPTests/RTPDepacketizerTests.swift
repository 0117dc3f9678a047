import Testing
import NALU
@testable import NALURTP

/// The packet types no peer at hand sends, built by the RFCs' figures: H.264 STAP-B, MTAP16,
/// MTAP24 and FU-B (RFC 6184 5.7, 5.8, interleaved mode), H.265 DONL/DOND (RFC 7798 4.4 with
/// `sprop-max-don-diff` > 0) and PACI (4.4.4); and the malformed ones, refused with their field.
@Suite struct RTPDepacketizerTests {
    let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00]
    let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]

    @Test func interleavedH264Packets() throws {
        var depacketizer = RTPDepacketizer(format: RTPPayloadFormat(codec: .h264, packetizationMode: .interleaved))
        // STAP-B: type 25, DON 0x0102, then size + unit pairs.
        let stapB: [UInt8] = [0x79, 0x01, 0x02, 0, 4] + sps + [0, 4] + idr
        let units = try depacketizer.depacketize(stapB).nalUnits
        #expect(units.map(\.bytes) == [sps, idr])
        #expect(units.map(\.decodingOrderNumber) == [0x0102, 0x0103])
        // MTAP16: type 26, DONB 10, then size, DOND, TS offset (16), unit.
        let mtap16: [UInt8] = [0x7A, 0, 10, 0, 7, 2, 0x0B, 0xB8] + idr
        let mtap = try depacketizer.depacketize(mtap16).nalUnits
        #expect(mtap.map(\.bytes) == [idr] && mtap.first?.decodingOrderNumber == 12)
        // MTAP24: TS offset of three bytes.
        let mtap24: [UInt8] = [0x7B, 0, 10, 0, 8, 1, 0, 0x0B, 0xB8] + idr
        #expect(try depacketizer.depacketize(mtap24).nalUnits.map(\.bytes) == [idr])
        // FU-B (start, with DON) then FU-A continuation and end.
        let fuB: [UInt8] = [0x7D, 0x85, 0x00, 0x07, 0x88]
        let middle: [UInt8] = [0x7C, 0x05, 0x84]
        let end: [UInt8] = [0x7C, 0x45, 0x00]
        #expect(try depacketizer.depacketize(fuB).nalUnits.isEmpty)
        #expect(try depacketizer.depacketize(middle).nalUnits.isEmpty)
        let rebuilt = try depacketizer.depacketize(end).nalUnits
        #expect(rebuilt.map(\.bytes) == [idr] && rebuilt.first?.decodingOrderNumber == 7)
        // Single NAL unit packets are not allowed in interleaved mode (RFC 6184 Table 3).
        #expect { try depacketizer.depacketize(idr) } throws: { ($0 as? NALUError)?.field == "RTP payload type (NAL unit type)" }
    }

    @Test func modeRulesAndMalformedAggregates() throws {
        var single = RTPDepacketizer(format: RTPPayloadFormat(codec: .h264, packetizationMode: .singleNALUnit))
        #expect { try single.depacketize([0x78, 0, 4] + idr) } throws: { ($0 as? NALUError)?.code == .invalidValue }
        var depacketizer = RTPDepacketizer(format: RTPPayloadFormat(codec: .h264))
        #expect { try depacketizer.depacketize([0x78, 0, 9] + idr) } throws: {
            let error = $0 as? NALUError
            return error?.code == .lengthPastEnd && error?.byteOffset == 1
        }
        #expect { try depacketizer.depacketize([0x78]) } throws: { ($0 as? NALUError)?.field == "aggregation packet" }
        #expect { try depacketizer.depacketize([0x7C]) } throws: { ($0 as? NALUError)?.field == "FU header" }
        #expect { try depacketizer.depacketize([0x7C, 0xC5, 1]) } throws: { ($0 as? NALUError)?.field == "FU header S and E" }
        #expect { try depacketizer.depacketize([0x1E, 1]) } throws: { ($0 as? NALUError)?.code == .invalidValue }
        #expect { try depacketizer.depacketize([]) } throws: { ($0 as? NALUError)?.code == .truncated }
    }

    @Test func h265WithDecodingOrderNumbers() throws {
        var depacketizer = RTPDepacketizer(format: RTPPayloadFormat(codec: .hevc, maxDonDiff: 2))
        let slice: [UInt8] = [0x26, 0x01, 0xAF, 0x10]  // IDR_W_RADL
        let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01]
        // Single NAL unit packet: PayloadHdr, DONL, the rest.
        let single = try depacketizer.depacketize([0x26, 0x01, 0x00, 0x05, 0xAF, 0x10]).nalUnits
        #expect(single.map(\.bytes) == [slice] && single.first?.decodingOrderNumber == 5)
        // AP: PayloadHdr (type 48), DONL, size, unit, DOND, size, unit.
        let ap: [UInt8] = [0x60, 0x01, 0x00, 0x09, 0, 4] + vps + [0, 0, 4] + slice
        let units = try depacketizer.depacketize(ap).nalUnits
        #expect(units.map(\.bytes) == [vps, slice])
        #expect(units.map(\.decodingOrderNumber) == [9, 10])
        // FU: DONL in the start fragment only.
        #expect(try depacketizer.depacketize([0x62, 0x01, 0x93, 0x00, 0x0B, 0xAF]).nalUnits.isEmpty)
        let rebuilt = try depacketizer.depacketize([0x62, 0x01, 0x53, 0x10]).nalUnits
        #expect(rebuilt.map(\.bytes) == [slice] && rebuilt.first?.decodingOrderNumber == 11)
        // PACI is skipped and counted.
        let paci = try depacketizer.depacketize([0x64, 0x01, 0x00, 0x00])
        #expect(paci.nalUnits.isEmpty && paci.skippedPACI == 1)
        #expect { try depacketizer.depacketize([0x26, 0x00, 1, 2]) } throws: { ($0 as? NALUError)?.field == "PayloadHdr TID" }
        #expect { try depacketizer.depacketize([0x7E, 0x01, 1, 2]) } throws: { ($0 as? NALUError)?.field == "PayloadHdr Type" }
    }

    @Test func receiverCountsPACIAndOtherSources() throws {
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .hevc), payloadType: 96))
        let paci = RTPPacket(marker: false, payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: [0x64, 0x01, 0, 0])
        let slice = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 2, timestamp: 0, ssrc: 1, payload: [0x26, 0x01, 0xAF])
        let other = RTPPacket(marker: true, payloadType: 97, sequenceNumber: 3, timestamp: 0, ssrc: 1, payload: [0x26, 0x01, 0xAF])
        let stranger = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 3, timestamp: 0, ssrc: 2, payload: [0x26, 0x01, 0xAF])
        var events = receiver.receive(paci, arrival: 0) + receiver.receive(slice, arrival: 0)
        events += receiver.receive(other, arrival: 0) + receiver.receive(stranger, arrival: 0) + receiver.finish()
        #expect(events == [.accessUnit(RTPAccessUnit(nalUnits: [[0x26, 0x01, 0xAF]], rtpTimestamp: 0, time: 0, isDamaged: false, endedByMarker: true))])
        #expect(receiver.statistics.skippedPACI == 1 && receiver.statistics.otherPayloadType == 1 && receiver.statistics.otherSource == 1)
        #expect(!receiver.statistics.isLossless)
    }
}
