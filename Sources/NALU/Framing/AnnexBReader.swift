/// Reads the NAL units of an Annex-B byte stream (ITU-T H.264 Annex B, ITU-T H.265 Annex B) from
/// a ``ByteSource`` in chunks, in memory bounded by the largest NAL unit plus one chunk.
///
/// - Three- and four-byte start codes are both accepted (``NALUnitView/prefixLength``).
/// - A NAL unit ends at the next start code or at the first byte-aligned `00 00 00` (B.2: no NAL
///   unit contains one, so it begins the `trailing_zero_8bits`). Zero bytes after a NAL unit
///   (`trailing_zero_8bits`, and the `zero_byte` of a following four-byte start code) belong to
///   no NAL unit and are dropped, in constant memory however many there are.
/// - Non-zero bytes before the first start code are not a NAL unit; their count is reported in
///   ``leadingGarbageBytes``.
/// - A start code split across two reads is found: the result does not depend on chunk sizes.
public struct AnnexBReader<Source: ByteSource> {
    private var source: Source
    private let buffer: ReadBuffer
    /// A NAL unit larger than this is an error (``NALUError/Code/tooLarge``) before it is
    /// buffered whole.
    public let maxNALUnitSize: Int
    /// Index in the buffer of the current NAL unit's first byte, or -1 before the first start code.
    private var nalStart = -1
    private var prefixLength = 0
    /// Where the next start-code search begins.
    private var scan = 0
    /// Set when ``finish(_:)`` delivered the current NAL unit: the buffer index where it ended.
    private var deliveredEnd: Int?
    /// Between NAL units: where the bytes not yet counted as garbage begin.
    private var gapStart = 0
    /// Whether a NAL unit has begun (gap bytes then count as ``discardedBytes``, not leading garbage).
    private var afterNALUnit = false
    /// Whether delivered views are lendable (inside ``forEachNALUnit(beforeReuse:_:)``).
    private var lending = false

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
    public init(_ source: Source, chunkSize: Int = 1 << 20, maxNALUnitSize: Int = AccessUnitLimit.defaultMaxBytes) {
        self.init(source, chunkSize: chunkSize, maxNALUnitSize: maxNALUnitSize, retirement: nil)
    }

    /// A reader whose buffers, once NAL units were delivered from them, go to `retirement`
    /// instead of being reused (``BufferRetirement``): lent views then stay valid after the
    /// `beforeReuse` hook, until the retirement lets their buffer go.
    package init(_ source: Source, chunkSize: Int = 1 << 20, maxNALUnitSize: Int = AccessUnitLimit.defaultMaxBytes, retirement: (any BufferRetirement)?) {
        self.source = source
        self.buffer = ReadBuffer(capacity: max(64, chunkSize), retirement: retirement)
        self.maxNALUnitSize = max(64, maxNALUnitSize)
    }

