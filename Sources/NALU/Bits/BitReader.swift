/// Reads the bit-level syntax of an RBSP: `u(n)`, `ue(v)`, `se(v)`, `more_rbsp_data()` and
/// `rbsp_trailing_bits()` (ITU-T H.264 7.2 and 9.1; ITU-T H.265 7.2 and 9.2).
///
/// Every failure throws a ``NALUError`` naming the syntax element being read, with the bit offset
/// inside the RBSP and the byte offset inside the escaped NAL unit it came from.
public struct BitReader: Sendable {
    /// The RBSP being read.
    public let rbsp: RBSP
    /// Current position in bits from the start of ``rbsp``.
    public private(set) var position: Int
    /// Bit index of the `rbsp_stop_one_bit` (the last 1 bit), or -1 when the RBSP has none.
    private let stopBitPosition: Int

    /// Reads `rbsp`, starting `skippingBytes` bytes in (for example past the NAL unit header).
    public init(_ rbsp: RBSP, skippingBytes: Int = 0) {
        self.rbsp = rbsp
        let bytes = rbsp.bytes
        self.position = min(max(0, skippingBytes), bytes.count) * 8
        var last = bytes.endIndex
        var stop = -1
        while last > bytes.startIndex {
            let byte = bytes[last - 1]
            if byte != 0 {
                stop = (last - 1 - bytes.startIndex) * 8 + (7 - byte.trailingZeroBitCount)
                break
            }
            last -= 1
        }
        self.stopBitPosition = stop
    }

    /// Reads an escaped NAL unit (header included) and starts after `headerBytes` header bytes.
    public init(nalUnit: ArraySlice<UInt8>, headerBytes: Int) {
        self.init(RBSP(escaped: nalUnit), skippingBytes: headerBytes)
    }

    /// Number of bits left before the end of the RBSP.
    public var bitsLeft: Int { rbsp.bytes.count * 8 - position }

    /// Whether the position is on a byte boundary (`byte_aligned()`).
    public var isByteAligned: Bool { position & 7 == 0 }

    /// An error for `field` at the current position.
    public func error(_ code: NALUError.Code, _ field: StaticString, detail: String? = nil) -> NALUError {
        NALUError(code, field: field.description,
                  byteOffset: Int64(rbsp.escapedOffset(of: position / 8)),
                  bitOffset: position, detail: detail)
    }

    /// `u(n)`: an unsigned integer of `count` bits (0...32), most significant bit first.
    public mutating func u(_ count: Int, _ field: StaticString) throws(NALUError) -> UInt32 {
        guard count >= 0 && count <= 32 else { throw error(.invalidValue, field, detail: "bit count \(count)") }
        guard count <= bitsLeft else { throw error(.truncated, field) }
        let bytes = rbsp.bytes
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let byte = UInt64(bytes[bytes.startIndex + position >> 3])
            let available = 8 - (position & 7)
            let take = min(available, remaining)
            let bits = (byte >> UInt64(available - take)) & ((1 << UInt64(take)) - 1)
            value = value << UInt64(take) | bits
            position += take
            remaining -= take
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// `u(n)` for wider fields (0...64 bits).
    public mutating func u64(_ count: Int, _ field: StaticString) throws(NALUError) -> UInt64 {
        guard count >= 0 && count <= 64 else { throw error(.invalidValue, field, detail: "bit count \(count)") }
        if count <= 32 { return UInt64(try u(count, field)) }
        let high = UInt64(try u(count - 32, field))
        let low = UInt64(try u(32, field))
        return high << 32 | low
    }

    /// `u(1)` as a flag.
    public mutating func flag(_ field: StaticString) throws(NALUError) -> Bool {
        try u(1, field) == 1
    }

    /// `u(n)` returned as `Int`.
    public mutating func bits(_ count: Int, _ field: StaticString) throws(NALUError) -> Int {
        Int(try u(count, field))
    }

    /// Skips `count` bits.
    public mutating func skip(_ count: Int, _ field: StaticString) throws(NALUError) {
        guard count >= 0, count <= bitsLeft else { throw error(.truncated, field) }
        position += count
    }

    /// `ue(v)`: an unsigned Exp-Golomb code (ITU-T H.264 9.1). More than 31 leading zero bits is
    /// rejected, so the value always fits in `UInt32` (at most 2^32 − 2).
    public mutating func ue(_ field: StaticString) throws(NALUError) -> UInt32 {
        let start = position
        let bytes = rbsp.bytes
        let end = bytes.count * 8
        var leadingZeros = 0
        // The leading zero bits a byte at a time: the rest of the current byte, shifted up.
        while true {
            guard position < end else { position = start; throw error(.truncated, field) }
            let used = position & 7
            let rest = bytes[bytes.startIndex + position >> 3] << UInt8(used)
            if rest == 0 {
                leadingZeros += 8 - used
                position += 8 - used
                if leadingZeros > 31 { position = start; throw error(.expGolombOverflow, field) }
                continue
            }
            let zeros = rest.leadingZeroBitCount
            leadingZeros += zeros
            if leadingZeros > 31 { position = start; throw error(.expGolombOverflow, field) }
            position += zeros + 1 // and the 1 bit
            break
        }
        if leadingZeros == 0 { return 0 }
        guard leadingZeros <= bitsLeft else { position = start; throw error(.truncated, field) }
        let suffix = UInt64(try u(leadingZeros, field))
        return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + suffix)
    }

