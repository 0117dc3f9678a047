/// A push parser for Annex-B byte streams (ITU-T H.264 Annex B, ITU-T H.265 Annex B): append
/// bytes as they arrive, in any chunking, and get the NAL units whose end is known.
///
/// ```swift
/// var framer = AnnexBFramer()
/// for chunk in chunks { for unit in try framer.append(chunk) { handle(unit) } }
/// for unit in framer.finish() { handle(unit) }
/// ```
///
/// The results are those of parsing the whole stream at once (``AnnexB/nalUnits(in:)``,
/// ``AnnexBReader``) whatever the chunk edges: a NAL unit ends at the next start code, so the
/// last one comes out of ``finish()``. Start codes are found with the package-internal `AnnexB.findStartCode(in:from:)`.
///
/// - Three- and four-byte start codes are both accepted; zero bytes after a NAL unit
///   (`trailing_zero_8bits`, a four-byte start code's `zero_byte`) belong to no NAL unit.
/// - A NAL unit also ends at the first byte-aligned `00 00 00` (B.2: none contains one), as in
///   ``AnnexBReader``: zero padding of any length passes in bounded memory.
/// - Non-zero bytes before the first start code, or between a NAL unit's trailing zero bytes
///   and the next start code, are no NAL unit (``leadingGarbageBytes`` counts both).
/// - Memory is bounded: the framer holds only the unfinished NAL unit, and an append that would
///   make it hold more than ``maxBufferedBytes`` (held bytes plus the new chunk) throws
///   ``NALUError/Code/tooLarge`` and leaves the framer unchanged. Split large writes, or raise
///   the limit; ``reset()`` drops a NAL unit that will never end.
///
/// The zero-copy form ``append(_:_:)`` lends each NAL unit as a ``NALUnitView`` pointing into the
/// framer's buffer, valid only inside the closure.
public struct AnnexBFramer: Sendable {
    /// The default bound on buffered bytes: 64 MiB.
    public static let defaultMaxBufferedBytes = 64 << 20

    /// The most bytes the framer holds (the unfinished NAL unit plus one appended chunk).
    public let maxBufferedBytes: Int
    /// Non-zero bytes that belong to no NAL unit: before the first start code, or between a NAL
    /// unit's trailing zero bytes and the next start code.
    public private(set) var leadingGarbageBytes: Int64 = 0
    /// Start codes followed by no NAL unit bytes.
    public private(set) var emptyNALUnits = 0

    private var buffer: [UInt8] = []
    private var state = ScanState()

    /// Where scanning stands, kept across appends.
    struct ScanState: Sendable {
        /// Index in the buffer of the current NAL unit's first byte, or -1 before the first start code.
        var nalStart = -1
        var prefixLength = 0
        /// Where the next start-code search begins.
        var scan = 0
        /// Stream offset of the buffer's first byte.
        var baseOffset: Int64 = 0
        var garbage: Int64 = 0
        var empty = 0
        /// Between NAL units after one ended at `00 00 00`: where the bytes not yet counted as
        /// garbage begin (the NAL unit's own bytes before it are not garbage).
        var gapStart = 0
    }

    /// - Parameter maxBufferedBytes: the memory bound (at least 64 bytes).
    public init(maxBufferedBytes: Int = AnnexBFramer.defaultMaxBufferedBytes) {
        self.maxBufferedBytes = max(64, maxBufferedBytes)
    }

    /// Bytes held: the unfinished NAL unit (or up to three bytes before the first start code).
    public var bufferedByteCount: Int { buffer.count }

    /// Total bytes appended so far.
    public var bytesAppended: Int64 { state.baseOffset + Int64(buffer.count) }

    /// Appends `bytes` and returns copies of the NAL units they complete, in stream order.
    public mutating func append(_ bytes: [UInt8]) throws(NALUError) -> [[UInt8]] {
        try admit(bytes.count)
        buffer.append(contentsOf: bytes)
        var units: [[UInt8]] = []
        scanBuffer { (unit: NALUnitView) in units.append(unit.array) }
        return units
    }

    /// Appends the bytes of any contiguous collection (`Data`, `ArraySlice`, …).
    public mutating func append(contentsOf bytes: some Collection<UInt8>) throws(NALUError) -> [[UInt8]] {
        try admit(bytes.count)
        buffer.append(contentsOf: bytes)
        var units: [[UInt8]] = []
        scanBuffer { (unit: NALUnitView) in units.append(unit.array) }
        return units
    }

