// The RTP receive path (NALURTP: RTPPacket, RTPReorderBuffer, RTPDepacketizer, RTPReceiver,
// RTPDumpReader) on untrusted packets, and the packetizer round trip. The first byte picks the
// mode: bit 0 the codec (H.264, H.265), bits 1–2 the H.264 packetization mode (0, 1, 2; 3 → 1),
// bit 3 DONL/DOND for H.265 (sprop-max-don-diff 1), bit 4 damaged access units marked (else
// dropped), bit 5 the rest is an rtpdump file (else packets, each after a 2-byte length), bit 6
// the rest is NAL units (each after a 2-byte length) packetized with an MTU of 32 + the second
// byte and received back; bit 7 takes the next byte as the decoding order window
// (sprop-max-don-diff for H.265 and H.264 mode 2, interleaving depth when it is 0; the round trip
// then writes DONL/DOND, or STAP-B/FU-B in mode 2). Properties: nothing traps; every access unit delivered unmarked has no
// NAL unit with forbidden_zero_bit set; access units stay within the limit; the gaps reported
// add up to the packets counted lost; the round trip gives back the NAL units sent.
import NALU
import NALURTP

enum RTPDepacketizeHarness {
    static let maxAccessUnitBytes = 1 << 20

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let codec: Codec = mode & 1 == 0 ? .h264 : .hevc
        let modeBits = Int(mode >> 1 & 3)
        let packetization = H264PacketizationMode(rawValue: modeBits == 3 ? 1 : modeBits) ?? .nonInterleaved
        var rest = Array(all.dropFirst())
        var window = mode & 8 != 0 ? 1 : 0
        if mode & 0x80 != 0, let byte = rest.first {
            window = Int(byte)
            rest.removeFirst()
        }
        let format = RTPPayloadFormat(codec: codec, packetizationMode: packetization, maxDonDiff: window,
                                      decodingOrder: RTPDecodingOrderLimits(bufferUnits: window == 0 ? 4 : nil, bufferBytes: 1 << 16))
        if mode & 0x40 != 0 {
            try roundTrip(codec: codec, rest, format: format)
            return
        }
        var datagrams: [[UInt8]] = []
        if mode & 0x20 != 0 {
            guard var reader = try? RTPDumpReader(source: MemorySource(rest, chunkSize: 100)) else { return }
            while let record = try? reader.next() { datagrams.append(record.bytes) }
        } else {
            datagrams = chunks(rest)
        }
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: format, reorderCapacity: 16, maxReorderDelay: 50,
                                                               damagedAccessUnits: mode & 0x10 != 0 ? .mark : .drop,
                                                               maxAccessUnitBytes: maxAccessUnitBytes))
        var events: [RTPReceiverEvent] = []
        for (index, datagram) in datagrams.enumerated() {
            guard let packet = try? RTPPacket(parsing: datagram) else { continue }
            events += receiver.receive(packet, arrival: Int64(index) * 10)
        }
        events += receiver.finish()
        var reported = 0
        var delivered = 0
        for event in events {
            switch event {
            case .accessUnit(let unit):
                delivered += 1
                let bytes = unit.nalUnits.reduce(0) { $0 + $1.count }
                try fuzzCheck(bytes <= maxAccessUnitBytes, "an access unit of \(bytes) bytes")
                if !unit.isDamaged {
                    try fuzzCheck(!unit.nalUnits.contains { ForbiddenZeroBit.isSet(in: $0) }, "an unmarked access unit with forbidden_zero_bit set")
                }
            case .gap(let gap):
                try fuzzCheck(gap.count > 0, "an empty gap")
                reported += gap.count
            default:
                continue
            }
        }
        let statistics = receiver.statistics
        try fuzzCheck(reported == statistics.lost, "\(reported) lost reported, \(statistics.lost) counted")
        // An MTAP (H.264 mode 2) carries units of several access units: there the bound is a byte a unit.
        let bound = packetization == .interleaved && codec == .h264 ? datagrams.reduce(0) { $0 + $1.count } : datagrams.count
        try fuzzCheck(delivered == statistics.accessUnits && delivered <= bound, "\(delivered) access units from \(datagrams.count) packets")
    }

    /// NAL units packetized and received back.
    static func roundTrip(codec: Codec, _ bytes: [UInt8], format: RTPPayloadFormat) throws(FuzzPropertyViolation) {
        guard let mtuByte = bytes.first else { return }
        let units = chunks(Array(bytes.dropFirst())).filter { (try? NALUnitHeader($0, codec: codec)) != nil }
        var options = RTPPacketizerOptions(mtu: 32 + Int(mtuByte))
        if format.usesDecodingOrderNumbers {
            options.packetizationMode = format.packetizationMode
            options.maxDonDiff = format.maxDonDiff
        }
        guard !units.isEmpty, var packetizer = try? RTPPacketizer(codec: codec, options: options) else { return }
        let packets: [RTPPacket]
        do {
            packets = try packetizer.packetize(nalUnits: units, timestamp: 1234)
        } catch {
            return
        }
        let receivedFormat = format.usesDecodingOrderNumbers ? format : RTPPayloadFormat(codec: codec)
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: receivedFormat))
        var received: [[[UInt8]]] = []
        for packet in packets {
            try fuzzCheck(packet.bytes.count <= 32 + Int(mtuByte), "a packet above the MTU")
            guard let parsed = try? RTPPacket(parsing: packet.bytes) else { throw FuzzPropertyViolation(description: "a packet written does not parse") }
            for case .accessUnit(let unit) in receiver.receive(parsed, arrival: 0) { received.append(unit.nalUnits) }
        }
        for case .accessUnit(let unit) in receiver.finish() { received.append(unit.nalUnits) }
        // The first access unit is taken whole only when its first slice begins a picture
        // (RTPReceiver: packets before the first one received cannot be counted lost).
        let firstSlice = units.first { PictureStart.startsPicture($0, codec: codec) != nil }
        let expected = firstSlice.map { PictureStart.startsPicture($0, codec: codec) == false } == true ? [] : [units]
        try fuzzCheck(received == expected, "the NAL units received differ from those sent")
    }

    /// `bytes` split into pieces each after a 2-byte big-endian length (the last cut short).
    static func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var offset = 0
        while offset + 2 <= bytes.count {
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            let end = min(offset + length, bytes.count)
            pieces.append(Array(bytes[offset..<end]))
            offset = end
        }
        return pieces
    }
}
