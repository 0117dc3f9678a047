import Testing
@testable import NALU

/// `AnnexB.findStartCodeOrZeros` (a start code or the `00 00 00` that ends a NAL unit, B.2) and
/// `AnnexB.firstNonZero` against byte loops, on the random zero-dense streams of
/// ``StartCodeSearchTests`` and on every fixture.
@Suite struct StartCodeOrZerosTests {
    static func naiveCandidate(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 <= bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] <= 1 { return index }
            index += 1
        }
        return nil
    }

    static func naiveNonZero(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count && bytes[index] == 0 { index += 1 }
        return max(start, min(index, bytes.count))
    }

    @Test func candidatesMatchTheByteLoopFromEveryStart() {
        for length in 0..<160 {
            let bytes = StartCodeSearchTests.randomStream(count: length, seed: UInt64(length) + 7)
            for start in 0...length {
                let vector = bytes.withUnsafeBytes { AnnexB.findStartCodeOrZeros(in: $0, from: start) }
                #expect(vector == Self.naiveCandidate(bytes, from: start), "length \(length) start \(start)")
                let nonZero = bytes.withUnsafeBytes { AnnexB.firstNonZero(in: $0, from: start) }
                #expect(nonZero == Self.naiveNonZero(bytes, from: start), "length \(length) start \(start)")
            }
        }
    }

    @Test func everyCandidateOfLongStreams() throws {
        var streams = (UInt64(1)...6).map { StartCodeSearchTests.randomStream(count: 30_000, seed: $0 + 500) }
        for fixture in Fixture.all.prefix(6) { streams.append(try fixture.annexB()) }
        for bytes in streams {
            let vector = StartCodeSearchTests.allStartCodes(bytes) { b, s in b.withUnsafeBytes { AnnexB.findStartCodeOrZeros(in: $0, from: s) } }
            #expect(vector == StartCodeSearchTests.allStartCodes(bytes, Self.naiveCandidate))
        }
    }

    @Test func startsPastTheEndFindNothing() {
        let bytes: [UInt8] = [0, 0, 1, 0, 0, 0]
        bytes.withUnsafeBytes { buffer in
            #expect(AnnexB.findStartCodeOrZeros(in: buffer, from: 7) == nil)
            #expect(AnnexB.findStartCodeOrZeros(in: buffer, from: Int.max) == nil)
            #expect(AnnexB.firstNonZero(in: buffer, from: Int.max) == buffer.count)
            #expect(AnnexB.findThreeZeros(in: buffer, from: 0, before: 6) == 3)
            #expect(AnnexB.findThreeZeros(in: buffer, from: 0, before: 5) == nil)
        }
    }
}
