import Testing
import NALU
import NALUIO

/// `ReadAhead` (a second thread reading, and finding start codes, ahead of the parser) must not
/// change what the readers deliver: the same NAL units at the same offsets with the same counts,
/// whatever the read, chunk and headroom sizes (every path of the buffer exchange: the swap, an
/// unfinished NAL unit larger than the headroom, a chunk put back), against the plain reader.
@Suite struct ReadAheadTests {
    struct Reading: Equatable, CustomStringConvertible {
        var units: [[Int64]] = []
        var bytes: [[UInt8]] = []
        var leadingGarbage: Int64 = 0
        var discarded: Int64 = 0
        var empty = 0
        var description: String { "\(units.count) NAL units, garbage \(leadingGarbage), discarded \(discarded), empty \(empty)" }
    }

    static func read(_ source: some ByteSource, chunkSize: Int) throws -> Reading {
        var reader = AnnexBReader(source, chunkSize: chunkSize)
        var reading = Reading()
        try reader.forEachNALUnit(beforeReuse: {}) { unit in
            reading.units.append([unit.offset, Int64(unit.prefixLength)])
            reading.bytes.append(Array(unit.bytes))
        }
        reading.leadingGarbage = reader.leadingGarbageBytes
        reading.discarded = reader.discardedBytes
        reading.empty = reader.emptyNALUnits
        return reading
    }

