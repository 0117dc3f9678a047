/// Reads `u(n)` and `ue(v)` straight from an escaped NAL unit, dropping each
/// `emulation_prevention_three_byte` (a `03` after two zero bytes, ITU-T H.264 7.4.1, ITU-T H.265
/// 7.4.2) as it loads bytes, so a slice header is read without copying or unescaping the NAL unit.
///
/// It is the fast path of the per-slice parsers: every read returns `nil` instead of throwing
/// when the bits run out or a code is longer than it handles, and the caller then parses with
/// ``BitReader`` for the exact error. The bytes it drops are the ones ``RBSP`` drops, so both
/// read the same bits.
struct EscapedBitReader {
    private let base: UnsafeRawPointer?
    private let end: Int
    private var index: Int
    /// Zero bytes loaded in a row (for the `00 00 03` rule).
    private var zeros = 0
    /// Loaded bits, most significant first; bits below the top `cached` are zero.
    private var cache: UInt64 = 0
    private var cached = 0

    /// Reads `bytes` from `start` up to (not including) escaped byte `limit`.
    init(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int) {
        base = bytes.baseAddress
        end = min(bytes.count, max(0, limit))
        index = min(max(0, start), end)
    }

    /// Loads whole bytes while at least 8 bits of the cache are free.
    @inline(__always)
    private mutating func refill() {
        guard let base else { return }
        while cached <= 56 && index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            index &+= 1
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros &+ 1 : 0
            cache |= UInt64(byte) &<< UInt64(56 &- cached)
            cached &+= 8
        }
    }

    /// `u(n)` for `count` in 0...32, or `nil` past the end.
    @inline(__always)
    mutating func bits(_ count: Int) -> Int? {
        guard count > 0 else { return count == 0 ? 0 : nil }
        guard count <= 32 else { return nil }
        if cached < count {
            refill()
            guard cached >= count else { return nil }
        }
        let value = cache &>> UInt64(64 &- count)
        cache = cache &<< UInt64(count)
        cached &-= count
        return Int(value)
    }

    /// `u(1)` as a flag, or `nil` past the end.
    @inline(__always)
    mutating func flag() -> Bool? {
        bits(1).map { $0 == 1 }
    }

    /// `ue(v)` (H.264 9.1) with at most 28 leading zero bits, or `nil` (past the end, or longer).
    @inline(__always)
    mutating func ue() -> Int? {
        if cached < 57 { refill() }
        let leadingZeros = cache.leadingZeroBitCount
        let length = 2 &* leadingZeros &+ 1
        guard leadingZeros <= 28, length <= cached else { return nil }
        let value = cache &>> UInt64(64 &- length)
        cache = cache &<< UInt64(length)
        cached &-= length
        return Int(value) &- 1
    }

    /// `se(v)` (H.264 Table 9-3), or `nil`.
    @inline(__always)
    mutating func se() -> Int? {
        guard let codeNum = ue() else { return nil }
        let magnitude = (codeNum &+ 1) &>> 1
        return codeNum & 1 == 1 ? magnitude : -magnitude
    }
}
