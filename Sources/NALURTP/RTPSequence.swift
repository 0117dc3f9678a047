/// Wrap-around arithmetic on RTP sequence numbers (16 bits) and timestamps (32 bits), RFC 3550
/// 5.1 and Appendix A.1: a difference is taken modulo 2^n and read as signed, so a sequence
/// number just past 65 535 follows 65 535.
public enum RTPSequence {
    /// `later − earlier` modulo 2^16, as a signed distance in −32 768 … 32 767.
    public static func distance(from earlier: UInt16, to later: UInt16) -> Int {
        Int(Int16(bitPattern: later &- earlier))
    }

    /// `later − earlier` modulo 2^32, as a signed distance.
    public static func timestampDistance(from earlier: UInt32, to later: UInt32) -> Int64 {
        Int64(Int32(bitPattern: later &- earlier))
    }
}

/// Extends 16-bit sequence numbers to a 64-bit count (RFC 3550 Appendix A.1's extended highest
/// sequence number): each number is placed nearest the highest one seen so far.
public struct RTPSequenceUnwrapper: Sendable {
    private var highest: Int64?

    public init() {}

    /// The extended value of `sequenceNumber`.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        guard let highest else {
            highest = Int64(sequenceNumber)
            return Int64(sequenceNumber)
        }
        let value = highest + Int64(RTPSequence.distance(from: UInt16(truncatingIfNeeded: highest), to: sequenceNumber))
        if value > highest { self.highest = value }
        return value
    }
}

/// Extends 32-bit RTP timestamps to a 64-bit time line: each is placed nearest the previous one.
public struct RTPTimestampUnwrapper: Sendable {
    private var last: Int64?

    public init() {}

    /// The extended value of `timestamp`.
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        let value = last &+ RTPSequence.timestampDistance(from: UInt32(truncatingIfNeeded: last), to: timestamp)
        self.last = value
        return value
    }
}
