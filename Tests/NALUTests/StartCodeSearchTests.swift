import Testing
@testable import NALU

/// The vector start-code scan (`AnnexB.findStartCode`) against the obvious byte loop, on random
/// bytes dense with zeros and start codes, on every real fixture, and through the streaming
/// reader with start codes split across chunk edges.
@Suite struct StartCodeSearchTests {
    /// The reference: the first `00 00 01` at or after `start`, one byte at a time.
    static func naiveFind(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 <= bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 { return index }
            index += 1
        }
        return nil
    }

    static func find(_ bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBytes { AnnexB.findStartCode(in: $0, from: start) }
    }

    /// Every start code, found by chaining searches from just past the previous one.
    static func allStartCodes(_ bytes: [UInt8], _ search: ([UInt8], Int) -> Int?) -> [Int] {
        var found: [Int] = []
        var position = 0
        while let next = search(bytes, position) {
            found.append(next)
            position = next + 1
        }
        return found
    }

    /// Random bytes where zeros, `00 00 00`, `00 00 01`, `00 00 02`, `00 00 03` and `01` are common,
    /// so every lane of every 16- and 64-byte block sees candidates, true and false.
    static func randomStream(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 4)
        while bytes.count < count {
            switch generator.next() % 10 {
            case 0: bytes += [0, 0, 1]
            case 1: bytes += [0, 0, 0, 1]
            case 2: bytes += [0, 0, UInt8(truncatingIfNeeded: generator.next() % 4)]
            case 3: bytes.append(0)
            case 4: bytes.append(1)
            default: bytes.append(UInt8(truncatingIfNeeded: generator.next()))
            }
        }
        return Array(bytes.prefix(count))
    }

    @Test func matchesNaiveLoopFromEveryStartOnShortBuffers() {
        for length in 0..<200 {
            let bytes = Self.randomStream(count: length, seed: UInt64(length))
            for start in 0...length {
                #expect(Self.find(bytes, from: start) == Self.naiveFind(bytes, from: start),
                        "length \(length) start \(start)")
            }
        }
    }

    @Test func startPastTheEndFindsNothing() {
        let bytes = Self.randomStream(count: 300, seed: 7)
        for start in [301, 1_000, Int.max - 10, Int.max] {
            #expect(Self.find(bytes, from: start) == nil, "start \(start)")
        }
    }

    @Test func matchesNaiveLoopOnRandomData() {
        for seed in UInt64(1)...20 {
            let bytes = Self.randomStream(count: 20_000 + Int(seed) * 37, seed: seed)
            #expect(Self.allStartCodes(bytes, Self.find) == Self.allStartCodes(bytes, Self.naiveFind), "seed \(seed)")
        }
    }

    @Test func startCodeInEveryLaneOfA64ByteBlock() {
        // One start code per buffer at each position, in a zero-free background and in a
        // background of zero pairs that are not start codes (00 00 02 / 00 00 03).
        for background in [UInt8(0x55), 0] {
            for position in 0..<150 {
                var bytes = [UInt8](repeating: background == 0 ? 0x80 : background, count: 160)
                if background == 0 {
                    var index = 0
                    while index + 3 <= bytes.count {
                        bytes[index] = 0; bytes[index + 1] = 0; bytes[index + 2] = 3
                        index += 5
                    }
                }
                bytes[position] = 0; bytes[position + 1] = 0; bytes[position + 2] = 1
                #expect(Self.allStartCodes(bytes, Self.find) == Self.allStartCodes(bytes, Self.naiveFind),
                        "position \(position)")
            }
        }
    }

    @Test func matchesNaiveLoopOnEveryFixture() throws {
        for fixture in Fixture.all {
            let bytes = try fixture.annexB()
            #expect(Self.allStartCodes(bytes, Self.find) == Self.allStartCodes(bytes, Self.naiveFind), "\(fixture.name)")
        }
    }

    /// The NAL units of a stream split by the naive search (the framing rules of ``AnnexBReader``).
    static func naiveNALUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        let starts = allStartCodes(bytes, naiveFind).reduce(into: [Int]()) { kept, start in
            if let last = kept.last, start < last + 3 { return }
            kept.append(start)
        }
        var units: [[UInt8]] = []
        for (index, start) in starts.enumerated() {
            var end = index + 1 < starts.count ? starts[index + 1] : bytes.count
            // B.2: a NAL unit also ends at the first `00 00 00` (the trailing zero bytes).
            if let zeros = ((start + 3)..<max(start + 3, end - 2)).first(where: { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 0 }) {
                end = zeros
            }
            while end > start + 3 && bytes[end - 1] == 0 { end -= 1 }
            if end > start + 3 { units.append(Array(bytes[(start + 3)..<end])) }
        }
        return units
    }

    @Test func streamingReaderMatchesNaiveSplitAcrossChunkEdges() throws {
        var streams: [(String, [UInt8])] = (UInt64(1)...4).map { ("random \($0)", Self.randomStream(count: 5_000, seed: $0 + 100)) }
        for fixture in Fixture.all.prefix(4) { streams.append((fixture.name, try fixture.annexB())) }
        for (name, bytes) in streams {
            let expected = Self.naiveNALUnits(bytes)
            for chunk in [1, 2, 3, 5, 15, 16, 17, 63, 64, 65, 66, 67, 1000] {
                var reader = AnnexBReader(MemorySource(bytes, chunkSize: chunk), chunkSize: 64)
                let units = try collectNALUnits(&reader).map(\.bytes)
                #expect(units == expected, "\(name), chunk \(chunk)")
            }
        }
    }
}
