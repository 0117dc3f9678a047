import Testing
@testable import NALU

/// A reader given a ``BufferRetirement`` never writes to memory it delivered NAL units from: every
/// view it lent still holds its NAL unit after the whole stream was read (nothing retired is
/// freed until the end), on real streams and on awkward ones, read in chunks so small that NAL
/// units straddle reads and the buffer grows for NAL units larger than a chunk.
@Suite struct BufferRetirementTests {
    /// Keeps every retired buffer until the test ends; hands none out again unless `reuses`.
    final class KeepingRetirement: BufferRetirement {
        var retired: [UnsafeMutableRawBufferPointer] = []
        var reused = 0
        let reuses: Bool
        /// Buffers the consumer is done with (the test's stand-in for a written batch).
        var released: [UnsafeMutableRawBufferPointer] = []

        init(reuses: Bool = false) { self.reuses = reuses }

        func retire(_ buffer: UnsafeMutableRawBufferPointer) { retired.append(buffer) }

        func reusableBuffer(byteCount: Int) -> UnsafeMutableRawBufferPointer? {
            guard reuses, let index = released.firstIndex(where: { $0.count == byteCount }) else { return nil }
            reused += 1
            return released.remove(at: index)
        }

        func freeAll() {
            for buffer in retired + released { buffer.deallocate() }
            retired = []
            released = []
        }
    }

    /// The NAL units as a plain reader delivers them, copied at once.
    static func plain(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var reader = AnnexBReader(MemorySource(bytes), chunkSize: 1 << 20)
        var units: [[UInt8]] = []
        try reader.forEachNALUnit { units.append(Array($0.bytes)) }
        return units
    }

    /// The NAL units read through views kept until the end (their bytes compared only then).
    static func keptViews(_ bytes: [UInt8], chunkSize: Int, readSize: Int, retirement: KeepingRetirement) throws -> [[UInt8]] {
        var views: [UnsafeRawBufferPointer] = []
        do {
            var reader = AnnexBReader(MemorySource(bytes, chunkSize: readSize), chunkSize: chunkSize, retirement: retirement)
            try reader.forEachNALUnit(beforeReuse: {}) { unit in views.append(unit.bytes) }
        }
        // The reader is gone: its last buffer was retired too.
        return views.map { Array($0) }
    }

    @Test(arguments: Fixture.all)
    func fixturesKeepTheirBytes(fixture: Fixture) throws {
        let bytes = try fixture.annexB()
        let expected = try Self.plain(bytes)
        #expect(!expected.isEmpty)
        for (chunkSize, readSize) in [(64, 64), (1000, 333), (4096, 4096), (1 << 16, 1 << 20)] {
            let retirement = KeepingRetirement()
            defer { retirement.freeAll() }
            #expect(try Self.keptViews(bytes, chunkSize: chunkSize, readSize: readSize, retirement: retirement) == expected,
                    "\(fixture), chunks of \(chunkSize), reads of \(readSize)")
            #expect(!retirement.retired.isEmpty)
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func awkwardStreamsKeepTheirBytes(seed: UInt64) throws {
        // Zero runs of every length, 3- and 4-byte start codes, empty NAL units, garbage.
        let bytes = ReadAheadTests.awkwardStream(seed: seed, count: 60_000)
        let expected = try Self.plain(bytes)
        for (chunkSize, readSize) in [(64, 7), (256, 1000), (4096, 100)] {
            let retirement = KeepingRetirement()
            defer { retirement.freeAll() }
            #expect(try Self.keptViews(bytes, chunkSize: chunkSize, readSize: readSize, retirement: retirement) == expected,
                    "seed \(seed), chunks of \(chunkSize), reads of \(readSize)")
        }
    }

    /// A NAL unit many times the chunk size: the buffer grows into new buffers (retiring each
    /// old one) instead of moving its bytes, and the small NAL units around it keep theirs.
    @Test func largeNALUnitGrowsIntoNewBuffers() throws {
        var bytes: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0]
        bytes += [0, 0, 0, 1, 0x65] + (0..<50_000).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        bytes += [0, 0, 1, 0x06, 0x05, 0x80]
        let expected = try Self.plain(bytes)
        #expect(expected.count == 3)
        #expect(expected[1].count == 50_001)
        let retirement = KeepingRetirement()
        defer { retirement.freeAll() }
        #expect(try Self.keptViews(bytes, chunkSize: 64, readSize: 64, retirement: retirement) == expected)
        // 64 → 128 → … → at least 65,536 bytes: each size retired once at least.
        #expect(retirement.retired.count >= 11)
        #expect((retirement.retired.map(\.count).max() ?? 0) >= 1 << 16)
    }

    /// Buffers the consumer released are taken again (same size) instead of new ones.
    @Test func releasedBuffersAreReused() throws {
        let bytes = ReadAheadTests.awkwardStream(seed: 3, count: 200_000)
        let expected = try Self.plain(bytes)
        let retirement = KeepingRetirement(reuses: true)
        defer { retirement.freeAll() }
        var units: [[UInt8]] = []
        do {
            var reader = AnnexBReader(MemorySource(bytes, chunkSize: 4096), chunkSize: 4096, retirement: retirement)
            try reader.forEachNALUnit(beforeReuse: {
                // The consumer is done with everything delivered so far: copy, then release.
                retirement.released += retirement.retired
                retirement.retired = []
            }) { unit in units.append(Array(unit.bytes)) }
        }
        #expect(units == expected)
        #expect(retirement.reused > 10)
    }
}
