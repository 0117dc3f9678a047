import Testing
import NALU
@testable import NALURTP

/// Real streams (the fixtures' MP4 files, made by x264/x265 and ffmpeg) packetized and
/// depacketized: every access unit comes back byte for byte, every packet fits the MTU, the
/// marker bit is on the last packet of each access unit only, and the packet types the MTU
/// calls for are used (RFC 6184 5.6–5.8, RFC 7798 4.4).
@Suite struct RTPPacketizationTests {
    static let fixtures = ["mp4_avc_bframes.mp4", "avc_multislice.mp4", "avc_baseline.mp4", "mp4_hevc_bframes.mp4", "hevc_closed_gop.mp4",
                           "concat_avc_1280x720.mp4"]

    @Test(arguments: fixtures, [120, 400, 1400])
    func roundTripsEveryAccessUnit(fixture: String, mtu: Int) throws {
        let (codec, packets, sent) = try RTPTestSupport.packets(fixture, options: RTPPacketizerOptions(mtu: mtu, initialSequenceNumber: 65_500))
        #expect(!packets.isEmpty)
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: codec)))
        var received: [RTPAccessUnit] = []
        for (index, packet) in packets.enumerated() {
            #expect(packet.bytes.count <= mtu)
            for case .accessUnit(let unit) in receiver.receive(try RTPPacket(parsing: packet.bytes), arrival: Int64(index)) { received.append(unit) }
        }
        for case .accessUnit(let unit) in receiver.finish() { received.append(unit) }
        #expect(received.map(\.nalUnits) == sent)
        #expect(received.allSatisfy { !$0.isDamaged && $0.endedByMarker })
        #expect(receiver.statistics.isLossless)
        // The marker bit: set exactly once per access unit, on its last packet.
        #expect(packets.filter(\.marker).count == sent.count)
        for (index, packet) in packets.enumerated() where packet.marker && index + 1 < packets.count {
            #expect(packets[index + 1].timestamp != packet.timestamp)
        }
        for (index, packet) in packets.enumerated() where !packet.marker {
            #expect(packets[index + 1].timestamp == packet.timestamp)
        }
        let types = Set(packets.map { payloadKind($0.payload, codec: codec) })
        if mtu == 120 { #expect(types.contains("FU")) }
        #expect(types.contains("aggregate"), "the parameter sets go in an aggregation packet")
    }

    /// The received access units' times are the sent presentation times at 90 kHz.
    @Test func timestampsArePresentationTimesAt90kHz() throws {
        let (codec, timescale, sets, units) = try RTPTestSupport.accessUnits("mp4_avc_bframes.mp4")
        var sender = try RTPStreamSender(codec: codec, timescale: timescale, parameterSets: sets,
                                         options: RTPPacketizerOptions(timestampOffset: UInt32.max - 6000))
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: codec)))
        var times: [Int64] = []
        for unit in units {
            for packet in try sender.packets(for: unit, pts: try #require(unit.pts)) {
                for case .accessUnit(let received) in receiver.receive(packet, arrival: 0) { times.append(received.time) }
            }
        }
        for case .accessUnit(let received) in receiver.finish() { times.append(received.time) }
        let first = try #require(units.first?.pts)
        let expected = units.map { ($0.pts! - first) * 90_000 / timescale }
        #expect(times.map { $0 - times[0] } == expected)
        // B-frames: presentation order differs from decoding order.
        #expect(expected != expected.sorted())
        // Decoding times: strictly increasing, never after the presentation time.
        var decodeTimes = RTPDecodeTimes(codec: codec)
        var timed: [RTPTimedAccessUnit] = []
        for (index, time) in times.enumerated() {
            timed += decodeTimes.push(RTPAccessUnit(nalUnits: [[0x65]], rtpTimestamp: 0, time: time, isDamaged: false, endedByMarker: true))
            _ = index
        }
        timed += decodeTimes.finish()
        #expect(timed.count == times.count)
        #expect(zip(timed, timed.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(timed.allSatisfy { $0.dts <= $0.pts })
    }

    @Test func h265HeadersCarryTheUnitsLayerAndTemporalIds() throws {
        // A NAL unit of TemporalId 2 (nuh_temporal_id_plus1 3), layer 0, fragmented: the FU's
        // PayloadHdr takes its TID; an AP of TIDs 2 and 1 takes 1 (RFC 7798 4.4.2, 4.4.3).
        let big: [UInt8] = HEVCNALUnitHeader(nalUnitType: .trailN, nuhTemporalIdPlus1: 3).bytes + [UInt8](repeating: 0xAB, count: 500)
        let small1: [UInt8] = HEVCNALUnitHeader(nalUnitType: .trailN, nuhTemporalIdPlus1: 3).bytes + [1, 2, 3]
        let small2: [UInt8] = HEVCNALUnitHeader(nalUnitType: .trailR, nuhTemporalIdPlus1: 2).bytes + [4, 5, 6]
        var packetizer = try RTPPacketizer(codec: .hevc, options: RTPPacketizerOptions(mtu: 200))
        let fragments = try packetizer.packetize(nalUnits: [big], timestamp: 0)
        #expect(fragments.count == 3)
        for packet in fragments {
            let header = HEVCNALUnitHeader.payloadHeader(packet.payload[0], packet.payload[1]).header
            #expect(header.nalUnitType == .fragmentationUnit && header.nuhTemporalIdPlus1 == 3)
        }
        let aggregate = try packetizer.packetize(nalUnits: [small1, small2], timestamp: 0)
        #expect(aggregate.count == 1)
        let header = HEVCNALUnitHeader.payloadHeader(aggregate[0].payload[0], aggregate[0].payload[1]).header
        #expect(header.nalUnitType == .aggregationPacket && header.nuhTemporalIdPlus1 == 2)
    }

    @Test func singleNALUnitModeRefusesWhatDoesNotFit() throws {
        var packetizer = try RTPPacketizer(codec: .h264, options: RTPPacketizerOptions(mtu: 100, packetizationMode: .singleNALUnit))
        let small: [UInt8] = [0x67, 1, 2, 3]
        let packets = try packetizer.packetize(nalUnits: [small, [0x68, 1]], timestamp: 0)
        #expect(packets.count == 2, "no aggregation in mode 0")
        #expect { try packetizer.packetize(nalUnits: [[0x65] + [UInt8](repeating: 1, count: 200)], timestamp: 0) } throws: {
            ($0 as? NALUError)?.code == .tooLarge
        }
        #expect { try packetizer.packetize(nalUnits: [[0xE5, 1]], timestamp: 0) } throws: { ($0 as? NALUError)?.code == .forbiddenZeroBit }
    }

    /// NAL unit types RTP uses for its own packets (H.264 24–31 and 0, H.265 48–63) are refused:
    /// sent as they are, the receiver would read them as aggregation or fragmentation packets
    /// (found by the rtp-depacketize fuzz target's round trip).
    @Test func refusesTheTypesRTPTakes() throws {
        var h264 = try RTPPacketizer(codec: .h264)
        for type: UInt8 in [0, 24, 28, 31] {
            #expect { try h264.packetize(nalUnits: [[0x60 | type, 1, 2]], timestamp: 0) } throws: {
                ($0 as? NALUError)?.code == .unsupported
            }
        }
        var hevc = try RTPPacketizer(codec: .hevc)
        for type: UInt8 in [48, 49, 50, 63] {
            #expect { try hevc.packetize(nalUnits: [[type << 1, 1, 2]], timestamp: 0) } throws: { ($0 as? NALUError)?.code == .unsupported }
        }
        #expect(try hevc.packetize(nalUnits: [[47 << 1, 1, 2]], timestamp: 0).count == 1)
    }

    private func payloadKind(_ payload: [UInt8], codec: Codec) -> String {
        if codec == .h264 {
            switch AVCNALUnitHeader.payloadHeader(payload[0]).header.nalUnitType {
            case .stapA: return "aggregate"
            case .fuA: return "FU"
            default: return "single"
            }
        }
        switch HEVCNALUnitHeader.payloadHeader(payload[0], payload[1]).header.nalUnitType {
        case .aggregationPacket: return "aggregate"
        case .fragmentationUnit: return "FU"
        default: return "single"
        }
    }
}
