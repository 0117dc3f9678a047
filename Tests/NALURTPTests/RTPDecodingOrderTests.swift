import Testing
import NALU
@testable import NALURTP

/// Decoding order numbers (H.264 interleaved mode, RFC 6184 5.5; H.265 with
/// `sprop-max-don-diff` > 0, RFC 7798 4.5.1 and 6) on real streams: our packetizer writes the
/// numbers, a seeded interleaver sends the packets out of decoding order within the window the
/// SDP allows (sequence numbers in the new transmission order, as an interleaving sender
/// numbers them), and the receiver hands back every access unit as sent, in decoding order.
@Suite struct RTPDecodingOrderTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let fixture: String
        let mtu: Int
        let mode: H264PacketizationMode
        /// `sprop-max-don-diff` (0: only `sprop-interleaving-depth`, H.264).
        let maxDonDiff: Int
        var testDescription: String { "\(fixture) mtu \(mtu) mode \(mode.rawValue) max-don-diff \(maxDonDiff)" }
    }

    static let cases = [
        Case(fixture: "mp4_hevc_bframes.mp4", mtu: 150, mode: .nonInterleaved, maxDonDiff: 40),
        Case(fixture: "mp4_hevc_bframes.mp4", mtu: 1400, mode: .nonInterleaved, maxDonDiff: 12),
        Case(fixture: "mp4_avc_bframes.mp4", mtu: 200, mode: .interleaved, maxDonDiff: 40),
        Case(fixture: "avc_multislice.mp4", mtu: 300, mode: .interleaved, maxDonDiff: 25),
        Case(fixture: "mp4_avc_bframes.mp4", mtu: 1400, mode: .interleaved, maxDonDiff: 0),
    ]

    /// The packets of a fixture with decoding order numbers, and the access units sent (each
    /// with its timestamp), in decoding order.
    static func sent(_ testCase: Case) throws -> (format: RTPPayloadFormat, packets: [RTPPacket], units: [(timestamp: UInt32, nalUnits: [[UInt8]])]) {
        let (codec, timescale, sets, units) = try RTPTestSupport.accessUnits(testCase.fixture)
        var options = RTPPacketizerOptions(mtu: testCase.mtu, initialSequenceNumber: 65_500, packetizationMode: testCase.mode)
        options.maxDonDiff = codec == .hevc ? testCase.maxDonDiff : 0
        var sender = try RTPStreamSender(codec: codec, timescale: timescale, parameterSets: sets, options: options)
        let depth = 10
        let format = RTPPayloadFormat(codec: codec, packetizationMode: testCase.mode, maxDonDiff: testCase.maxDonDiff,
                                      decodingOrder: RTPDecodingOrderLimits(bufferUnits: testCase.maxDonDiff == 0 ? depth : nil))
        var packets: [RTPPacket] = []
        var sent: [(UInt32, [[UInt8]])] = []
        for unit in units {
            let unitPackets = try sender.packets(for: unit, pts: unit.pts ?? 0)
            packets += unitPackets
            var depacketizer = RTPDepacketizer(format: format)
            sent.append((unitPackets[0].timestamp, try unitPackets.flatMap { try depacketizer.depacketize($0.payload).nalUnits.map(\.bytes) }))
        }
        return (format, packets, sent)
    }

    /// The packets in a new transmission order, renumbered: blocks (a packet with decoding order
    /// numbers and the fragments that continue its NAL unit, which stay together: RFC 6184 5.8,
    /// RFC 7798 4.4.3) sorted by their first number plus a seeded delay of at most `window` less
    /// their own span, so no unit precedes in transmission one it follows in decoding order by
    /// more than `window`. Returns the packets and the largest such distance.
    static func interleave(_ packets: [RTPPacket], format: RTPPayloadFormat, window: Int, seed: UInt64) throws -> (packets: [RTPPacket], distance: Int) {
        var blocks: [(packets: [RTPPacket], first: Int, last: Int)] = []
        var depacketizer = RTPDepacketizer(format: format)
        var unwrapper = RTPDecodingOrderUnwrapper()
        for packet in packets {
            let wasInside = depacketizer.isInsideFragmentedUnit
            let dons = try depacketizer.depacketize(packet.payload).nalUnits.compactMap(\.decodingOrderNumber).map { Int(unwrapper.absDon($0)) }
            if wasInside, var block = blocks.popLast() {
                block.packets.append(packet)
                if let last = dons.max() { block.last = max(block.last, last); block.first = min(block.first, dons.min() ?? last) }
                blocks.append(block)
            } else {
                blocks.append(([packet], dons.min() ?? Int.max, dons.max() ?? Int.min))
            }
        }
        #expect(blocks.allSatisfy { $0.first != Int.max }, "every block carries a decoding order number")
        let span = blocks.map { $0.last - $0.first }.max() ?? 0
        var generator = RTPTestSupport.Generator(state: seed)
        let spread = UInt64(max(window - span, 0) + 1)
        let keyed = blocks.enumerated().map { index, block in (key: block.first + Int(generator.next() % spread), index: index, block: block) }
        let order = keyed.sorted { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
        var result: [RTPPacket] = []
        var sequence = packets.first?.sequenceNumber ?? 0
        var distance = 0
        var highest = Int.min
        for item in order {
            if highest != Int.min { distance = max(distance, highest - item.block.first) }
            highest = max(highest, item.block.last)
            for packet in item.block.packets {
                result.append(RTPPacket(marker: packet.marker, payloadType: packet.payloadType, sequenceNumber: sequence,
                                        timestamp: packet.timestamp, ssrc: packet.ssrc, payload: packet.payload))
                sequence &+= 1
            }
        }
        return (result, distance)
    }

    static func receive(_ packets: [RTPPacket], format: RTPPayloadFormat) -> (events: [RTPReceiverEvent], statistics: RTPReceiverStatistics) {
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: format, maxReorderDelay: Int64.max / 4, damagedAccessUnits: .mark))
        var events: [RTPReceiverEvent] = []
        for (index, packet) in packets.enumerated() { events += receiver.receive(packet, arrival: Int64(index)) }
        events += receiver.finish()
        return (events, receiver.statistics)
    }

    @Test(arguments: cases)
    func interleavedPacketsComeBackInDecodingOrder(_ testCase: Case) throws {
        let (format, packets, sent) = try Self.sent(testCase)
        let window = testCase.maxDonDiff > 0 ? testCase.maxDonDiff : 10
        var moved = 0
        for seed in UInt64(1)...UInt64(4) {
            let (shuffled, distance) = try Self.interleave(packets, format: format, window: window, seed: seed)
            #expect(distance <= window && distance > 0, "seed \(seed): units moved \(distance) in decoding order")
            moved += zip(shuffled, packets).filter { $0.payload != $1.payload }.count
            let (events, statistics) = Self.receive(shuffled, format: format)
            let received = events.compactMap { event -> RTPAccessUnit? in if case .accessUnit(let unit) = event { unit } else { nil } }
            #expect(statistics.isLossless, "seed \(seed): \(statistics)")
            #expect(statistics.releasedEarly == 0)
            #expect(received.count == sent.count, "seed \(seed)")
            for (unit, expected) in zip(received, sent) {
                #expect(unit.rtpTimestamp == expected.timestamp && unit.nalUnits == expected.nalUnits, "seed \(seed): access unit at \(expected.timestamp)")
                #expect(!unit.isDamaged)
            }
        }
        // The interleaver did move packets: in transmission order they are not in decoding order.
        #expect(moved > packets.count / 10, "\(moved) of \(packets.count * 4) packets moved")
    }

    /// Without reordering by decoding order number (the transmission order as it comes) the same
    /// packets give other access units: the test above measures the reordering.
    @Test func transmissionOrderIsNotDecodingOrder() throws {
        let testCase = Self.cases[0]
        let (format, packets, sent) = try Self.sent(testCase)
        let (shuffled, _) = try Self.interleave(packets, format: format, window: testCase.maxDonDiff, seed: 1)
        var depacketizer = RTPDepacketizer(format: format)
        let inTransmissionOrder = try shuffled.flatMap { try depacketizer.depacketize($0.payload).nalUnits.map(\.bytes) }
        let inDecodingOrder = sent.flatMap(\.nalUnits)
        #expect(inTransmissionOrder.count == inDecodingOrder.count)
        #expect(inTransmissionOrder != inDecodingOrder)
        #expect(Set(inTransmissionOrder.map { $0 }) == Set(inDecodingOrder.map { $0 }))
    }

    /// Losses on top of interleaving: every access unit passed on unmarked is the one sent; the
    /// gaps are reported.
    static let lossCases = [
        Case(fixture: "mp4_hevc_bframes.mp4", mtu: 150, mode: .nonInterleaved, maxDonDiff: 8),
        Case(fixture: "concat_avc_1280x720.mp4", mtu: 300, mode: .interleaved, maxDonDiff: 8),
        Case(fixture: "mp4_avc_bframes.mp4", mtu: 1400, mode: .interleaved, maxDonDiff: 0),
    ]

    @Test(arguments: lossCases)
    func lossesInInterleavedStreamsNeverPassUnmarked(_ testCase: Case) throws {
        let (format, packets, sent) = try Self.sent(testCase)
        let byTimestamp = Dictionary(sent.map { ($0.timestamp, $0.nalUnits) }, uniquingKeysWith: { first, _ in first })
        let window = testCase.maxDonDiff > 0 ? testCase.maxDonDiff : 10
        var whole = 0
        var damaged = 0
        var lostTotal = 0
        for seed in UInt64(1)...UInt64(6) {
            let (shuffled, _) = try Self.interleave(packets, format: format, window: window, seed: seed)
            var generator = RTPTestSupport.Generator(state: seed &* 77)
            // Keep the first packet (the receiver starts there) and drop 3 % of the others.
            let dropped = shuffled.indices.filter { $0 > 0 && generator.chance(2) }
            let kept = shuffled.indices.filter { !dropped.contains($0) }.map { shuffled[$0] }
            // Packets lost after the last one received cannot be told from the end.
            let lost = dropped.filter { $0 < (kept.last.flatMap { last in shuffled.lastIndex(of: last) } ?? 0) }.count
            lostTotal += lost
            let (events, statistics) = Self.receive(kept, format: format)
            #expect(statistics.lost == lost && (lost == 0 || statistics.gaps > 0), "seed \(seed)")
            for case .accessUnit(let unit) in events {
                if unit.isDamaged {
                    damaged += 1
                } else {
                    whole += 1
                    #expect(byTimestamp[unit.rtpTimestamp] == unit.nalUnits, "seed \(seed): access unit at \(unit.rtpTimestamp) passed on unmarked but not as sent")
                }
            }
        }
        #expect(whole > 0 && damaged > 0, "\(whole) whole, \(damaged) damaged, \(lostTotal) lost")
    }

    /// A sender that interleaves farther than its `sprop-max-don-diff` says: the units that come
    /// after later ones were passed on are reported and dropped, never passed on out of order.
    @Test func decodingOrderNumbersOutsideTheWindowAreReported() throws {
        let testCase = Self.cases[0]
        let (format, packets, sent) = try Self.sent(testCase)
        let (shuffled, distance) = try Self.interleave(packets, format: format, window: 40, seed: 3)
        var narrow = format
        narrow.maxDonDiff = 3
        #expect(distance > 3)
        let (events, statistics) = Self.receive(shuffled, format: narrow)
        #expect(statistics.outOfDecodingOrder > 0 && !statistics.isLossless)
        let reports = events.filter { if case .malformedPacket(_, let error) = $0 { error.field == "DON" } else { false } }
        #expect(reports.count == statistics.outOfDecodingOrder)
        // What is passed on is in decoding order: each access unit's NAL units are a subsequence
        // of the ones sent, in the same order.
        let byTimestamp = Dictionary(sent.map { ($0.timestamp, $0.nalUnits) }, uniquingKeysWith: { first, _ in first })
        for case .accessUnit(let unit) in events {
            let expected = try #require(byTimestamp[unit.rtpTimestamp])
            var position = expected.startIndex
            for nalUnit in unit.nalUnits {
                guard let found = expected[position...].firstIndex(of: nalUnit) else {
                    Issue.record("access unit at \(unit.rtpTimestamp): a NAL unit out of order or not sent")
                    break
                }
                position = found + 1
            }
        }
    }

    /// The de-interleaving buffer's parameters are read from the SDP, written back the same, and
    /// size the receiver's buffer; a value out of range is an error naming the parameter.
    @Test func sdpCarriesTheBufferParameters() throws {
        let h264 = """
        v=0\r
        o=- 0 0 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=video 5004 RTP/AVP 97\r
        a=rtpmap:97 H264/90000\r
        a=fmtp:97 packetization-mode=2;sprop-interleaving-depth=12;sprop-deint-buf-req=65536;sprop-init-buf-time=9000;sprop-max-don-diff=20\r

        """
        let description = try SessionDescription(parsing: h264)
        let format = description.video.payloadFormat
        #expect(format.usesDecodingOrderNumbers && format.maxDonDiff == 20)
        #expect(format.decodingOrder == RTPDecodingOrderLimits(maxDonDiff: 20, bufferUnits: 12, bufferBytes: 65_536, initialBufferTime: 9_000))
        #expect(try SessionDescription(parsing: description.text).video == description.video)
        let buffer = RTPDecodingOrderBuffer(codec: .h264, limits: format.decodingOrder, maxDelay: 50_000_000)
        #expect(buffer.maxDelay == 100_000_000, "sprop-init-buf-time 9000 ticks: 100 ms")

        let hevc = h264.replacingOccurrences(of: "H264", with: "H265")
            .replacingOccurrences(of: "packetization-mode=2;sprop-interleaving-depth=12;sprop-deint-buf-req=65536;sprop-init-buf-time=9000;",
                                  with: "sprop-depack-buf-nalus=7;sprop-depack-buf-bytes=4096;")
        let video = try SessionDescription(parsing: hevc).video
        #expect(video.deinterleavingUnits == 7 && video.deinterleavingBytes == 4_096 && video.initialBufferTime == nil && video.maxDonDiff == 20)
        #expect(try SessionDescription(parsing: SessionDescription(parsing: hevc).text).video == video)

        #expect(throws: NALUError.self) { try SessionDescription(parsing: h264.replacingOccurrences(of: "depth=12", with: "depth=40000")) }
        do {
            _ = try SessionDescription(parsing: h264.replacingOccurrences(of: "depth=12", with: "depth=40000"))
        } catch {
            #expect(error.field == "sprop-interleaving-depth")
        }
    }

    /// An MTAP16 (RFC 6184 5.7.2) carrying two access units out of decoding order: each unit's
    /// timestamp is the packet's plus its offset, DONB + DOND its number; the receiver gives the
    /// IDR picture first, then the P picture, each as its own access unit.
    @Test func mtapUnitsTakeTheirOwnTimestampsAndOrder() throws {
        let idr: [UInt8] = [0x65, 0x88, 0x02]    // first_mb_in_slice 0
        let slice: [UInt8] = [0x41, 0x9A, 0x01]
        var payload: [UInt8] = [AVCNALUnitHeader(nalRefIdc: 3, nalUnitType: .mtap16).byte(), 0, 100]   // DONB 100
        payload += [0, 6, 1, 0x0B, 0xB8] + slice  // size 6, DOND 1 (DON 101), offset 3000
        payload += [0, 6, 0, 0, 0] + idr          // size 6, DOND 0 (DON 100), offset 0
        let packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 10, timestamp: 9_000, ssrc: 1, payload: payload)
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264, packetizationMode: .interleaved,
                                                                                         maxDonDiff: 2)))
        let events = receiver.receive(packet, arrival: 0) + receiver.finish()
        let units = events.compactMap { event -> RTPAccessUnit? in if case .accessUnit(let unit) = event { unit } else { nil } }
        #expect(units.map(\.rtpTimestamp) == [9_000, 12_000])
        #expect(units.map(\.nalUnits) == [[idr], [slice]])
        #expect(receiver.statistics.isLossless)
    }

    /// RFC 6184 5.8: in interleaved mode a fragmented NAL unit starts with an FU-B (it carries
    /// the DON); an FU-A start is refused, naming the field.
    @Test func interleavedModeRefusesAnFUAStart() {
        var depacketizer = RTPDepacketizer(format: RTPPayloadFormat(codec: .h264, packetizationMode: .interleaved))
        let start = RTPFragmentHeader(isStart: true, isEnd: false, nalUnitType: 5).byte
        #expect(throws: NALUError.self) { try depacketizer.depacketize([AVCNALUnitHeader(nalRefIdc: 3, nalUnitType: .fuA).byte(), start, 0x88]) }
        do {
            _ = try depacketizer.depacketize([AVCNALUnitHeader(nalRefIdc: 3, nalUnitType: .fuA).byte(), start, 0x88])
        } catch {
            #expect(error.field == "FU-A S bit" && error.byteOffset == 1)
        }
    }

    /// RFC 7798 4.5.1 case by case, with 16-bit wrap-around.
    @Test func absDonFollowsTheRFCCases() {
        var unwrapper = RTPDecodingOrderUnwrapper()
        let dons = [65_530, 65_535, 3, 3, 65_534, 10, 32_778, 10, 42_778, 10_009]
        // 32 778 after 10 is exactly 32 768 up: backwards; 10 after it exactly 32 768 down: forwards.
        // 42 778 after 10: 42 768 up, backwards by 22 768; 10 009 after it: 32 769 down, forwards by 32 767.
        let expected: [Int64] = [65_530, 65_535, 65_539, 65_539, 65_534, 65_546, 32_778, 65_546, 42_778, 75_545]
        #expect(dons.map { unwrapper.absDon($0) } == expected)
    }
}
