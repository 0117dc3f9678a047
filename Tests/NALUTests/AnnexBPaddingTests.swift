import Testing
@testable import NALU

/// Zero padding after a NAL unit (trailing_zero_8bits, B.2) is consumed in constant memory: a NAL
/// unit ends at the first `00 00 00`, so the zeros never join the buffered unit (issue 18 row 7).
@Suite struct AnnexBPaddingTests {
    @Test func paddingFarLargerThanTheNALUnitLimit() throws {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0x80] + [UInt8](repeating: 0, count: 100_000) + [0, 0, 1, 0x68, 0xCE, 0x80]
            + [UInt8](repeating: 0, count: 100_000)
        for chunk in [1, 7, 4096, nil] {
            var reader = AnnexBReader(MemorySource(stream, chunkSize: chunk), chunkSize: 64, maxNALUnitSize: 64)
            let units = try collectNALUnits(&reader)
            #expect(units.map(\.bytes) == [[0x67, 0x42, 0x80], [0x68, 0xCE, 0x80]])
            #expect(units.map(\.offset) == [4, 100_010])
            #expect(reader.discardedBytes == 0 && reader.leadingGarbageBytes == 0)
        }
    }

    @Test func bytesAfterTrailingZerosBelongToNoNALUnit() throws {
        // 00 00 00 ends the SPS; AB CD before the next start code are not part of it (B.2).
        let stream: [UInt8] = [0, 0, 1, 0x67, 0x42, 0, 0, 0, 0xAB, 0xCD, 0, 0, 1, 0x68, 0xCE]
        for chunk in [1, 3, nil] {
            var reader = AnnexBReader(MemorySource(stream, chunkSize: chunk), chunkSize: 64)
            let units = try collectNALUnits(&reader)
            #expect(units.map(\.bytes) == [[0x67, 0x42], [0x68, 0xCE]])
            #expect(reader.discardedBytes == 2)
        }
        // The in-memory scanner splits the same way.
        #expect(AnnexB.nalUnits(in: stream).map(Array.init) == [[0x67, 0x42], [0x68, 0xCE]])
    }

    @Test func findThreeZerosMatchesANaiveSearch() {
        let bytes: [UInt8] = [1, 0, 0, 2, 0, 0, 0, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]
        bytes.withUnsafeBytes { buffer in
            for start in 0..<bytes.count {
                for limit in start...bytes.count {
                    let naive = (start..<max(start, limit - 2)).first { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 0 }
                    #expect(AnnexB.findThreeZeros(in: buffer, from: start, before: limit) == naive, "\(start)..<\(limit)")
                }
            }
        }
    }
}

/// The push framer ends NAL units where the reader does, so padding never fills its buffer.
@Suite struct AnnexBFramerPaddingTests {
    @Test func zeroPaddingPassesThroughASmallFramer() throws {
        var framer = AnnexBFramer(maxBufferedBytes: 4096)
        var units: [[UInt8]] = try framer.append([0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1E])
        let zeros = [UInt8](repeating: 0, count: 1000)
        for _ in 0..<1000 { units += try framer.append(zeros) }   // 1 MB of trailing_zero_8bits
        units += try framer.append([0, 0, 1, 0x68, 0xCE, 0x38, 0x80])
        units += framer.finish()
        #expect(units == [[0x67, 0x42, 0x00, 0x1E], [0x68, 0xCE, 0x38, 0x80]])
        #expect(framer.leadingGarbageBytes == 0)
    }

    @Test func framerMatchesTheReaderOnPaddedStreamsInAnyChunking() throws {
        // NAL units, zero runs (some with junk after them), start codes of both lengths.
        var stream: [UInt8] = [0x11, 0, 0, 1, 0x65, 0x88, 0x84, 0, 0, 0, 0, 0, 0x07, 0, 0, 0, 1, 0x41, 0x9A]
        stream += [UInt8](repeating: 0, count: 300) + [0, 0, 1, 0x06, 0x05, 0, 0, 3, 0, 0x80, 0, 0, 0]
        let expected = try collectWithReader(stream)
        for chunk in [1, 2, 3, 5, 7, 64, 1000] {
            var framer = AnnexBFramer()
            var units: [[UInt8]] = []
            var index = 0
            while index < stream.count {
                units += try framer.append(Array(stream[index..<min(stream.count, index + chunk)]))
                index += chunk
            }
            units += framer.finish()
            #expect(units == expected.units, "chunk \(chunk)")
            #expect(framer.leadingGarbageBytes == expected.garbage, "chunk \(chunk)")
        }
    }

    private func collectWithReader(_ stream: [UInt8]) throws -> (units: [[UInt8]], garbage: Int64) {
        var reader = AnnexBReader(MemorySource(stream, chunkSize: 5), chunkSize: 64)
        var units: [[UInt8]] = []
        try reader.forEachNALUnit { units.append($0.array) }
        return (units, reader.leadingGarbageBytes + reader.discardedBytes)
    }
}