    /// `ue(v)` checked against the range the specification allows for `field`.
    public mutating func ue(_ field: StaticString, in range: ClosedRange<Int>) throws(NALUError) -> Int {
        let start = position
        let value = Int(try ue(field))
        guard range.contains(value) else {
            position = start
            throw error(.invalidValue, field, detail: "\(value) not in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// `se(v)`: a signed Exp-Golomb code, mapped as in ITU-T H.264 Table 9-3.
    public mutating func se(_ field: StaticString) throws(NALUError) -> Int32 {
        let codeNum = Int64(try ue(field))
        let magnitude = (codeNum + 1) / 2
        return Int32(truncatingIfNeeded: codeNum & 1 == 1 ? magnitude : -magnitude)
    }

    /// `se(v)` checked against the range the specification allows for `field`.
    public mutating func se(_ field: StaticString, in range: ClosedRange<Int>) throws(NALUError) -> Int {
        let start = position
        let value = Int(try se(field))
        guard range.contains(value) else {
            position = start
            throw error(.invalidValue, field, detail: "\(value) not in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// `more_rbsp_data()`: whether syntax remains before the `rbsp_stop_one_bit`
    /// (ITU-T H.264 7.2).
    public var moreRBSPData: Bool { position < stopBitPosition }

    /// Skips `*_extension_data_flag` bits (ITU-T H.265 7.3.2.1, 7.3.2.2.1, 7.3.2.3.1): moves to the
    /// `rbsp_stop_one_bit` when it lies ahead, so ``rbspTrailingBits()`` can follow.
    public mutating func skipToRBSPStopBit() {
        if position < stopBitPosition { position = stopBitPosition }
    }

    /// `rbsp_trailing_bits()`: the stop bit then zero bits to the byte boundary (7.3.2.11).
    public mutating func rbspTrailingBits() throws(NALUError) {
        guard try u(1, "rbsp_stop_one_bit") == 1 else {
            throw error(.invalidValue, "rbsp_stop_one_bit", detail: "expected 1")
        }
        while !isByteAligned {
            guard try u(1, "rbsp_alignment_zero_bit") == 0 else {
                throw error(.invalidValue, "rbsp_alignment_zero_bit", detail: "expected 0")
            }
        }
    }

    /// Advances to the next byte boundary.
    public mutating func alignToByte() {
        position = min((position + 7) & ~7, rbsp.bytes.count * 8)
    }
}
