/// The clock of a reception loop against its ``RTPReceptionLimits``: when it started, when the
/// first and the last packet came, and whether a limit has ended it. One for every loop that
/// reads packets (``RTPReception``, an RTSP recording's UDP and interleaved loops).
public struct RTPReceptionTimer: Sendable {
    public let limits: RTPReceptionLimits
    /// When the loop started (monotonic nanoseconds).
    public let start: Int64
    /// When the first packet came (`nil`: none yet).
    public private(set) var first: Int64?
    /// When the last packet came (``start`` before the first).
    public private(set) var last: Int64

    public init(limits: RTPReceptionLimits, start: Int64 = MonotonicClock.now()) {
        self.limits = limits
        self.start = start
        last = start
    }

    /// Whether a packet came.
    public var started: Bool { first != nil }

    /// A packet (or a datagram that was none) came at `arrival`.
    public mutating func arrived(at arrival: Int64) {
        last = arrival
        if first == nil { first = arrival }
    }

    /// The end a limit gives at `now`, or `nil` to go on: ``RTPReceptionLimits/duration`` after
    /// the first packet, ``RTPReceptionLimits/idle`` since the last, or
    /// ``RTPReceptionLimits/wait`` without any.
    public func end(at now: Int64) -> RTPReceptionEnd? {
        if let first, let duration = limits.duration, now - first >= duration { return .duration }
        if first != nil, now - last >= limits.idle { return .idle }
        if first == nil, now - start >= limits.wait { return .noPacket }
        return nil
    }
}
