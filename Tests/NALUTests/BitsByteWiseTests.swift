import Testing
@testable import NALU

/// `BitReader.ue`, `BitReader.bits(from:)` and `BitWriter.u` work a byte (or the rest of one) at
/// a time; these compare them with the one-bit-at-a-time definitions (H.264 9.1, H.265 9.2) on
/// random bytes at every bit offset: the same values, the same positions, the same errors.
@Suite struct BitsByteWiseTests {
    /// Deterministic bytes: mostly sparse (long zero runs, so the Exp-Golomb prefixes run across
    /// bytes, and past 31 zero bits), some dense.
    static func bytes(seed: UInt64, count: Int) -> [UInt8] {
        var state = seed
        var bytes = (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = UInt8(truncatingIfNeeded: state >> 56)
            return (state >> 33) % 3 == 0 ? value : (value & 0x0F == 0 ? 1 << (value >> 5) : 0)
        }
        // An RBSP does not end in a zero byte (the escaping guards one with 0x03).
        bytes[count - 1] |= 1
        return bytes
    }

    /// The RBSP whose bytes are `bytes` (escaped, then read back).
    static func rbsp(_ bytes: [UInt8]) -> RBSP {
        let rbsp = RBSP(escaped: RBSP.escape(bytes))
        precondition(Array(rbsp.bytes) == bytes)
        return rbsp
    }

    /// `ue(v)` read one bit at a time: the value and the position after it, or the error's code
    /// and bit offset (the position is left at the start on an error).
    static func referenceUE(_ bytes: [UInt8], at start: Int) -> (value: UInt32?, position: Int, code: NALUError.Code?) {
        let end = bytes.count * 8
        func bit(_ index: Int) -> Int { Int(bytes[index / 8] >> UInt8(7 - index % 8)) & 1 }
        var position = start
        var zeros = 0
        while true {
            guard position < end else { return (nil, start, .truncated) }
            let b = bit(position)
            position += 1
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return (nil, start, .expGolombOverflow) }
        }
        guard zeros <= end - position else { return (nil, start, .truncated) }
        var suffix: UInt64 = 0
        for _ in 0..<zeros {
            suffix = suffix << 1 | UInt64(bit(position))
            position += 1
        }
        return (UInt32((UInt64(1) << UInt64(zeros)) - 1 + suffix), position, nil)
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>) func expGolombMatchesTheBitwiseDefinition(seed: UInt64) throws {
        // Half the inputs end in 40 zero bits: 32 zeros and then the end is an overflow, fewer a
        // truncation.
        let escaped = Self.bytes(seed: seed, count: 64) + (seed % 2 == 0 ? [0, 0, 0, 0, 0] : [])
        let rbsp = RBSP(escaped: escaped)
        let bytes = Array(rbsp.bytes)
        for start in 0..<(bytes.count * 8) {
            var reader = BitReader(rbsp)
            if start > 0 { try reader.skip(start, "skip") }
            let expected = Self.referenceUE(bytes, at: start)
            do {
                let value = try reader.ue("x")
                #expect(expected.value == value, "start \(start)")
                #expect(expected.position == reader.position, "start \(start)")
            } catch {
                #expect(expected.code == error.code, "start \(start): \(error)")
                #expect(error.bitOffset == start && reader.position == start, "start \(start)")
            }
        }
    }

    @Test(arguments: 1...4 as ClosedRange<UInt64>) func copiedBitsMatchTheBitwiseDefinition(seed: UInt64) throws {
        let bytes = Self.bytes(seed: seed, count: 24)
        let total = bytes.count * 8
        for start in 0..<total {
            for end in stride(from: start, through: total, by: start % 5 + 1) {
                var reader = BitReader(Self.rbsp(bytes))
                try reader.skip(end, "skip")
                let copied = reader.bits(from: start)
                var expected = [UInt8](repeating: 0, count: (end - start + 7) / 8)
                for index in 0..<(end - start) where bytes[(start + index) / 8] >> UInt8(7 - (start + index) % 8) & 1 == 1 {
                    expected[index / 8] |= 0x80 >> UInt8(index % 8)
                }
                #expect(copied == RBSPBits(bytes: expected, bitCount: end - start), "bits \(start)..<\(end)")
            }
        }
    }

    @Test func writtenBitsMatchTheBitwiseDefinition() {
        var state: UInt64 = 7
        var writer = BitWriter()
        var reference: [Bool] = []
        for _ in 0..<2_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let count = Int(state >> 58)          // 0…63
            let value = state &* 0x9E3779B97F4A7C15
            writer.u(count, value)
            for shift in stride(from: count - 1, through: 0, by: -1) { reference.append(value >> UInt64(shift) & 1 == 1) }
        }
        var expected = [UInt8](repeating: 0, count: (reference.count + 7) / 8)
        for (index, bit) in reference.enumerated() where bit { expected[index / 8] |= 0x80 >> UInt8(index % 8) }
        #expect(writer.bitCount == reference.count)
        #expect(writer.bytes == expected)
    }
}

/// `RBSP(escaped:)` finds `00 00 03` sixteen positions at a time and copies the runs between
/// them whole; this compares it with the byte-at-a-time definition (H.264 7.3.1, H.265 7.3.1.1)
/// on bytes dense in zeros, threes and escapes, from every start inside an array.
@Suite struct RBSPUnescapeTests {
    static func reference(_ escaped: ArraySlice<UInt8>) -> (bytes: [UInt8], removed: [Int]) {
        var out: [UInt8] = []
        var removed: [Int] = []
        var zeros = 0
        for byte in escaped {
            if zeros >= 2 && byte == 3 {
                removed.append(out.count)
                zeros = 0
            } else {
                out.append(byte)
                zeros = byte == 0 ? zeros + 1 : 0
            }
        }
        return (out, removed)
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>) func unescapeMatchesTheBytewiseDefinition(seed: UInt64) {
        var state = seed
        let pieces: [[UInt8]] = [[0, 0, 3], [0, 0, 3, 3], [0, 0, 0, 3], [0], [3], [0, 0], [0x47], [0, 0, 3, 0, 0, 3], [1]]
        var bytes: [UInt8] = []
        while bytes.count < 300 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes += pieces[Int(state >> 33) % pieces.count]
        }
        for start in 0..<40 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                let slice = bytes[start..<end]
                let rbsp = RBSP(escaped: slice)
                let expected = Self.reference(slice)
                #expect(Array(rbsp.bytes) == expected.bytes, "\(start)..<\(end)")
                #expect(rbsp.removedBefore == expected.removed, "\(start)..<\(end)")
            }
        }
    }
}
