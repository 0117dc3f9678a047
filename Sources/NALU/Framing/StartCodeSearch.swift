/// Start-code search over Annex-B bytes (ITU-T H.264 B.2, ITU-T H.265 B.2).
///
/// The search is the hot loop of every Annex-B reader, so it tests for the start-code *pattern*
/// 16 bytes at a time rather than for zero bytes (which are common in CAVLC streams). With `a`,
/// `b`, `c` the 16-byte loads at `o`, `o + 1`, `o + 2`, lane `i` of `(a | b | (c & 0xFE)) .== 0`
/// is set exactly where `00 00 00` or `00 00 01` starts at `o + i`. (The lane test is written as
/// `(x &- 1) & ~x & 0x80`, lane-wise arithmetic that compiles to vector instructions; Swift's
/// generic `.==` on `SIMD16` does not.) Inside a NAL unit neither
/// occurs (emulation prevention, H.264 7.4.1 / H.265 7.4.2), so a set lane is almost always a
/// start code or the zero bytes before one. Four such masks cover 64 bytes; when all are clear
/// (the common case) the loop moves on without looking at single bytes.
public enum AnnexB {
    /// The index of the first byte of the next three-byte start code prefix `00 00 01` at or after
    /// `start`, or `nil` when there is none in `buffer`.
    @inlinable
    package static func findStartCode(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        scan(buffer, from: start, zerosToo: false)
    }

    /// The index of the first `00 00 01` (a start code prefix) or `00 00 00` (the end of a NAL
    /// unit: B.2 lets none contain it, so it begins `trailing_zero_8bits`) at or after `start`, or
    /// `nil` when there is neither in `buffer`. The same vector test as ``findStartCode(in:from:)``.
    @inlinable
    package static func findStartCodeOrZeros(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        scan(buffer, from: start, zerosToo: true)
    }

    /// The search behind both: the first `00 00 01`, or with `zerosToo` the first `00 00 0[01]`.
    /// (`zerosToo` is a constant at each call site, so the branches on it fold away.)
    @inlinable @inline(__always)
    static func scan(_ buffer: UnsafeRawBufferPointer, from start: Int, zerosToo: Bool) -> Int? {
        let count = buffer.count
        guard let base = buffer.baseAddress, start >= 0, start <= count, count >= 3 else { return nil }
        var index = start
        // 64 candidates per step; the loads reach index + 2 + 63.
        while index &+ 66 <= count {
            let m0 = candidates(base, index)
            let m1 = candidates(base, index &+ 16)
            let m2 = candidates(base, index &+ 32)
            let m3 = candidates(base, index &+ 48)
            let any = unsafeBitCast((m0 | m1) | (m2 | m3), to: SIMD2<UInt64>.self)
            if any[0] | any[1] != 0 {
                if let found = firstMatch(base, index, m0, zerosToo) { return found }
                if let found = firstMatch(base, index &+ 16, m1, zerosToo) { return found }
                if let found = firstMatch(base, index &+ 32, m2, zerosToo) { return found }
                if let found = firstMatch(base, index &+ 48, m3, zerosToo) { return found }
            }
            index &+= 64
        }
        while index &+ 18 <= count {
            if let found = firstMatch(base, index, candidates(base, index), zerosToo) { return found }
            index &+= 16
        }
        while index &+ 3 <= count {
            if base.load(fromByteOffset: index, as: UInt8.self) == 0,
               base.load(fromByteOffset: index &+ 1, as: UInt8.self) == 0 {
                let third = base.load(fromByteOffset: index &+ 2, as: UInt8.self)
                if zerosToo ? third <= 1 : third == 1 { return index }
            }
            index &+= 1
        }
        return nil
    }

    /// The first lane of `mask` (candidates at `offset`) that is a match: any lane with
    /// `zerosToo`, else one whose third byte is `01`.
    @inlinable @inline(__always)
    static func firstMatch(_ base: UnsafeRawPointer, _ offset: Int, _ mask: SIMD16<UInt8>, _ zerosToo: Bool) -> Int? {
        zerosToo ? firstCandidate(offset, mask) : firstStartCode(base, offset, mask)
    }

    /// The index of the first `00 00 00` that starts at or after `start` and ends before
    /// `limit`, or `nil`. No NAL unit contains one (B.2): it begins the `trailing_zero_8bits`.
    @inlinable
    package static func findThreeZeros(in buffer: UnsafeRawBufferPointer, from start: Int, before limit: Int) -> Int? {
        guard start >= 0, limit >= 0, limit <= buffer.count else { return nil }
        let window = UnsafeRawBufferPointer(rebasing: buffer[0..<limit])
        var index = start
        while let found = findStartCodeOrZeros(in: window, from: index) {
            if window[found &+ 2] == 0 { return found }
            index = found &+ 1
        }
        return nil
    }

