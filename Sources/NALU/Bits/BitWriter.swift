/// Writes bit-level syntax (`u(n)`, `ue(v)`, `se(v)`, `rbsp_trailing_bits()`), the inverse of
/// ``BitReader``. Used to build parameter sets and SEI payloads, and by tests to make exact
/// syntax by hand.
public struct BitWriter: Sendable {
    /// The RBSP bytes written so far (the last byte may be partial).
    public private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    public init() {}

    /// Number of bits written.
    public var position: Int { bitCount }

    /// `u(n)`: writes the low `count` bits of `value`, most significant first.
    public mutating func u(_ count: Int, _ value: UInt64) {
        var index = count - 1
        while index >= 0 {
            if bitCount & 7 == 0 { bytes.append(0) }
            if (value >> UInt64(index)) & 1 == 1 {
                bytes[bytes.count - 1] |= UInt8(0x80) >> UInt8(bitCount & 7)
            }
            bitCount += 1
            index -= 1
        }
    }

    /// Writes one flag bit.
    public mutating func flag(_ value: Bool) { u(1, value ? 1 : 0) }

    /// `ue(v)` (ITU-T H.264 9.1).
    public mutating func ue(_ value: UInt32) {
        let codeNum = UInt64(value) + 1
        let length = 64 - codeNum.leadingZeroBitCount
        u(length - 1, 0)
        u(length, codeNum)
    }

    /// `se(v)` (ITU-T H.264 9.1.1).
    public mutating func se(_ value: Int32) {
        let magnitude = UInt32(value.magnitude)
        ue(value > 0 ? magnitude * 2 - 1 : magnitude * 2)
    }

    /// `rbsp_trailing_bits()`: a stop bit then zero bits to the byte boundary.
    public mutating func rbspTrailingBits() {
        u(1, 1)
        while bitCount & 7 != 0 { u(1, 0) }
    }
}
