// Length-prefixed reader: LengthPrefixedReader (streaming) against LengthPrefixed.forEachNALUnit
// (in memory). The first byte picks the length size (1, 2, 4, or the invalid 3); the rest is the
// stream. Property: both give the same NAL units, and fail together, whatever the read chunking;
// the read-ahead's LengthChain gives positions inside each buffer, ascending.
import NALU

enum LengthPrefixedHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let first = all.first else { return }
        let lengthSize = [1, 2, 4, 3][Int(first & 3)]
        let bytes = Array(all.dropFirst())
        var random = SplitMix(all)

        var reference: [SeenUnit] = []
        var referenceFailed = false
        do {
            try bytes.withUnsafeBytes { buffer in
                try LengthPrefixed.forEachNALUnit(in: buffer, lengthSize: lengthSize) { range in
                    reference.append(SeenUnit(offset: Int64(range.lowerBound), bytes: Array(buffer[range]), prefixLength: lengthSize))
                }
            }
        } catch {
            referenceFailed = true
        }

        let chunkings: [[Int]] = [[], [max(1, random.below(bytes.count + 1))], [1 + random.below(5), 1 + random.below(9)]]
        for chunks in chunkings {
            var units: [SeenUnit] = []
            var failed = false
            do {
                let source = chunks.isEmpty ? MemorySource(bytes) : MemorySource(bytes, chunkSizes: chunks + [bytes.count])
                var reader = try LengthPrefixedReader(source, lengthSize: lengthSize, chunkSize: 64, maxNALUnitSize: 1 << 20)
                try reader.forEachNALUnit { unit in
                    units.append(SeenUnit(offset: unit.offset, bytes: unit.array, prefixLength: unit.prefixLength))
                }
            } catch {
                failed = true
            }
            try fuzzCheck(failed == referenceFailed, "reader failed: \(failed), in memory failed: \(referenceFailed), chunks \(chunks)")
            try fuzzCheck(units == reference, "reader and in-memory units differ, chunks \(chunks)")
        }

        // The read-ahead thread's length chain (hints for loading ahead): whatever the bytes,
        // its positions lie inside the buffer they are for, ascending, at most the limit each.
        var chain = LengthChain(lengthSize: lengthSize)
        let step = max(1, random.below(bytes.count + 1))
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            let positions = bytes[start..<end].withUnsafeBytes { chain.positions(in: $0) }
            try fuzzCheck(positions.count <= LengthChain.limit, "\(positions.count) positions in one buffer")
            try fuzzCheck(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }, "positions not ascending")
            try fuzzCheck(positions.allSatisfy { Int($0) + lengthSize <= end - start }, "a position past its buffer")
            start = end
        }
    }
}
