// The RFC 3640 AAC receive path (NALURTP: RTPPacket, RTPReorderBuffer, RTPAACDepacketizer,
// RTPAACReceiver) on untrusted packets, and the packetizer round trip. The first byte picks the
// mode: bit 0 the round trip (else packets), bit 1 AAC-lbr's 6/2/2-bit AU headers (else AAC-hbr's
// 13/3/3). Packets: each after a 2-byte length. Round trip: the second byte is the MTU less 20,
// the third the AUs per packet (1–8), then AUs each after a 2-byte length (at most AU-size's
// largest), packetized and received back. Properties: nothing traps; every AU passed on is at
// most AU-size's largest and not empty; the gaps reported add up to the packets counted lost;
// the round trip gives back the AUs and their timestamps, with no loss counted.
import NALU
import NALURTP

enum RTPAACHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let format = mode & 2 == 0 ? RTPAACPayloadFormat.hbr(clockRate: 48_000)
            : RTPAACPayloadFormat(sizeLength: 6, indexLength: 2, indexDeltaLength: 2, accessUnitDuration: 1024, clockRate: 48_000)
        let rest = Array(all.dropFirst())
        if mode & 1 != 0 {
            try roundTrip(format: format, rest)
            return
        }
        var receiver = RTPAACReceiver(format: format, reorderCapacity: 16, maxReorderDelay: 50_000_000)
        var offset = 0
        var arrival: Int64 = 0
        var gapTotal = 0
        func check(_ events: [RTPAACReceiverEvent]) throws(FuzzPropertyViolation) {
            for event in events {
                switch event {
                case .accessUnit(let unit):
                    try fuzzCheck(!unit.bytes.isEmpty && unit.bytes.count <= format.maxAccessUnitSize, "an AU of \(unit.bytes.count) bytes")
                case .gap(let gap):
                    gapTotal += gap.count
                case .malformedPacket:
                    continue
                }
            }
        }
        while offset + 2 <= rest.count {
            let length = Int(rest[offset]) << 8 | Int(rest[offset + 1])
            offset += 2
            let end = min(rest.count, offset + length)
            let datagram = Array(rest[offset..<end])
            offset = end
            arrival += 10_000_000
            guard let packet = try? RTPPacket(parsing: datagram) else { continue }
            try check(receiver.receive(packet, arrival: arrival))
        }
        try check(receiver.finish())
        try fuzzCheck(gapTotal == receiver.statistics.lost, "gaps add up to \(gapTotal), \(receiver.statistics.lost) counted lost")
    }

    static func roundTrip(format: RTPAACPayloadFormat, _ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        guard bytes.count >= 2 else { return }
        let mtu = 20 + Int(bytes[0])
        let perPacket = 1 + Int(bytes[1] & 7)
        guard var packetizer = try? RTPAACPacketizer(format: format, options: RTPAACPacketizerOptions(mtu: mtu, maxAccessUnitsPerPacket: perPacket)) else {
            return
        }
        var units: [[UInt8]] = []
        var offset = 2
        while offset + 2 <= bytes.count, units.count < 512 {
            let length = max(1, min(format.maxAccessUnitSize, Int(bytes[offset]) << 8 | Int(bytes[offset + 1])))
            offset += 2
            let end = min(bytes.count, offset + length)
            guard end > offset else { break }
            units.append(Array(bytes[offset..<end]))
            offset = end
        }
        var packets: [RTPPacket] = []
        for (index, unit) in units.enumerated() {
            do {
                packets += try packetizer.push(unit, timestamp: UInt32(truncatingIfNeeded: index * format.accessUnitDuration))
            } catch {
                throw FuzzPropertyViolation(description: "an AU of \(unit.count) bytes was refused: \(error)")
            }
        }
        packets += packetizer.flush()
        var receiver = RTPAACReceiver(format: format)
        var received: [RTPAACAccessUnit] = []
        for (index, packet) in packets.enumerated() {
            try fuzzCheck(packet.bytes.count <= mtu, "a packet of \(packet.bytes.count) bytes past the MTU \(mtu)")
            guard let parsed = try? RTPPacket(parsing: packet.bytes) else { throw FuzzPropertyViolation(description: "a packet sent does not parse") }
            for case .accessUnit(let unit) in receiver.receive(parsed, arrival: Int64(index)) { received.append(unit) }
        }
        for case .accessUnit(let unit) in receiver.finish() { received.append(unit) }
        try fuzzCheck(received.map(\.bytes) == units, "the round trip gave back \(received.count) of \(units.count) AUs, or others")
        try fuzzCheck(received.map(\.time) == units.indices.map { Int64($0 * format.accessUnitDuration) }, "the timestamps changed")
        try fuzzCheck(receiver.statistics.isLossless, "a loss was counted: \(receiver.statistics)")
    }
}