    /// Bytes that exercise the edges: start codes of three and four bytes, zero runs of every
    /// length (trailing_zero_8bits), garbage, empty NAL units, start codes at every offset.
    static func awkwardStream(seed: UInt64, count: Int) -> [UInt8] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 64)
        while bytes.count < count {
            switch next() % 8 {
            case 0: bytes += [0, 0, 1]
            case 1: bytes += [0, 0, 0, 1]
            case 2: bytes += [UInt8](repeating: 0, count: Int(next() % 300))
            case 3: bytes += [0, 0, 1, 0, 0, 1]
            default:
                for _ in 0..<Int(next() % 200) { bytes.append(UInt8(truncatingIfNeeded: next() % 7 == 0 ? 0 : next() | 1)) }
            }
        }
        return bytes
    }

    @Test(arguments: [(7, 16, 3, 0), (64, 100, 5, 10), (4096, 1000, 700, 300), (1 << 16, 1 << 16, 1 << 14, 1 << 12)])
    func awkwardStreamsReadTheSame(readSize: Int, readerChunk: Int, aheadChunk: Int, headroom: Int) throws {
        for seed in 1...6 as ClosedRange<UInt64> {
            let bytes = Self.awkwardStream(seed: seed, count: 200_000)
            let plain = try Self.read(MemorySource(bytes, chunkSize: readSize), chunkSize: readerChunk)
            for findsStartCodes in [false, true] {
                let ahead = ReadAhead(MemorySource(bytes, chunkSize: readSize), chunkSize: aheadChunk, headroom: headroom,
                                      depth: 2, findsStartCodes: findsStartCodes)
                let reading = try Self.read(ahead, chunkSize: readerChunk)
                #expect(reading == plain, "seed \(seed), start codes found ahead: \(findsStartCodes)")
            }
        }
    }

    @Test(arguments: Fixture.all)
    func fixturesReadTheSame(fixture: Fixture) throws {
        let bytes = try fixture.annexB()
        let plain = try Self.read(MemorySource(bytes), chunkSize: 1 << 20)
        #expect(plain.units.count > 0)
        for (readSize, aheadChunk, headroom) in [(4093, 8192, 1024), (1 << 20, 1 << 16, 1 << 15), (100, 5000, 0)] {
            let ahead = ReadAhead(MemorySource(bytes, chunkSize: readSize), chunkSize: aheadChunk, headroom: headroom,
                                  findsStartCodes: true)
            #expect(try Self.read(ahead, chunkSize: 1 << 14) == plain, "read \(readSize), chunk \(aheadChunk), headroom \(headroom)")
        }
    }

    /// The thread may search only the first eighths of each buffer (the search moves between
    /// the threads with the load); the reader searches the rest: every split gives the same NAL units.
    @Test(arguments: 0...8)
    func partlySearchedBuffersReadTheSame(searchedEighths: Int) throws {
        for seed in 7...9 as ClosedRange<UInt64> {
            let bytes = Self.awkwardStream(seed: seed, count: 150_000)
            let plain = try Self.read(MemorySource(bytes, chunkSize: 1000), chunkSize: 1 << 12)
            for (aheadChunk, headroom) in [(997, 64), (8192, 1024), (1 << 16, 0)] {
                let ahead = ReadAhead(MemorySource(bytes, chunkSize: 1 << 16), chunkSize: aheadChunk, headroom: headroom,
                                      findsStartCodes: true, searchedEighths: searchedEighths)
                #expect(try Self.read(ahead, chunkSize: 1 << 12) == plain, "seed \(seed), chunk \(aheadChunk), headroom \(headroom)")
            }
        }
        for fixture in Fixture.all {
            let bytes = try fixture.annexB()
            let plain = try Self.read(MemorySource(bytes), chunkSize: 1 << 20)
            let ahead = ReadAhead(MemorySource(bytes, chunkSize: 4093), chunkSize: 8192, headroom: 1024,
                                  findsStartCodes: true, searchedEighths: searchedEighths)
            #expect(try Self.read(ahead, chunkSize: 1 << 14) == plain, "\(fixture)")
        }
    }

    static func readLengthPrefixed(_ source: some ByteSource, chunkSize: Int) throws -> Reading {
        var reader = try LengthPrefixedReader(source, lengthSize: 4, chunkSize: chunkSize)
        var reading = Reading()
        try reader.forEachNALUnit(beforeReuse: {}) { unit in
            reading.units.append([unit.offset, Int64(unit.prefixLength)])
            reading.bytes.append(Array(unit.bytes))
        }
        reading.empty = reader.zeroLengthNALUnits
        return reading
    }

    @Test(arguments: Fixture.all)
    func lengthPrefixedFixturesReadTheSame(fixture: Fixture) throws {
        let bytes = try fixture.lengthPrefixed()
        let plain = try Self.readLengthPrefixed(MemorySource(bytes), chunkSize: 1 << 20)
        #expect(plain.units.count > 0)
        for (readSize, aheadChunk, headroom) in [(4093, 8192, 1024), (1 << 20, 1 << 16, 1 << 15), (100, 5000, 0), (7, 3, 2)] {
            for lengthSize in [nil, 4] as [Int?] {
                let ahead = ReadAhead(MemorySource(bytes, chunkSize: readSize), chunkSize: aheadChunk, headroom: headroom,
                                      lengthSize: lengthSize)
                #expect(try Self.readLengthPrefixed(ahead, chunkSize: 1 << 14) == plain,
                        "read \(readSize), chunk \(aheadChunk), headroom \(headroom), lengths followed: \(lengthSize != nil)")
            }
        }
    }

    /// A zero flood (legal trailing_zero_8bits) keeps the start-code list at its limit.
    @Test func zeroFloodStaysWithinTheListLimit() throws {
        var bytes: [UInt8] = [0, 0, 0, 1, 0x65, 0x88]
        bytes += [UInt8](repeating: 0, count: 3 << 20)
        bytes += [0, 0, 1, 0x41, 0x9a]
        let plain = try Self.read(MemorySource(bytes), chunkSize: 1 << 16)
        let ahead = ReadAhead(MemorySource(bytes), findsStartCodes: true)
        #expect(try Self.read(ahead, chunkSize: 1 << 16) == plain)
        #expect(plain.units.map { $0[0] } == [4, Int64(bytes.count - 2)])

        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        let candidates = zeros.withUnsafeBytes { StartCodeCandidates(of: $0) }
        #expect(candidates.positions == [0])
        #expect(candidates.covered == (1 << 16) - 2)
        let startCodes = [UInt8]((0..<(StartCodeCandidates.limit + 100)).flatMap { _ in [0, 0, 1, 9] as [UInt8] })
        let many = startCodes.withUnsafeBytes { StartCodeCandidates(of: $0) }
        #expect(many.positions.count == StartCodeCandidates.limit)
        #expect(many.covered == 4 * StartCodeCandidates.limit)
    }

    /// A source that pauses (a read of 0, then more bytes: a file still being written) is read
    /// with `forEachCompleteNALUnit` and `finish`: after the thread has seen the pause it stops,
    /// and the reader reads on directly, with the same NAL units as without it.
    @Test func pausingSourceResumesAfterTheThreadStopped() throws {
        final class Pausing: ByteSource {
            var parts: [[UInt8]]
            init(_ parts: [[UInt8]]) { self.parts = parts }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
                guard !parts.isEmpty else { return 0 }
                let part = parts.removeFirst()
                buffer.copyBytes(from: part)
                return part.count
            }
        }
        let first: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xce, 0, 0, 1, 0x65, 0x88]
        let second: [UInt8] = [0x84, 0, 0, 1, 0x41, 0x9a, 0x22]
        func read(_ source: some ByteSource) throws -> [[Int64]] {
            var reader = AnnexBReader(source, chunkSize: 4096)
            var units: [[Int64]] = []
            let body: (NALUnitView) throws -> Void = { units.append([$0.offset, Int64($0.bytes.count)]) }
            try reader.forEachCompleteNALUnit(body)
            units.append([-1])
            try reader.forEachCompleteNALUnit(body)
            try reader.finish(body)
            return units
        }
        // `[]` is a read of 0: the pause.
        let plain = try read(Pausing([first, [], second]))
        #expect(plain == [[4, 2], [9, 2], [-1], [14, 3], [20, 3]])
        #expect(try read(ReadAhead(Pausing([first, [], second]), findsStartCodes: true)) == plain)
    }

    /// An error of the source reaches the reader in stream order, after the bytes before it.
    @Test func sourceErrorArrivesAfterTheBytesBeforeIt() throws {
        struct Failing: ByteSource {
            var sent = false
            mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
                if sent { throw NALUError(.io, field: "test input", detail: "device gone") }
                sent = true
                let bytes: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xce, 0, 0, 1, 0x65]
                buffer.copyBytes(from: bytes)
                return bytes.count
            }
        }
        var units: [Int64] = []
        var reader = AnnexBReader(ReadAhead(Failing(), findsStartCodes: true), chunkSize: 4096)
        #expect(throws: NALUError.self) {
            try reader.forEachNALUnit(beforeReuse: {}) { units.append($0.offset) }
        }
        #expect(units == [4, 9])
    }
}
