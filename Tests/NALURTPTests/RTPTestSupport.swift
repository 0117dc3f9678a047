import Foundation
import NALU
import NALUMedia
import NALURTP

/// Fixtures, real access units and a seeded packet injector for the RTP tests.
enum RTPTestSupport {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func fixture(_ name: String) -> String { repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)").path }

    /// The coded access units of a fixture as `MediaReader` yields them (times in the track's timescale).
    static func accessUnits(_ name: String) throws -> (codec: Codec, timescale: Int64, sets: [[UInt8]], units: [CodedAccessUnit]) {
        let reader = try MediaReader(path: fixture(name), options: MediaReaderOptions(readsOtherTracks: false))
        var units: [CodedAccessUnit] = []
        while let unit = try reader.nextAccessUnit() { units.append(unit) }
        return (reader.codec, Int64(reader.timescale ?? 90_000), reader.outOfBandParameterSets, units)
    }

    /// Every packet of `name` as `RTPStreamSender` sends it, and the access units sent (parameter
    /// sets inserted), in order.
    static func packets(_ name: String, options: RTPPacketizerOptions) throws -> (codec: Codec, packets: [RTPPacket], sent: [[[UInt8]]]) {
        let (codec, timescale, sets, units) = try accessUnits(name)
        var sender = try RTPStreamSender(codec: codec, timescale: timescale, parameterSets: sets, options: options)
        var packets: [RTPPacket] = []
        var sent: [[[UInt8]]] = []
        for unit in units {
            let unitPackets = try sender.packets(for: unit, pts: unit.pts ?? 0)
            packets += unitPackets
            var depacketizer = RTPDepacketizer(format: RTPPayloadFormat(codec: codec))
            sent.append(try unitPackets.flatMap { try depacketizer.depacketize($0.payload).nalUnits.map(\.bytes) })
        }
        return (codec, packets, sent)
    }

    /// A small deterministic generator (SplitMix64).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
    }

    /// `packets` with some lost, duplicated and swapped with a neighbour, chosen by `seed`; and the
    /// sequence numbers lost.
    static func inject(_ packets: [RTPPacket], seed: UInt64, lossPercent: UInt64, duplicatePercent: UInt64,
                       reorderPercent: UInt64) -> (packets: [RTPPacket], lost: Set<UInt16>) {
        var generator = Generator(state: seed)
        var out: [RTPPacket] = []
        var lost: Set<UInt16> = []
        for packet in packets {
            if generator.chance(lossPercent) {
                lost.insert(packet.sequenceNumber)
                continue
            }
            out.append(packet)
            if generator.chance(duplicatePercent) { out.append(packet) }
        }
        var index = 0
        while index + 1 < out.count {
            if generator.chance(reorderPercent) {
                out.swapAt(index, index + 1)
                index += 2
            } else {
                index += 1
            }
        }
        return (out, lost)
    }
}
