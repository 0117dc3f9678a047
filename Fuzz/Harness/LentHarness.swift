// Lent NAL units (the zero-copy write path of `nalu convert`): readers with a `beforeReuse` hook
// hand out views into their read buffer that a sink may keep until the hook runs, and the
// converters rewrite a lent unit's 4-byte start code or length in that buffer. The first byte
// picks codec, direction and length size as in the convert harness; chunk sizes come from the
// data. Properties: a sink that keeps every lent run until the hook (and then copies it) ends
// with exactly the bytes of the in-memory conversion, or both conversions fail; no lent byte
// changes before its hook (checked by a checksum taken when it is lent). Under ASan, a buffer freed or moved before the
// hook is a use-after-free.
import NALU

enum LentHarness {
    /// A sink that holds lent runs (pointers, as `FileSink` does) until `returnLent()`.
    struct HoldingSink: ByteSink {
        var bytes: [UInt8] = []
        var held: [(base: UnsafeRawPointer, count: Int, checksum: UInt64)] = []
        var changedBeforeReturn = false

        static func checksum(_ base: UnsafeRawPointer, _ count: Int) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for index in 0..<count { hash = (hash ^ UInt64(base.load(fromByteOffset: index, as: UInt8.self))) &* 0x100_0000_01b3 }
            return hash
        }

        mutating func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
            try returnLent()
            self.bytes.append(contentsOf: bytes)
        }

        mutating func write(lent bytes: UnsafeRawBufferPointer) throws(NALUError) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            held.append((base, bytes.count, Self.checksum(base, bytes.count)))
        }

        mutating func returnLent() throws(NALUError) {
            for run in held {
                if Self.checksum(run.base, run.count) != run.checksum { changedBeforeReturn = true }
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: run.base, count: run.count))
            }
            held.removeAll(keepingCapacity: true)
        }
    }

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        let codec: Codec = mode & 1 == 0 ? .h264 : .hevc
        let lengthSize = [4, 2, 1, 4][Int(mode >> 1 & 3)]
        var random = SplitMix(all)
        let chunkSize = 64 + random.below(200)
        let readSizes = (0..<3).map { _ in 1 + random.below(chunkSize) }

        var sink = HoldingSink()
        let expected: [UInt8]?
        let lent: [UInt8]?
        if mode & 8 == 0 {
            var memory = try? AnnexBToLengthPrefixed(codec: codec, options: .init(lengthSize: lengthSize))
            expected = try? memory?.convert(bytes)
            lent = {
                guard var converter = try? AnnexBToLengthPrefixed(codec: codec, options: .init(lengthSize: lengthSize)) else { return nil }
                var reader = AnnexBReader(MemorySource(bytes, chunkSizes: readSizes), chunkSize: chunkSize)
                do {
                    try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.convert(unit, to: &sink) }
                    try sink.returnLent()
                } catch { return nil }
                return sink.bytes
            }()
        } else {
            var memory = try? LengthPrefixedToAnnexB(codec: codec)
            expected = try? memory?.convert(bytes, lengthSize: lengthSize)
            lent = {
                guard var converter = try? LengthPrefixedToAnnexB(codec: codec),
                      var reader = try? LengthPrefixedReader(MemorySource(bytes, chunkSizes: readSizes), lengthSize: lengthSize, chunkSize: chunkSize)
                else { return nil }
                do {
                    try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.push(unit, to: &sink) }
                    try converter.finish(to: &sink)
                    try sink.returnLent()
                } catch { return nil }
                return sink.bytes
            }()
        }
        try fuzzCheck(!sink.changedBeforeReturn, "a lent run changed before its returnLent()")
        // Both succeed with the same bytes, or both fail.
        try fuzzCheck(lent == expected, "lent conversion (\(lent?.count ?? -1) bytes) differs from in-memory (\(expected?.count ?? -1) bytes)")
    }
}