    /// The index of the first non-zero byte at or after `start`, or `buffer.count` when the rest
    /// is zero bytes (eight bytes at a time: a run of `trailing_zero_8bits` is skipped quickly).
    @inlinable
    package static func firstNonZero(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = buffer.count
        guard let base = buffer.baseAddress, start >= 0, start <= count else { return count }
        var index = start
        while index &+ 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if word != 0 { return index &+ (word.trailingZeroBitCount &>> 3) }
            index &+= 8
        }
        while index < count {
            if base.load(fromByteOffset: index, as: UInt8.self) != 0 { return index }
            index &+= 1
        }
        return count
    }

    /// The first set lane of `mask` (candidates at `offset`).
    @inlinable @inline(__always)
    static func firstCandidate(_ offset: Int, _ mask: SIMD16<UInt8>) -> Int? {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        if words[0] != 0 { return offset &+ (words[0].trailingZeroBitCount &>> 3) }
        if words[1] != 0 { return offset &+ 8 &+ (words[1].trailingZeroBitCount &>> 3) }
        return nil
    }

    /// Lane `i` is `0x80` where `00 00 00` or `00 00 01` starts at `offset + i`, else 0; reads
    /// `offset ..< offset + 18`.
    @inlinable @inline(__always)
    static func candidates(_ base: UnsafeRawPointer, _ offset: Int) -> SIMD16<UInt8> {
        let a = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
        let b = base.loadUnaligned(fromByteOffset: offset &+ 1, as: SIMD16<UInt8>.self)
        let c = base.loadUnaligned(fromByteOffset: offset &+ 2, as: SIMD16<UInt8>.self)
        let x = a | b | (c & SIMD16(repeating: 0xFE))
        return (x &- SIMD16(repeating: 1)) & ~x & SIMD16(repeating: 0x80)
    }

    /// The first lane of `mask` (candidates at `offset`) whose third byte is `01`.
    @inlinable @inline(__always)
    static func firstStartCode(_ base: UnsafeRawPointer, _ offset: Int, _ mask: SIMD16<UInt8>) -> Int? {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        var word = words[0]
        var wordOffset = offset
        for half in 0..<2 {
            if half == 1 {
                word = words[1]
                wordOffset = offset &+ 8
            }
            while word != 0 {
                let lane = word.trailingZeroBitCount &>> 3
                let position = wordOffset &+ lane
                if base.load(fromByteOffset: position &+ 2, as: UInt8.self) == 1 { return position }
                word &= word &- 1
            }
        }
        return nil
    }

    /// Calls `body` with the range of every NAL unit in `buffer`, a complete Annex-B stream in
    /// memory. A NAL unit ends at the next start code or at the first `00 00 00` (B.2); ranges
    /// exclude start codes and trailing zero bytes; bytes before the first start code, and
    /// between a NAL unit's trailing zeros and the next start code, are not a NAL unit. Empty NAL
    /// units are skipped.
    @inlinable
    /// - Throws: what `body` throws (typed: `Failure`).
    public static func forEachNALUnit<Failure: Error>(in buffer: UnsafeRawBufferPointer, _ body: (Range<Int>) throws(Failure) -> Void) throws(Failure) {
        guard var startCode = findStartCode(in: buffer, from: 0) else { return }
        while true {
            let nalStart = startCode &+ 3
            // One pass: the first `00 00 01` or `00 00 00` after the NAL unit's start ends it.
            var end = buffer.count
            var next: Int?
            if let candidate = findStartCodeOrZeros(in: buffer, from: nalStart) {
                end = candidate
                next = buffer[candidate &+ 2] == 1 ? candidate : findStartCode(in: buffer, from: candidate)
            }
            while end > nalStart && buffer[end &- 1] == 0 { end &-= 1 }
            if end > nalStart { try body(nalStart..<end) }
            guard let next else { return }
            startCode = next
        }
    }

    /// The NAL units of a complete Annex-B stream in memory, as slices of `bytes` (no copies).
    public static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        bytes.withUnsafeBytes { buffer in
            forEachNALUnit(in: buffer) { range in units.append(bytes[range]) }
        }
        return units
    }
}
