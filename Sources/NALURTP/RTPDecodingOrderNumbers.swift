/// Extends 16-bit decoding order numbers to AbsDon, a 64-bit number that orders NAL units by
/// decoding order (RFC 7798 4.5.1; RFC 6184 5.5 uses the same wrap-around rule): each DON is
/// placed relative to the previous NAL unit's in transmission order.
public struct RTPDecodingOrderUnwrapper: Sendable {
    private var previous: (don: Int, absDon: Int64)?

    public init() {}

    /// AbsDon of the next NAL unit in transmission order, whose DON is `don` (0…65 535).
    public mutating func absDon(_ don: Int) -> Int64 {
        let value = don & 0xFFFF
        guard let previous else {
            self.previous = (value, Int64(value))
            return Int64(value)
        }
        // RFC 7798 4.5.1, case by case (a distance of exactly 32 768 goes forward when the
        // number wrapped, backward when it did not).
        let absDon: Int64
        if value == previous.don {
            absDon = previous.absDon
        } else if value > previous.don, value - previous.don < 32_768 {
            absDon = previous.absDon + Int64(value - previous.don)
        } else if value < previous.don, previous.don - value >= 32_768 {
            absDon = previous.absDon + Int64(65_536 - previous.don + value)
        } else if value > previous.don {
            absDon = previous.absDon - Int64(previous.don + 65_536 - value)
        } else {
            absDon = previous.absDon - Int64(previous.don - value)
        }
        self.previous = (value, absDon)
        return absDon
    }
}

/// How a de-interleaving buffer is sized (RFC 6184 8.1 and 13, RFC 7798 7.1 and 6): from the
/// SDP's `sprop-max-don-diff`, `sprop-interleaving-depth` / `sprop-depack-buf-nalus`,
/// `sprop-deint-buf-req` / `sprop-depack-buf-bytes` and `sprop-init-buf-time`.
public struct RTPDecodingOrderLimits: Sendable, Hashable {
    /// `sprop-max-don-diff`: no NAL unit follows another in decoding order by more than this
    /// while preceding it in transmission order (0: not given).
    public var maxDonDiff: Int
    /// NAL units that may precede a NAL unit in transmission order and follow it in decoding
    /// order (H.264 `sprop-interleaving-depth`, counting VCL NAL units; H.265
    /// `sprop-depack-buf-nalus`); `nil`: not given.
    public var bufferUnits: Int?
    /// Bytes of NAL units the buffer needs (`sprop-deint-buf-req`, `sprop-depack-buf-bytes`).
    public var bufferBytes: Int?
    /// How long the first NAL unit waits before output, in 90 kHz ticks (`sprop-init-buf-time`).
    public var initialBufferTime: Int?

    public init(maxDonDiff: Int = 0, bufferUnits: Int? = nil, bufferBytes: Int? = nil, initialBufferTime: Int? = nil) {
        self.maxDonDiff = maxDonDiff
        self.bufferUnits = bufferUnits
        self.bufferBytes = bufferBytes
        self.initialBufferTime = initialBufferTime
    }

    /// NAL units held at most whatever the SDP says: 32 768 (the largest `sprop-max-don-diff` + 1).
    public static let maxHeldUnits = 32_768
}