    /// Calls `body` for every NAL unit in stream order, up to the end of the input (a read that
    /// returns 0), where the last NAL unit ends.
    ///
    /// A ``ByteSource`` that returns 0 only because no bytes are available *yet* (a non-blocking
    /// socket or pipe) must be read with ``forEachCompleteNALUnit(_:)`` and ``finish(_:)``
    /// instead: here a 0 ends the last NAL unit. If this method is called again and the source
    /// then continues that NAL unit, the reader throws ``NALUError/Code/truncated`` (the unit
    /// delivered before was cut short) rather than deliver it in pieces; when the source resumes
    /// with a start code (or zero bytes and a start code), reading simply continues.
    public mutating func forEachNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        try forEachCompleteNALUnit(body)
        try finish(body)
    }

    /// Calls `body` for every NAL unit, as ``forEachNALUnit(_:)``; with a `beforeReuse` hook the
    /// views whose start code is still in the buffer are lendable (``NALUnitView/isLendable``):
    /// the hook runs before the buffer holding them is refilled, moved or freed, also when this
    /// throws. The reader never reads a delivered NAL unit's start code or bytes again.
    package mutating func forEachNALUnit(beforeReuse: (() throws -> Void)?, _ body: (NALUnitView) throws -> Void) throws {
        guard let beforeReuse else { return try forEachNALUnit(body) }
        lending = true
        defer { lending = false }
        do {
            try readCompleteNALUnits(beforeReuse: beforeReuse, body)
            try finish(body)
        } catch {
            try? beforeReuse()
            throw error
        }
        try beforeReuse()
    }

    /// Calls `body` for every NAL unit whose end is known (the next start code has arrived), and
    /// returns when the source returns 0, keeping the unfinished last NAL unit. Call it again
    /// when the source has more bytes: reading resumes where it stopped, whatever the chunk
    /// edges, and the NAL units are those of the whole stream parsed at once. Call ``finish(_:)``
    /// at the real end of the input to get the last NAL unit.
    public mutating func forEachCompleteNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        try readCompleteNALUnits(beforeReuse: {}, body)
    }

    private mutating func readCompleteNALUnits(beforeReuse: () throws -> Void, _ body: (NALUnitView) throws -> Void) throws {
        while true {
            try beforeReuse()
            // Keep only the current NAL unit (or, before the first start code, the last three
            // bytes, which may begin a four-byte start code).
            let keepFrom = nalStart >= 0 ? nalStart : max(0, min(scan, buffer.filled - 3))
            if nalStart < 0 {
                countGap(buffer.bytes, min(gapStart, keepFrom)..<keepFrom)
                gapStart = max(0, gapStart - keepFrom)
            }
            buffer.discard(keepFrom)
            scan -= keepFrom
            if nalStart >= 0 { nalStart = 0 }
            if let end = deliveredEnd { deliveredEnd = end - keepFrom }
            guard buffer.grow(limit: maxNALUnitSize + 8) else {
                throw NALUError(.tooLarge, field: "NAL unit", byteOffset: buffer.baseOffset,
                                detail: "larger than \(maxNALUnitSize) bytes")
            }
            let before = buffer.filled
            if try buffer.fill(from: &source) == 0 { return }
            let bytes = buffer.bytes
            if let end = deliveredEnd {
                // The last NAL unit was delivered at an earlier end of input: the new bytes must
                // not continue it (zero bytes, then a start code, are fine).
                let next = AnnexB.findStartCode(in: bytes, from: scan)
                let limit = next ?? bytes.count
                if let bad = (max(end, before)..<limit).first(where: { bytes[$0] != 0 }) {
                    throw NALUError(.truncated, field: "NAL unit", byteOffset: buffer.baseOffset + Int64(nalStart),
                                    detail: "the source returned more bytes (at offset \(buffer.baseOffset + Int64(bad))) after a read of 0 ended this NAL unit; read sources that pause with forEachCompleteNALUnit and finish")
                }
                guard let next else {
                    scan = max(scan, bytes.count - 2)
                    continue
                }
                deliveredEnd = nil
                prefixLength = next > 0 && bytes[next - 1] == 0 ? 4 : 3
                nalStart = next + 3
                scan = nalStart
            }
            // Each candidate is a start code `00 00 01` or a `00 00 00`, which ends the NAL unit
            // (its trailing zero bytes are skipped, not kept).
            while let candidate = buffer.findStartCodeOrZeros(in: bytes, from: scan) {
                if bytes[candidate + 2] == 0 {
                    if nalStart >= 0 {
                        try emit(bytes, nalStart..<candidate, prefixLength: prefixLength, body)
                        nalStart = -1
                        afterNALUnit = true
                        gapStart = candidate
                    }
                    // A start code may begin two bytes before the first non-zero byte.
                    let nonZero = AnnexB.firstNonZero(in: bytes, from: candidate + 3)
                    scan = max(candidate + 1, nonZero - 2)
                    if nonZero == bytes.count { break }
                    continue
                }
                if nalStart >= 0 {
                    try emit(bytes, nalStart..<candidate, prefixLength: prefixLength, body)
                } else {
                    countGap(bytes, min(gapStart, candidate)..<candidate)
                }
                afterNALUnit = true
                prefixLength = candidate > 0 && bytes[candidate - 1] == 0 ? 4 : 3
                nalStart = candidate + 3
                scan = nalStart
            }
            scan = max(scan, bytes.count - 2)
        }
    }

    /// Ends the input: delivers the unfinished last NAL unit kept by
    /// ``forEachCompleteNALUnit(_:)``, if any.
    public mutating func finish(_ body: (NALUnitView) throws -> Void) throws {
        let bytes = buffer.bytes
        guard deliveredEnd == nil else { return }
        if nalStart >= 0 {
            deliveredEnd = bytes.count
            try emit(bytes, nalStart..<bytes.count, prefixLength: prefixLength, body)
        } else {
            countGap(bytes, min(gapStart, bytes.count)..<bytes.count)
            buffer.discard(bytes.count)
            scan = 0
            gapStart = 0
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
        // Lendable only while its start code is still in the buffer (not discarded with the
        // bytes before a NAL unit that spanned two reads).
        let view = NALUnitView(offset: buffer.baseOffset + Int64(range.lowerBound),
                               bytes: UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<end]),
                               prefixLength: prefixLength, isLendable: lending && range.lowerBound >= prefixLength)
        try body(view)
    }

    /// Counts the non-zero bytes of `range` (between NAL units) as leading garbage or, after the
    /// first NAL unit, as discarded bytes.
    private mutating func countGap(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        guard range.lowerBound < range.upperBound else { return }
        let count = Self.nonZeroCount(bytes, range)
        if afterNALUnit { discardedBytes += count } else { leadingGarbageBytes += count }
    }

    private static func nonZeroCount(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int64 {
        var count: Int64 = 0
        for index in range where bytes[index] != 0 { count += 1 }
        return count
    }
}
