/// A raw byte sequence payload: the bytes of a NAL unit with every
/// `emulation_prevention_three_byte` removed (ITU-T H.264 7.3.1, 7.4.1; ITU-T H.265 7.3.1.1).
///
/// Unescaping copies only when a `00 00 03` sequence is present; otherwise ``bytes`` shares the
/// input's storage. The positions of removed bytes are kept so that an error found at an RBSP
/// offset can be reported at its offset in the escaped NAL unit (``escapedOffset(of:)``).
public struct RBSP: Sendable, Hashable {
    /// The payload with emulation prevention removed.
    public let bytes: ArraySlice<UInt8>
    /// RBSP indices (relative to `bytes.startIndex`) before which a `03` was removed, ascending.
    public let removedBefore: [Int]

    /// Unescapes `escaped` (a whole NAL unit, header included, or any part of one).
    public init(escaped: ArraySlice<UInt8>) {
        // Fast path: look for the first 00 00 03 without copying.
        guard let first = escaped.withUnsafeBytes({ Self.nextEmulationPrevention(in: $0, from: 0) }) else {
            bytes = escaped
            removedBefore = []
            return
        }
        var out = [UInt8]()
        out.reserveCapacity(escaped.count)
        var removed: [Int] = []
        escaped.withUnsafeBytes { raw in
            // The runs between emulation_prevention_three_bytes, copied whole. After one, the
            // next needs two more zero bytes (7.4.1: the 03 ends the zero run).
            var from = 0
            var next: Int? = first
            while let three = next {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[from..<three]))
                removed.append(out.count)
                from = three &+ 1
                next = Self.nextEmulationPrevention(in: raw, from: from)
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[from...]))
        }
        bytes = out[...]
        removedBefore = removed
    }

    /// The index of the `03` of the first `00 00 03` that starts at or after `start`, or `nil`.
    ///
    /// Sixteen positions at a time, as ``AnnexB``'s start-code search: with `a`, `b`, `c` the
    /// 16-byte loads at `o`, `o + 1`, `o + 2`, lane `i` of `a | b | (c ^ 03)` is zero exactly
    /// where `00 00 03` starts at `o + i`.
    static func nextEmulationPrevention(in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let count = buffer.count
        guard let base = buffer.baseAddress, start >= 0, start <= count else { return nil }
        var index = start
        while index &+ 18 <= count {
            let a = base.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            let b = base.loadUnaligned(fromByteOffset: index &+ 1, as: SIMD16<UInt8>.self)
            let c = base.loadUnaligned(fromByteOffset: index &+ 2, as: SIMD16<UInt8>.self)
            let x = a | b | (c ^ SIMD16(repeating: 3))
            // 0x80 in the lanes where x is 0 (lane-wise arithmetic, which vectorises).
            let zero = (x &- SIMD16(repeating: 1)) & ~x & SIMD16(repeating: 0x80)
            let words = unsafeBitCast(zero, to: SIMD2<UInt64>.self)
            if words[0] != 0 { return index &+ (words[0].trailingZeroBitCount &>> 3) &+ 2 }
            if words[1] != 0 { return index &+ 8 &+ (words[1].trailingZeroBitCount &>> 3) &+ 2 }
            index &+= 16
        }
        while index &+ 3 <= count {
            if base.load(fromByteOffset: index, as: UInt8.self) == 0,
               base.load(fromByteOffset: index &+ 1, as: UInt8.self) == 0,
               base.load(fromByteOffset: index &+ 2, as: UInt8.self) == 3 { return index &+ 2 }
            index &+= 1
        }
        return nil
    }

    /// Unescapes `escaped`.
    public init(escaped: [UInt8]) { self.init(escaped: escaped[...]) }

    /// The offset in the escaped input of the RBSP byte at `rbspOffset` (relative to the start).
    public func escapedOffset(of rbspOffset: Int) -> Int {
        // Count removed bytes at or before this position (binary search: ascending list).
        var low = 0
        var high = removedBefore.count
        while low < high {
            let mid = (low + high) / 2
            if removedBefore[mid] <= rbspOffset { low = mid + 1 } else { high = mid }
        }
        return rbspOffset + low
    }

    /// Escapes an RBSP for writing into a NAL unit: inserts `03` after every `00 00` that is
    /// followed by a byte `00`–`03`, and appends `03` when the payload ends in `00`
    /// (ITU-T H.264 7.4.1, ITU-T H.265 7.4.2).
    public static func escape(_ rbsp: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if out.last == 0 { out.append(3) }
        return out
    }
}
