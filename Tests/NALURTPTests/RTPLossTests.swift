import Testing
import NALU
@testable import NALURTP

/// A seeded loss/reorder/duplicate injector between the packetizer and the receiver, on real
/// streams: no access unit that lost a packet is ever delivered unmarked, every access unit
/// delivered unmarked is the one sent byte for byte, every lost sequence number is reported in a
/// gap, every duplicate is dropped, and a keyframe is requested after each loss.
@Suite struct RTPLossTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let fixture: String
        let mtu: Int
        let damaged: RTPDamagedAccessUnits
        var testDescription: String { "\(fixture) mtu \(mtu) \(damaged)" }
    }

    static let cases = [
        Case(fixture: "mp4_avc_bframes.mp4", mtu: 200, damaged: .drop),
        Case(fixture: "mp4_avc_bframes.mp4", mtu: 200, damaged: .mark),
        Case(fixture: "avc_multislice.mp4", mtu: 300, damaged: .mark),
        Case(fixture: "concat_avc_1280x720.mp4", mtu: 600, damaged: .mark),
        Case(fixture: "mp4_hevc_bframes.mp4", mtu: 150, damaged: .drop),
        Case(fixture: "mp4_hevc_bframes.mp4", mtu: 150, damaged: .mark),
    ]

    @Test(arguments: cases)
    func lossIsReportedAndNeverDeliveredUnmarked(_ testCase: Case) throws {
        let (codec, packets, sent) = try RTPTestSupport.packets(testCase.fixture, options: RTPPacketizerOptions(mtu: testCase.mtu, initialSequenceNumber: 65_000))
        var sentByTimestamp: [UInt32: [[UInt8]]] = [:]
        var timestamps: [UInt32] = []
        for packet in packets where timestamps.last != packet.timestamp { timestamps.append(packet.timestamp) }
        #expect(timestamps.count == sent.count)
        for (timestamp, unit) in zip(timestamps, sent) { sentByTimestamp[timestamp] = unit }
        var totalLost = 0
        var totalDamaged = 0
        for seed in UInt64(1)...UInt64(12) {
            let (damaged, lost) = RTPTestSupport.inject(packets, seed: seed, lossPercent: 4, duplicatePercent: 3, reorderPercent: 6)
            let duplicates = damaged.count - (packets.count - lost.count)
            var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: codec), maxReorderDelay: Int64.max / 4,
                                                                   damagedAccessUnits: testCase.damaged))
            var events: [RTPReceiverEvent] = []
            for (index, packet) in damaged.enumerated() { events += receiver.receive(packet, arrival: Int64(index)) }
            events += receiver.finish()
            // Lost packets sent before the first one to arrive, or after the last, cannot be
            // counted; all others are. (Those sent before the first to arrive that come later
            // are late: the receiver began after them.)
            let received = Set(damaged.map(\.sequenceNumber))
            let firstReceived = packets.firstIndex { $0.sequenceNumber == damaged.first?.sequenceNumber } ?? 0
            let lastReceived = packets.lastIndex { received.contains($0.sequenceNumber) } ?? 0
            let noticeable = packets[firstReceived...lastReceived].filter { lost.contains($0.sequenceNumber) }
            let leading = Set(packets[..<firstReceived].map(\.timestamp))
            let reported = events.reduce(0) { total, event in if case .gap(let gap) = event { return total + gap.count } else { return total } }
            #expect(reported == noticeable.count, "seed \(seed): \(reported) reported of \(noticeable.count) lost")
            let late = damaged.filter { packet in packets[..<firstReceived].contains { $0.sequenceNumber == packet.sequenceNumber } }.count
            #expect(receiver.statistics.duplicates + receiver.statistics.late == duplicates + late, "seed \(seed)")
            let gaps = events.filter { if case .gap = $0 { return true } else { return false } }.count
            let requests = events.filter { $0 == .keyframeRequest }.count
            #expect(requests == gaps)
            let hit = Set(noticeable.map(\.timestamp))
            for case .accessUnit(let unit) in events {
                if unit.isDamaged {
                    #expect(testCase.damaged == .mark)
                    totalDamaged += 1
                    continue
                }
                #expect(!hit.contains(unit.rtpTimestamp), "seed \(seed): an access unit that lost packets was delivered unmarked")
                let whole = try #require(sentByTimestamp[unit.rtpTimestamp])
                if leading.contains(unit.rtpTimestamp) {
                    // The first access unit, its first packets never received: what came is its
                    // end, with every slice.
                    #expect(whole.suffix(unit.nalUnits.count).elementsEqual(unit.nalUnits),
                            "seed \(seed): \(unit.nalUnits.map { "\($0[0]):\($0.count)" }) of \(whole.map { "\($0[0]):\($0.count)" })")
                    #expect(whole.filter { PictureStart.startsPicture($0, codec: codec) != nil } ==
                            unit.nalUnits.filter { PictureStart.startsPicture($0, codec: codec) != nil }, "seed \(seed): a slice is missing")
                } else {
                    #expect(unit.nalUnits == whole, "seed \(seed): an unmarked access unit differs from the one sent")
                }
            }
            // Every access unit hit by a loss is dropped or marked.
            var delivered: Set<UInt32> = []
            for case .accessUnit(let unit) in events where !unit.isDamaged { delivered.insert(unit.rtpTimestamp) }
            #expect(hit.isDisjoint(with: delivered))
            totalLost += noticeable.count
        }
        #expect(totalLost > 0, "the injector lost packets")
        if testCase.damaged == .mark { #expect(totalDamaged > 0) }
    }

    /// A NAL unit is never rebuilt from a middle fragment: the start fragment lost, the rest of it
    /// is skipped and counted, and the access unit is damaged; a cut-short NAL unit passed on
    /// (mark) has forbidden_zero_bit set.
    @Test func neverReassemblesFromAMiddleFragment() throws {
        let unit: [UInt8] = [0x65] + (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var packetizer = try RTPPacketizer(codec: .h264, options: RTPPacketizerOptions(mtu: 300, initialSequenceNumber: 100))
        let packets = try packetizer.packetize(nalUnits: [unit], timestamp: 3000) + packetizer.packetize(nalUnits: [[0x41, 9, 9]], timestamp: 6000)
        #expect(packets.count == 5)
        for damaged in RTPDamagedAccessUnits.allCases {
            // The start fragment lost.
            var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264), damagedAccessUnits: damaged))
            var events: [RTPReceiverEvent] = []
            // First a complete access unit so the sequence is established, then lose the next unit's start.
            var lead = try RTPPacketizer(codec: .h264, options: RTPPacketizerOptions(mtu: 300, initialSequenceNumber: packets[0].sequenceNumber &- 1))
            let first = try lead.packetize(nalUnits: [[0x41, 0x88, 2]], timestamp: 0)
            events += receiver.receive(first[0], arrival: 0)
            for packet in packets.dropFirst() { events += receiver.receive(packet, arrival: 1) }
            events += receiver.finish()
            let units = events.compactMap { event -> RTPAccessUnit? in if case .accessUnit(let unit) = event { return unit } else { return nil } }
            #expect(units.first?.nalUnits == [[0x41, 0x88, 2]])
            #expect(receiver.statistics.fragmentsWithoutStart == 3)
            #expect(!units.contains { $0.rtpTimestamp == 3000 && !$0.isDamaged })
            #expect(!units.contains { $0.nalUnits.contains { $0.count > 3 } }, "nothing rebuilt from the middle fragments")
            #expect(events.contains(.gap(RTPGap(firstSequenceNumber: Int64(packets[0].sequenceNumber), count: 1))))
        }
        // The end fragment lost (mark): the NAL unit is passed cut short with forbidden_zero_bit.
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264), damagedAccessUnits: .mark))
        var events: [RTPReceiverEvent] = []
        for (index, packet) in packets.enumerated() where index != 3 { events += receiver.receive(packet, arrival: 0) }
        events += receiver.finish()
        let units = events.compactMap { event -> RTPAccessUnit? in if case .accessUnit(let unit) = event { return unit } else { return nil } }
        let cut = try #require(units.first { $0.rtpTimestamp == 3000 })
        #expect(cut.isDamaged)
        #expect(cut.nalUnits.count == 1 && ForbiddenZeroBit.isSet(in: cut.nalUnits[0]) && cut.nalUnits[0].count < unit.count)
        #expect(AVCNALUnitHeader.payloadHeader(cut.nalUnits[0][0]).header.nalUnitType == .idrSlice)
        // The unit after the loss began with its own packet: damaged as well (its start may have been lost).
        #expect(units.first { $0.rtpTimestamp == 6000 }?.isDamaged == true)
    }

    /// Giving up on many gaps at once costs time in proportion to them, not to the buffer's
    /// capacity for each (a scan of 65 536 slots per gap took minutes).
    @Test(.timeLimit(.minutes(1))) func givingUpIsLinear() throws {
        var buffer = RTPReorderBuffer(capacity: 65_536, maxDelay: 10)
        let packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 1, payload: [0x41, 0x80])
        var first = packet
        first.sequenceNumber = 0
        #expect(buffer.push(first, arrival: 0).count == 1)
        // Every other sequence number missing: 30 000 gaps.
        for index in 1...30_000 {
            var next = packet
            next.sequenceNumber = UInt16(2 * index)
            #expect(buffer.push(next, arrival: 1).isEmpty)
        }
        let released = buffer.advance(to: 100)
        #expect(released.count == 30_000 && released.allSatisfy { $0.lostBefore == 1 })
        #expect(buffer.lost == 30_000 && buffer.count == 0)
    }

    /// The reorder buffer gives up on a missing packet after its delay, reporting the gap, and
    /// holds at most its capacity.
    @Test func reorderBufferIsBoundedByCountAndTime() throws {
        var packetizer = try RTPPacketizer(codec: .h264, options: RTPPacketizerOptions())
        var packets: [RTPPacket] = []
        for index in 0..<10 { packets += try packetizer.packetize(nalUnits: [[0x41, UInt8(index)]], timestamp: UInt32(index * 3000)) }
        var buffer = RTPReorderBuffer(capacity: 4, maxDelay: 1000)
        #expect(buffer.push(packets[0], arrival: 0).count == 1)
        #expect(buffer.push(packets[2], arrival: 10).isEmpty)
        #expect(buffer.push(packets[3], arrival: 20).isEmpty)
        #expect(buffer.count == 2)
        // Time: packet 1 is given up on 1000 ns after packet 2 arrived.
        #expect(buffer.advance(to: 500).isEmpty)
        let released = buffer.advance(to: 1010)
        #expect(released.map(\.packet.sequenceNumber) == [2, 3])
        #expect(released.first?.lostBefore == 1)
        // Count: packet 5 missing, 6…9 arrive; the window of 4 forces 5 out when 9 comes.
        #expect(buffer.push(packets[4], arrival: 2000).count == 1)
        #expect(buffer.push(packets[6], arrival: 2001).isEmpty)
        #expect(buffer.push(packets[7], arrival: 2002).isEmpty)
        #expect(buffer.push(packets[8], arrival: 2003).isEmpty)
        let forced = buffer.push(packets[9], arrival: 2004)
        #expect(forced.map(\.packet.sequenceNumber) == [6, 7, 8, 9])
        #expect(forced.first?.lostBefore == 1)
        #expect(buffer.lost == 2)
        // Late and duplicate.
        #expect(buffer.push(packets[5], arrival: 2005).isEmpty)
        #expect(buffer.push(packets[9], arrival: 2006).isEmpty)
        #expect(buffer.late == 1 && buffer.duplicates == 1)
    }
}
