/// Reads the NAL units of an Annex-B byte stream (ITU-T H.264 Annex B, ITU-T H.265 Annex B) from
/// a ``ByteSource`` in chunks, in memory bounded by the largest NAL unit plus one chunk.
///
/// - Three- and four-byte start codes are both accepted (``NALUnitView/prefixLength``).
/// - Zero bytes after a NAL unit (`trailing_zero_8bits`, and the `zero_byte` of a following
///   four-byte start code) belong to no NAL unit and are dropped, in constant memory.
/// - Non-zero bytes before the first start code are not a NAL unit; their count is reported in
///   ``leadingGarbageBytes``.
/// - A start code split across two reads is found: the result does not depend on chunk sizes.
public struct AnnexBReader<Source: ByteSource> {
    private var source: Source
    private let buffer: ReadBuffer
    private let maxNALUnitSize: Int

    /// Non-zero bytes seen before the first start code.
    public private(set) var leadingGarbageBytes: Int64 = 0
    /// Start codes followed by no NAL unit bytes (for example `00 00 01 00 00 01`).
    public private(set) var emptyNALUnits = 0
    /// Non-zero bytes after a NAL unit's trailing zero bytes and before the next start code,
    /// which belong to no NAL unit (a stream B.2 does not allow).
    public private(set) var discardedBytes: Int64 = 0
    /// Total bytes read from the source.
    public var bytesRead: Int64 { buffer.baseOffset + Int64(buffer.filled) }

    /// - Parameters:
    ///   - source: where the bytes come from.
    ///   - chunkSize: how much to read at a time.
    ///   - maxNALUnitSize: a NAL unit larger than this is an error (memory stays bounded).
    public init(_ source: Source, chunkSize: Int = 1 << 20, maxNALUnitSize: Int = 1 << 30) {
        self.source = source
        self.buffer = ReadBuffer(capacity: max(64, chunkSize))
        self.maxNALUnitSize = max(64, maxNALUnitSize)
    }

    /// Calls `body` for every NAL unit in stream order.
    ///
    /// A NAL unit ends at the next start code or at the first byte-aligned `00 00 00` (B.2: no
    /// NAL unit contains one, so it begins the `trailing_zero_8bits`); the zero bytes after it
    /// are consumed in constant memory, however many there are. Non-zero bytes between those
    /// zeros and the next start code belong to no NAL unit (a non-conforming stream) and are
    /// counted in ``discardedBytes``.
    public mutating func forEachNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        var nalStart = -1          // index of the current NAL unit's first byte, or -1 between NAL units
        var prefixLength = 0
        var scan = 0               // where the next start-code search begins
        var zeroScan = 0           // where the next `00 00 00` search in the current NAL unit begins
        var gapStart = 0           // between NAL units: where the bytes not yet counted begin
        var afterNALUnit = false   // between NAL units after the first one (else before the first start code)
        func countGap(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
            guard range.lowerBound < range.upperBound else { return }
            let count = Self.nonZeroCount(bytes, range)
            if afterNALUnit { discardedBytes += count } else { leadingGarbageBytes += count }
        }
        while true {
            // Keep only the current NAL unit (or, between NAL units, the last three bytes, which
            // may begin a four-byte start code).
            let keepFrom = nalStart >= 0 ? nalStart : max(0, min(scan, buffer.filled - 3))
            if nalStart < 0 {
                countGap(buffer.bytes, min(gapStart, keepFrom)..<keepFrom)
                gapStart = max(0, gapStart - keepFrom)
            }
            buffer.discard(keepFrom)
            scan -= keepFrom
            zeroScan = max(0, zeroScan - keepFrom)
            if nalStart >= 0 { nalStart = 0 }
            guard buffer.grow(limit: maxNALUnitSize + 8) else {
                throw NALUError(.tooLarge, field: "NAL unit", byteOffset: buffer.baseOffset,
                                detail: "larger than \(maxNALUnitSize) bytes")
            }
            let endOfInput = try buffer.fill(from: &source) == 0
            let bytes = buffer.bytes
            while true {
                let startCode = AnnexB.findStartCode(in: bytes, from: scan)
                if nalStart >= 0,
                   let zeros = AnnexB.findThreeZeros(in: bytes, from: max(zeroScan, nalStart), before: startCode ?? bytes.count) {
                    // The NAL unit ends here; what follows up to the next start code is padding.
                    try emit(bytes, nalStart..<zeros, prefixLength: prefixLength, body)
                    nalStart = -1
                    afterNALUnit = true
                    gapStart = zeros
                    scan = zeros
                    continue
                }
                guard let startCode else { break }
                if nalStart >= 0 {
                    try emit(bytes, nalStart..<startCode, prefixLength: prefixLength, body)
                } else {
                    countGap(bytes, min(gapStart, startCode)..<startCode)
                }
                afterNALUnit = true
                prefixLength = startCode > 0 && bytes[startCode - 1] == 0 ? 4 : 3
                nalStart = startCode + 3
                scan = nalStart
                zeroScan = nalStart
            }
            if endOfInput {
                if nalStart >= 0 {
                    try emit(bytes, nalStart..<bytes.count, prefixLength: prefixLength, body)
                } else {
                    countGap(bytes, min(gapStart, bytes.count)..<bytes.count)
                }
                return
            }
            scan = max(scan, bytes.count - 2)
            if nalStart >= 0 { zeroScan = max(zeroScan, bytes.count - 2) }
        }
    }

    private mutating func emit(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, prefixLength: Int,
                               _ body: (NALUnitView) throws -> Void) throws {
        var end = range.upperBound
        while end > range.lowerBound && bytes[end - 1] == 0 { end -= 1 }
        guard end > range.lowerBound else {
            emptyNALUnits += 1
            return
        }
        let view = NALUnitView(offset: buffer.baseOffset + Int64(range.lowerBound),
                               bytes: UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<end]),
                               prefixLength: prefixLength)
        try body(view)
    }

    private static func nonZeroCount(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int64 {
        var count: Int64 = 0
        for index in range where bytes[index] != 0 { count += 1 }
        return count
    }
}