    /// Appends `bytes` and lends every NAL unit they complete to `body`, without copying it: the
    /// view is valid only during the call. Throws ``NALUError/Code/tooLarge`` (before reading
    /// `bytes`) or what `body` throws; when `body` throws, the NAL units after the one it threw
    /// for in this chunk are not delivered.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (NALUnitView) throws -> Void) throws {
        try admit(bytes.count)
        buffer.append(contentsOf: bytes)
        try scanBuffer(body)
    }

    /// Ends the stream and returns the last NAL unit (if any). The framer is then empty and can
    /// take a new stream.
    public mutating func finish() -> [[UInt8]] {
        var units: [[UInt8]] = []
        finish { (unit: NALUnitView) in units.append(unit.array) }
        return units
    }

    /// Ends the stream and lends the last NAL unit (if any) to `body`.
    public mutating func finish<E: Error>(_ body: (NALUnitView) throws(E) -> Void) throws(E) {
        defer { reset() }
        var failure: E?
        var state = self.state
        buffer.withUnsafeBytes { bytes in
            if state.nalStart >= 0 {
                do throws(E) {
                    try Self.emit(bytes, state.nalStart..<bytes.count, prefixLength: state.prefixLength, state: &state, body)
                } catch {
                    failure = error
                }
            } else {
                state.garbage += Self.nonZeroCount(bytes, min(state.gapStart, bytes.count)..<bytes.count)
            }
        }
        leadingGarbageBytes = state.garbage
        emptyNALUnits = state.empty
        if let failure { throw failure }
    }

    /// Drops any unfinished NAL unit; the next bytes are searched for a start code. Counters and
    /// stream offsets carry on.
    public mutating func reset() {
        state.baseOffset += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
        state.nalStart = -1
        state.scan = 0
        state.gapStart = 0
    }

    // MARK: - Internals

    private func admit(_ count: Int) throws(NALUError) {
        guard count <= maxBufferedBytes - buffer.count else {
            throw NALUError(.tooLarge, field: "NAL unit", byteOffset: state.baseOffset + Int64(max(0, state.nalStart)),
                            detail: "\(buffer.count) bytes held plus \(count) appended exceed the framer's limit of \(maxBufferedBytes) bytes")
        }
    }

    /// Finds the start codes in the buffer from where the last scan stopped, delivers the NAL
    /// units they end, and drops what is no longer needed.
    private mutating func scanBuffer<E: Error>(_ body: (NALUnitView) throws(E) -> Void) throws(E) {
        var failure: E?
        var state = self.state
        buffer.withUnsafeBytes { bytes in
            do throws(E) {
                // Each candidate is a start code `00 00 01` or a `00 00 00`, which ends the NAL
                // unit (B.2); the zero bytes after it are skipped, not held.
                while let candidate = AnnexB.findStartCodeOrZeros(in: bytes, from: state.scan) {
                    if bytes[candidate + 2] == 0 {
                        let nalStart = state.nalStart
                        // A start code may begin two bytes before the first non-zero byte.
                        let nonZero = AnnexB.firstNonZero(in: bytes, from: candidate + 3)
                        state.scan = max(candidate + 1, nonZero - 2)
                        if nalStart >= 0 {
                            state.nalStart = -1
                            state.gapStart = candidate
                            try Self.emit(bytes, nalStart..<candidate, prefixLength: state.prefixLength, state: &state, body)
                        }
                        if nonZero == bytes.count { break }
                        continue
                    }
                    let startCode = candidate
                    let nalStart = state.nalStart
                    let prefix = state.prefixLength
                    // Move past this start code first, so a throwing body leaves a consistent state.
                    state.prefixLength = startCode > 0 && bytes[startCode - 1] == 0 ? 4 : 3
                    state.nalStart = startCode + 3
                    state.scan = state.nalStart
                    if nalStart >= 0 {
                        try Self.emit(bytes, nalStart..<startCode, prefixLength: prefix, state: &state, body)
                    } else {
                        state.garbage += Self.nonZeroCount(bytes, min(state.gapStart, startCode)..<startCode)
                        state.gapStart = 0
                    }
                }
                // A start code may straddle this chunk's end.
                state.scan = max(state.scan, bytes.count - 2)
            } catch {
                failure = error
            }
        }
        // Keep the current NAL unit, or before the first start code the last three bytes.
        let keepFrom = state.nalStart >= 0 ? state.nalStart : max(0, min(state.scan, buffer.count - 3))
        if state.nalStart < 0 {
            let counted = min(state.gapStart, keepFrom)
            buffer.withUnsafeBytes { state.garbage += Self.nonZeroCount($0, counted..<keepFrom) }
            state.gapStart = max(0, state.gapStart - keepFrom)
        }
        if keepFrom > 0 {
            buffer.removeSubrange(0..<keepFrom)
            state.baseOffset += Int64(keepFrom)
            state.scan -= keepFrom
            if state.nalStart >= 0 { state.nalStart -= keepFrom }
        }
        self.state = state
        leadingGarbageBytes = state.garbage
        emptyNALUnits = state.empty
        if let failure { throw failure }
    }

    /// Delivers `range` without its trailing zero bytes (or counts it as empty).
    private static func emit<E: Error>(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, prefixLength: Int, state: inout ScanState,
                                       _ body: (NALUnitView) throws(E) -> Void) throws(E) {
        var end = range.upperBound
        while end > range.lowerBound && bytes[end - 1] == 0 { end -= 1 }
        guard end > range.lowerBound else {
            state.empty += 1
            return
        }
        let view = NALUnitView(offset: state.baseOffset + Int64(range.lowerBound),
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
