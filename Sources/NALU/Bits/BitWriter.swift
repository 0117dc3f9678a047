/// Writes the bit-level syntax of an RBSP: `u(n)`, `ue(v)`, `se(v)` and `rbsp_trailing_bits()`
/// (ITU-T H.264 7.2 and 9.1; ITU-T H.265 7.2 and 9.2), the inverse of ``BitReader``. Used to
/// write parameter sets back (``AVCSequenceParameterSet/rbspBytes()``, `nalu edit`), SEI
/// payloads, and by tests to make exact syntax by hand.
///
/// Bits are written most significant first into ``bytes``; ``nalUnit(header:)`` appends the
/// trailing bits and applies emulation prevention (``RBSP/escape(_:)``, H.264 7.4.1, H.265 7.4.2).
///
/// ```swift
/// var writer = BitWriter()
/// writer.u(8, 0x64)        // profile_idc
/// writer.ue(3)             // 00100
/// writer.rbspTrailingBits()
/// ```
public struct BitWriter: Sendable {
    /// The bytes written so far; the last one may be partial (see ``bitCount``).
    public private(set) var bytes: [UInt8] = []
    /// Number of bits written.
    public private(set) var bitCount = 0

    public init() {
        bytes.reserveCapacity(64)
    }

    /// Number of bits written (the same as ``bitCount``).
    public var position: Int { bitCount }

    /// Whether the position is on a byte boundary (`byte_aligned()`).
    public var isByteAligned: Bool { bitCount & 7 == 0 }

    /// Appends one bit.
    @inline(__always)
    public mutating func bit(_ value: Bool) {
        if bitCount & 7 == 0 { bytes.append(0) }
        if value { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount & 7) }
        bitCount += 1
    }

    /// `u(1)`.
    public mutating func flag(_ value: Bool) { bit(value) }

    /// `u(n)`: the low `count` bits (0...64) of `value`, most significant first.
    public mutating func u(_ count: Int, _ value: UInt64) {
        var remaining = min(max(count, 0), 64)
        // As many bits as the current byte has room for at a time (whole bytes when aligned).
        while remaining > 0 {
            let used = bitCount & 7
            if used == 0 { bytes.append(0) }
            let room = 8 - used
            let take = min(room, remaining)
            remaining -= take
            let chunk = UInt8(truncatingIfNeeded: (value >> UInt64(remaining)) & ((1 << UInt64(take)) - 1))
            bytes[bytes.count - 1] |= chunk << UInt8(room - take)
            bitCount += take
        }
    }

    /// `u(n)` of an `Int` (its low `count` bits).
    public mutating func u(_ count: Int, _ value: Int) {
        u(count, UInt64(truncatingIfNeeded: value))
    }

    /// `u(n)` of a `UInt32`.
    public mutating func u(_ count: Int, _ value: UInt32) {
        u(count, UInt64(value))
    }

    /// `ue(v)`: the unsigned Exp-Golomb code of `value` (H.264 9.1): `leadingZeroBits` zeros, a
    /// one, then `value + 1 − 2^leadingZeroBits` in `leadingZeroBits` bits. Values up to
    /// 2^32 − 2 (the largest ``BitReader/ue(_:)`` reads).
    public mutating func ue(_ value: UInt32) {
        let codeNum = UInt64(value) + 1
        let length = 64 - codeNum.leadingZeroBitCount   // bits of codeNum
        u(length - 1, 0 as UInt64)
        u(length, codeNum)
    }

    /// `ue(v)` of an `Int` (negative values are written as 0; values above 2^32 − 2 are clamped).
    public mutating func ue(_ value: Int) {
        ue(UInt32(clamping: min(max(value, 0), Int(UInt32.max) - 1)))
    }

    /// `se(v)`: the signed Exp-Golomb code (H.264 Table 9-3): k > 0 ↦ 2k − 1, k ≤ 0 ↦ −2k.
    public mutating func se(_ value: Int) {
        let magnitude = UInt64(value.magnitude)
        let codeNum = value > 0 ? 2 * magnitude - 1 : 2 * magnitude
        ue(UInt32(clamping: min(codeNum, UInt64(UInt32.max) - 1)))
    }

    /// `se(v)` of an `Int32`.
    public mutating func se(_ value: Int32) { se(Int(value)) }

    /// Appends bits copied from a parsed RBSP (``RBSPBits``), for syntax kept as coded.
    package mutating func append(_ bits: RBSPBits) {
        var index = 0
        while index + 8 <= bits.bitCount {
            u(8, UInt64(bits.bytes[index / 8]))
            index += 8
        }
        while index < bits.bitCount {
            bit(bits.bytes[index / 8] >> UInt8(7 - index & 7) & 1 == 1)
            index += 1
        }
    }

    /// `rbsp_trailing_bits()`: `rbsp_stop_one_bit` then `rbsp_alignment_zero_bit`s (7.3.2.11).
    public mutating func rbspTrailingBits() {
        bit(true)
        while !isByteAligned { bit(false) }
    }

    /// The NAL unit: `header` bytes, then the RBSP written so far with its trailing bits and
    /// emulation prevention applied (7.4.1). Call after the last syntax element.
    public func nalUnit(header: [UInt8]) -> [UInt8] {
        var writer = self
        writer.rbspTrailingBits()
        return header + RBSP.escape(writer.bytes)
    }
}

/// A run of bits copied out of an RBSP as coded: syntax nalu keeps verbatim when it writes a
/// parameter set back (for example an H.264 `scaling_list()` whose coding is not unique, or an
/// H.265 `st_ref_pic_set()` whose inter prediction is kept only as derived values).
package struct RBSPBits: Hashable, Sendable {
    /// The bits, most significant first; bits past ``bitCount`` in the last byte are zero.
    package let bytes: [UInt8]
    /// Number of bits.
    package let bitCount: Int

    package init(bytes: [UInt8], bitCount: Int) {
        self.bytes = bytes
        self.bitCount = max(0, min(bitCount, bytes.count * 8))
    }

    /// No bits.
    package static let empty = RBSPBits(bytes: [], bitCount: 0)
}

extension BitReader {
    /// The bits from RBSP bit position `start` to the current position, copied.
    package func bits(from start: Int) -> RBSPBits {
        let bytes = rbsp.bytes
        let begin = max(0, min(start, position))
        let count = position - begin
        let outCount = (count + 7) / 8
        guard outCount > 0 else { return .empty }
        // Each output byte is the 16 source bits from `begin`'s byte, shifted by its bit offset.
        // Source bytes `first ..< first + outCount` hold the bits (`position` is inside `bytes`);
        // the byte after them is read only when there is one.
        let shift = UInt16(begin & 7)
        let first = begin >> 3
        let out = bytes.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: outCount) { buffer, initialized in
                guard let from = source.baseAddress, let to = buffer.baseAddress, first &+ outCount <= source.count else { return }
                var word = UInt16(from[first]) << 8
                for index in 0..<outCount {
                    let next = index &+ 1 < outCount || first &+ outCount < source.count ? from[first &+ index &+ 1] : 0
                    word |= UInt16(next)
                    to[index] = UInt8(truncatingIfNeeded: (word << shift) >> 8)
                    word = UInt16(next) << 8
                }
                // Bits past `count` are zero.
                if count & 7 != 0 { to[outCount &- 1] &= UInt8(truncatingIfNeeded: 0xFF00 >> (count & 7)) }
                initialized = outCount
            }
        }
        return RBSPBits(bytes: out, bitCount: count)
    }
}
