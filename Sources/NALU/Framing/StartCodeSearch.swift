/// Start-code search over Annex-B bytes (ITU-T H.264 B.2, ITU-T H.265 B.2).
///
/// The search is the hot loop of every Annex-B reader. It skips 16 bytes at a time while the
/// bytes hold no zero (a word-at-a-time test, as in FFmpeg's `ff_startcode_find_candidate`), and
/// only examines bytes one by one around a zero.
public enum AnnexB {
    /// The index of the first byte of the next three-byte start code prefix `00 00 01` at or after
    /// `start`, or `nil` when there is none in `buffer`.
    @inlinable
    public static func findStartCode(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let count = buffer.count
        guard let base = buffer.baseAddress, start >= 0, count >= 3 else { return nil }
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index &+ 16 <= count {
            let first = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let second = base.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
            let zeros = ((first &- ones) & ~first | (second &- ones) & ~second) & highs
            if zeros == 0 {
                index &+= 16
                continue
            }
            // Each candidate reads index...index+2, so the byte-wise scan stops two bytes before
            // the end of the buffer; the tail loop below finishes the last bytes.
            let stop = min(index &+ 16, count &- 2)
            while index < stop {
                if base.load(fromByteOffset: index &+ 2, as: UInt8.self) > 1 {
                    index &+= 3
                    continue
                }
                if base.load(fromByteOffset: index, as: UInt8.self) == 0,
                   base.load(fromByteOffset: index &+ 1, as: UInt8.self) == 0,
                   base.load(fromByteOffset: index &+ 2, as: UInt8.self) == 1 {
                    return index
                }
                index &+= 1
            }
        }
        while index &+ 3 <= count {
            if base.load(fromByteOffset: index, as: UInt8.self) == 0,
               base.load(fromByteOffset: index &+ 1, as: UInt8.self) == 0,
               base.load(fromByteOffset: index &+ 2, as: UInt8.self) == 1 {
                return index
            }
            index &+= 1
        }
        return nil
    }

    /// The index of the first `00 00 00` that starts at or after `start` and ends before
    /// `limit`, or `nil`. No NAL unit contains one (B.2): it begins the `trailing_zero_8bits`.
    @inlinable
    public static func findThreeZeros(in buffer: UnsafeRawBufferPointer, from start: Int, before limit: Int) -> Int? {
        guard let base = buffer.baseAddress, start >= 0, limit <= buffer.count else { return nil }
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index &+ 2 < limit {
            // Sixteen bytes without a zero hold no part of a 00 00 00 that starts in them.
            if index &+ 16 <= limit {
                let first = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let second = base.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
                if ((first &- ones) & ~first | (second &- ones) & ~second) & highs == 0 {
                    index &+= 16
                    continue
                }
            }
            if base.load(fromByteOffset: index &+ 2, as: UInt8.self) != 0 {
                index &+= 3
            } else if base.load(fromByteOffset: index &+ 1, as: UInt8.self) != 0 {
                index &+= 2
            } else if base.load(fromByteOffset: index, as: UInt8.self) != 0 {
                index &+= 1
            } else {
                return index
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
    public static func forEachNALUnit(in buffer: UnsafeRawBufferPointer, _ body: (Range<Int>) throws -> Void) rethrows {
        guard var startCode = findStartCode(in: buffer, from: 0) else { return }
        while true {
            let nalStart = startCode &+ 3
            let next = findStartCode(in: buffer, from: nalStart)
            var end = next ?? buffer.count
            if let zeros = findThreeZeros(in: buffer, from: nalStart, before: end) { end = zeros }
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
