// Annex-B scanner: AnnexB.findStartCode/forEachNALUnit, AnnexBReader, ElementaryStreamReader and
// FormatDetection. Properties: the streaming reader gives the same NAL units (offsets, bytes,
// prefix lengths), garbage and empty-unit counts whether the input arrives in one read, in two
// reads split at a data-derived point, or in small data-derived chunks; the same NAL units as the
// in-memory scanner; and findStartCode agrees with a naive search.
import NALU

enum AnnexBHarness {
    private struct Result {
        var units: [SeenUnit] = []
        var garbage: Int64 = 0
        var empty = 0
        var read: Int64 = 0
        var failed = false
    }

    private static func readAll(_ source: MemorySource, chunkSize: Int) -> Result {
        var reader = AnnexBReader(source, chunkSize: chunkSize)
        var result = Result()
        do {
            try reader.forEachNALUnit { unit in
                result.units.append(SeenUnit(offset: unit.offset, bytes: unit.array, prefixLength: unit.prefixLength))
            }
        } catch {
            result.failed = true
        }
        result.garbage = reader.leadingGarbageBytes
        result.empty = reader.emptyNALUnits
        result.read = reader.bytesRead
        return result
    }

    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        var random = SplitMix(bytes)

        // In memory, and findStartCode against a naive search from a data-derived start, over
        // the whole buffer and over a prefix of it (bytes past the end must never be read).
        var reference: [SeenUnit] = []
        let start = random.below(bytes.count + 1)
        let end = start + random.below(bytes.count - start + 1)
        var found: (Int?, Int?) = (nil, nil)
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                reference.append(SeenUnit(offset: Int64(range.lowerBound), bytes: Array(buffer[range]), prefixLength: 0))
            }
            found = (AnnexB.findStartCode(in: buffer, from: start),
                     AnnexB.findStartCode(in: UnsafeRawBufferPointer(rebasing: buffer[..<end]), from: start))
            _ = FormatDetection.framing(of: buffer)
        }
        func naive(_ count: Int) -> Int? {
            guard count >= 3, start < count - 2 else { return nil }
            return (start..<(count - 2)).first { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
        }
        try fuzzCheck(found.0 == naive(bytes.count), "findStartCode from \(start): \(String(describing: found.0))")
        try fuzzCheck(found.1 == naive(end), "findStartCode from \(start) in \(end) bytes: \(String(describing: found.1))")

        // One read, the smallest buffer (64 bytes), so the buffer still grows and slides.
        let whole = readAll(MemorySource(bytes), chunkSize: 64)
        try fuzzCheck(!whole.failed, "AnnexBReader threw on in-memory input")
        try fuzzCheck(whole.read == Int64(bytes.count), "bytesRead \(whole.read) != \(bytes.count)")
        try fuzzCheck(whole.units.map { SeenUnit(offset: $0.offset, bytes: $0.bytes, prefixLength: 0) } == reference,
                      "AnnexBReader and AnnexB.forEachNALUnit disagree")
        for unit in whole.units {
            try fuzzCheck(unit.prefixLength == 3 || unit.prefixLength == 4, "prefix length \(unit.prefixLength)")
            let start = Int(unit.offset) - unit.prefixLength
            try fuzzCheck(start >= 0 && bytes[start..<Int(unit.offset)].elementsEqual(unit.prefixLength == 4 ? [0, 0, 0, 1] : [0, 0, 1]),
                          "prefix at \(unit.offset)")
        }

        // Two reads split at a data-derived point.
        let split = random.below(bytes.count + 1)
        let two = readAll(MemorySource(bytes, chunkSizes: [max(1, split), max(1, bytes.count - split)]), chunkSize: 1 << 16)
        try fuzzCheck(two.units == whole.units, "two chunks split at \(split) differ from one")
        try fuzzCheck(two.garbage == whole.garbage && two.empty == whole.empty && !two.failed, "counts differ at split \(split)")

        // Small chunks of data-derived sizes.
        let sizes = (0..<3).map { _ in 1 + random.below(7) }
        let small = readAll(MemorySource(bytes, chunkSizes: sizes), chunkSize: 64 + random.below(64))
        try fuzzCheck(small.units == whole.units, "chunks \(sizes) differ from one")
        try fuzzCheck(small.garbage == whole.garbage && small.empty == whole.empty && !small.failed, "counts differ in chunks \(sizes)")

        // Detection and the format-agnostic reader: typed errors or NAL units, never a trap.
        do {
            var reader = try ElementaryStreamReader(MemorySource(bytes, chunkSize: 1 + random.below(300)), chunkSize: 64)
            try reader.forEachNALUnit { unit in _ = unit.firstByte }
        } catch {}
    }
}
