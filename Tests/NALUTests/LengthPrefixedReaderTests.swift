import Testing
@testable import NALU

@Suite struct LengthPrefixedReaderTests {
    func read(_ bytes: [UInt8], lengthSize: Int, chunkSize: Int? = nil) throws -> [[UInt8]] {
        var reader = try LengthPrefixedReader(MemorySource(bytes, chunkSize: chunkSize), lengthSize: lengthSize, chunkSize: 64)
        var units: [[UInt8]] = []
        try reader.forEachNALUnit { units.append($0.array) }
        return units
    }

    @Test(arguments: [1, 2, 4]) func readsEachLengthSize(lengthSize: Int) throws {
        let units: [[UInt8]] = [[0x67, 0x64, 0x00], [0x68], [0x65] + [UInt8](repeating: 0x11, count: 200)]
        var stream: [UInt8] = []
        for unit in units {
            var writer = ByteWriter()
            writer.uint(UInt64(unit.count), width: lengthSize)
            stream += writer.bytes + unit
        }
        if lengthSize == 1 {
            // 200 + 1 bytes still fits one byte.
            #expect(try read(stream, lengthSize: 1) == units)
        } else {
            for chunk in [nil, 1, 3, 5] {
                #expect(try read(stream, lengthSize: lengthSize, chunkSize: chunk) == units)
            }
        }
    }

    @Test func zeroLengthUnitsAreSkipped() throws {
        var reader = try LengthPrefixedReader(MemorySource([0, 0, 0, 0, 0, 0, 0, 1, 0x09, 0, 0, 0, 0]), lengthSize: 4)
        var units: [[UInt8]] = []
        try reader.forEachNALUnit { units.append($0.array) }
        #expect(units == [[0x09]])
        #expect(reader.zeroLengthNALUnits == 2)
    }

    @Test func lengthPastTheEndNamesTheOffset() throws {
        // One good NAL unit, then a length of 100 with 3 bytes behind it.
        let stream: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 100, 1, 2, 3]
        var reader = try LengthPrefixedReader(MemorySource(stream, chunkSize: 4), lengthSize: 4)
        var units = 0
        do {
            try reader.forEachNALUnit { _ in units += 1 }
            Issue.record("expected an error")
        } catch let error as NALUError {
            #expect(units == 1)
            #expect(error.code == .lengthPastEnd)
            #expect(error.byteOffset == 6)
            #expect(error.description == "NAL unit length: length past end (length 100, 3 bytes left) at byte 6")
        }
    }

    @Test func truncatedLengthField() throws {
        var reader = try LengthPrefixedReader(MemorySource([0, 0, 0, 1, 0x09, 0, 0]), lengthSize: 4)
        do {
            try reader.forEachNALUnit { _ in }
            Issue.record("expected an error")
        } catch let error as NALUError {
            #expect(error.code == .truncated)
            #expect(error.byteOffset == 5)
        }
    }

    @Test func lengthSizeThreeIsRejected() {
        #expect(throws: NALUError.self) { _ = try LengthPrefixedReader(MemorySource([]), lengthSize: 3) }
    }

    @Test func hostileLengthDoesNotAllocateItsClaim() throws {
        // Claims ~1 GiB, delivers 10 bytes: must fail at the end of input, not allocate.
        let stream: [UInt8] = [0x3F, 0xFF, 0xFF, 0xF0] + [UInt8](repeating: 1, count: 10)
        var reader = try LengthPrefixedReader(MemorySource(stream), lengthSize: 4)
        #expect(throws: NALUError.self) { try reader.forEachNALUnit { _ in } }
    }

    /// The MP4 samples of every fixture hold the same NAL units as its Annex-B stream. ffmpeg's
    /// MP4 muxer keeps the `zero_byte` of a following 4-byte start code at the end of a NAL unit
    /// (x265 writes 4-byte start codes throughout); such trailing zero bytes belong to no NAL unit
    /// (ITU-T H.265 B.2) and are trimmed before comparing.
    @Test(arguments: Fixture.all) func fixtureSamplesMatchAnnexB(fixture: Fixture) throws {
        let annexB = AnnexB.nalUnits(in: try fixture.annexB()).map(Array.init)
        let samples = try read(try fixture.lengthPrefixed(), lengthSize: 4, chunkSize: 1500).map { unit in
            var unit = unit
            while unit.last == 0 { unit.removeLast() }
            return unit
        }
        #expect(samples.count == annexB.count)
        let firstDifference = zip(samples, annexB).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil)
    }
}

@Suite struct FormatDetectionTests {
    @Test(arguments: Fixture.all) func detectsFixtures(fixture: Fixture) throws {
        let annexB = try ElementaryStreamReader(MemorySource(try fixture.annexB()))
        #expect(annexB.format == .annexB)
        #expect(annexB.codec == fixture.codec)
        let lengthPrefixed = try ElementaryStreamReader(MemorySource(try fixture.lengthPrefixed()))
        #expect(lengthPrefixed.format == .lengthPrefixed)
        #expect(lengthPrefixed.lengthSize == 4)
        #expect(lengthPrefixed.codec == fixture.codec)
    }

    @Test func emptyInputIsAnError() {
        #expect(throws: NALUError.self) { _ = try ElementaryStreamReader(MemorySource([])) }
    }

    @Test func garbageIsUnrecognised() {
        do {
            _ = try ElementaryStreamReader(MemorySource([0xFF, 0xFE, 0xFD, 0xFC, 0xFB]))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unrecognisedFormat)
        }
    }

    @Test func replayedPrefixGivesTheWholeStream() throws {
        for fixture in Fixture.all.prefix(4) {
            let bytes = try fixture.annexB()
            var reader = try ElementaryStreamReader(MemorySource(bytes, chunkSize: 1000))
            var count = 0
            try reader.forEachNALUnit { _ in count += 1 }
            #expect(count == AnnexB.nalUnits(in: bytes).count)
        }
    }
}
