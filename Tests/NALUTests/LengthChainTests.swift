import Testing
@testable import NALU

/// `LengthChain` (the read-ahead thread following a length-prefixed stream's lengths so the
/// parser can load its next NAL units ahead) on ffmpeg's length-prefixed fixtures: it reports
/// exactly the length fields, wherever the buffers split the stream, and finds the chain when it
/// starts reading mid-stream.
@Suite struct LengthChainTests {
    /// Offsets of every length field of a length-prefixed stream, walked from offset 0.
    static func lengthFields(_ bytes: [UInt8], lengthSize: Int = 4) -> [Int] {
        var fields: [Int] = []
        var position = 0
        bytes.withUnsafeBytes { buffer in
            while position + lengthSize <= buffer.count {
                fields.append(position)
                position += lengthSize + LengthPrefixed.length(in: buffer, at: position, lengthSize: lengthSize)
            }
        }
        return fields
    }

    /// Feeds `bytes[from...]` to a chain in buffers of `size` bytes; the positions, as offsets
    /// in `bytes`.
    static func followed(_ bytes: [UInt8], from: Int, size: Int) -> [Int] {
        var chain = LengthChain(lengthSize: 4)
        var found: [Int] = []
        var start = from
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            let positions = bytes[start..<end].withUnsafeBytes { chain.positions(in: $0) }
            found += positions.map { start + Int($0) }
            start = end
        }
        return found
    }

    @Test(arguments: Fixture.all)
    func reportsEveryLengthFieldWhereverTheBuffersSplit(fixture: Fixture) throws {
        let bytes = try fixture.lengthPrefixed()
        let fields = Self.lengthFields(bytes)
        try #require(fields.count > LengthChain.linksToTrust)
        // From the stream's first byte, a buffer holding four NAL units finds the chain at 0; after
        // that every field is reported in the buffer it starts in, one split across two buffers
        // included (it is completed from the next buffer, and reported in neither).
        let first = fields[LengthChain.linksToTrust]
        for size in [max(first, 4093), max(first, 1 << 16), bytes.count] {
            let expected = fields.filter { field in
                let bufferEnd = min(bytes.count, (field / size + 1) * size)
                return field + 4 <= bufferEnd
            }
            #expect(Self.followed(bytes, from: 0, size: size) == expected, "buffers of \(size) bytes")
        }
    }

    @Test(arguments: Fixture.all)
    func findsTheChainMidStream(fixture: Fixture) throws {
        let bytes = try fixture.lengthPrefixed()
        let fields = Self.lengthFields(bytes)
        // Started on the last byte of the first NAL unit, with four more after it in the buffer:
        // the chain is found at the next field, and from there every field is reported.
        try #require(fields.count > LengthChain.linksToTrust + 1)
        try #require(fields[1] - 1 < LengthChain.searchWindow)
        let from = fields[1] - 1
        for size in [max(fields[LengthChain.linksToTrust + 1] - from, 4093), max(fields[LengthChain.linksToTrust + 1] - from, 1 << 16)] {
            let expected = fields.dropFirst().filter { field in
                let bufferEnd = min(bytes.count, from + ((field - from) / size + 1) * size)
                return field + 4 <= bufferEnd
            }
            #expect(Self.followed(bytes, from: from, size: size) == Array(expected), "buffers of \(size) bytes")
        }
    }

    /// NAL units larger than the search window, split across buffers, at every phase: the
    /// length fields split between two buffers are completed, so the chain is never lost.
    @Test func followsLargeUnitsAcrossBuffers() {
        var bytes: [UInt8] = []
        for index in 0..<40 {
            let size = index < 4 ? 10 : 6_000 + index
            bytes += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: index) | 1, count: size)
        }
        let fields = Self.lengthFields(bytes)
        #expect(fields.count == 40)
        var splitFields = 0
        // Buffers ending 1, 2 and 3 bytes into a length field, and two that split none.
        for size in [fields[5] + 1, fields[6] + 2, fields[7] + 3, 7_001, 12_345] {
            let expected = fields.filter { field in field + 4 <= min(bytes.count, (field / size + 1) * size) }
            splitFields += fields.count - expected.count
            #expect(Self.followed(bytes, from: 0, size: size) == expected, "buffers of \(size) bytes")
        }
        #expect(splitFields > 0)
    }

    /// Bytes that are no length-prefixed stream give no positions (and no trap); a chain of
    /// 1-byte lengths is followed too.
    @Test func garbageAndShortLengths() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        let random = (0..<100_000).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56) | 0x80
        }
        var chain = LengthChain(lengthSize: 4)
        #expect(random.withUnsafeBytes { chain.positions(in: $0) } == [])
        let short: [UInt8] = [2, 9, 9, 1, 7, 3, 1, 2, 3, 1, 5]
        var byteChain = LengthChain(lengthSize: 1)
        #expect(short.withUnsafeBytes { byteChain.positions(in: $0) } == [0, 3, 5, 9])
        var odd = LengthChain(lengthSize: 3)
        #expect(short.withUnsafeBytes { odd.positions(in: $0) } == [])
    }
}
