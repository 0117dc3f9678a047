import Testing
@testable import NALU

@Suite struct AnnexBReaderTests {
    func nalUnits(_ bytes: [UInt8], chunkSize: Int? = nil) throws -> [(offset: Int64, bytes: [UInt8])] {
        var reader = AnnexBReader(MemorySource(bytes, chunkSize: chunkSize), chunkSize: 64)
        return try collectNALUnits(&reader)
    }

    @Test func threeAndFourByteStartCodes() throws {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0, 0, 0, 1, 0x65, 0x88]
        let units = try nalUnits(stream)
        #expect(units.map(\.bytes) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88]])
        #expect(units.map(\.offset) == [4, 9, 15])
        var reader = AnnexBReader(MemorySource(stream))
        var prefixes: [Int] = []
        try reader.forEachNALUnit { prefixes.append($0.prefixLength) }
        #expect(prefixes == [4, 3, 4])
    }

    @Test func trailingZeroBytesBelongToNoNALUnit() throws {
        let stream: [UInt8] = [0, 0, 1, 0x09, 0xF0, 0, 0, 0, 0, 0, 0, 1, 0x67, 0x64, 0, 0]
        let units = try nalUnits(stream)
        #expect(units.map(\.bytes) == [[0x09, 0xF0], [0x67, 0x64]])
    }

    @Test func leadingGarbageIsReportedNotReturned() throws {
        let stream: [UInt8] = [0xAB, 0xCD, 0x00, 0xEF, 0, 0, 0, 1, 0x67, 0x64]
        var reader = AnnexBReader(MemorySource(stream))
        let units = try collectNALUnits(&reader)
        #expect(units.map(\.bytes) == [[0x67, 0x64]])
        #expect(reader.leadingGarbageBytes == 3)
    }

    @Test func inputWithoutStartCodeYieldsNothing() throws {
        var reader = AnnexBReader(MemorySource([1, 2, 3, 4, 5]))
        let units = try collectNALUnits(&reader)
        #expect(units.isEmpty)
        #expect(reader.leadingGarbageBytes == 5)
    }

    @Test func emptyNALUnitsAreSkippedAndCounted() throws {
        let stream: [UInt8] = [0, 0, 1, 0, 0, 1, 0x67, 0, 0, 1]
        var reader = AnnexBReader(MemorySource(stream))
        let units = try collectNALUnits(&reader)
        #expect(units.map(\.bytes) == [[0x67]])
        #expect(reader.emptyNALUnits == 2)
    }

    @Test func emulationPreventedBytesAreNotStartCodes() throws {
        let stream: [UInt8] = [0, 0, 1, 0x06, 0x00, 0x00, 0x03, 0x01, 0x80, 0, 0, 1, 0x68]
        let units = try nalUnits(stream)
        #expect(units.map(\.bytes) == [[0x06, 0x00, 0x00, 0x03, 0x01, 0x80], [0x68]])
    }

    @Test func startCodeSplitAcrossEveryChunkBoundary() throws {
        var stream: [UInt8] = []
        for index in 0..<40 {
            stream += index % 2 == 0 ? [0, 0, 0, 1] : [0, 0, 1]
            stream += (0..<(index % 7 + 1)).map { UInt8(0x40 + $0 + index) }
            if index % 5 == 0 { stream += [0, 0] }
        }
        let expected = try nalUnits(stream)
        #expect(expected.count == 40)
        for chunk in 1...9 {
            let split = try nalUnits(stream, chunkSize: chunk)
            #expect(split.map(\.bytes) == expected.map(\.bytes), "chunk size \(chunk)")
            #expect(split.map(\.offset) == expected.map(\.offset), "chunk size \(chunk)")
        }
    }

    @Test func inMemoryScanMatchesStreamingReader() throws {
        for fixture in Fixture.all {
            let bytes = try fixture.annexB()
            let inMemory = AnnexB.nalUnits(in: bytes).map(Array.init)
            let streamed = try nalUnits(bytes, chunkSize: 997).map(\.bytes)
            #expect(inMemory == streamed, "\(fixture.name)")
        }
    }

    @Test func nalUnitLargerThanLimitIsAnError() {
        let stream: [UInt8] = [0, 0, 1] + [UInt8](repeating: 0x55, count: 1000)
        var reader = AnnexBReader(MemorySource(stream), chunkSize: 64, maxNALUnitSize: 128)
        #expect(throws: NALUError.self) { try reader.forEachNALUnit { _ in } }
    }

    /// Every fixture's NAL unit types equal those ffmpeg's trace_headers filter reported.
    @Test(arguments: Fixture.all) func nalTypesMatchFFmpeg(fixture: Fixture) throws {
        let facts = try fixture.facts()
        let expected = facts.packet_nal_types.flatMap { $0 }
        var reader = AnnexBReader(MemorySource(try fixture.annexB(), chunkSize: 4093), chunkSize: 4096)
        let types = try collectNALUnits(&reader).map { unit in
            Int(try NALUnitHeader(unit.bytes, codec: fixture.codec).typeNumber)
        }
        #expect(types == expected)
    }
}
