public import NALU

/// A received access unit with decoding and presentation times (90 kHz), ready for
/// `MP4Writer.append(_:)` (``NALU/TimedAccessUnit``).
public struct RTPTimedAccessUnit: TimedAccessUnit, Sendable, Hashable {
    /// The access unit as received.
    public var accessUnit: RTPAccessUnit
    public var codec: Codec
    /// Presentation time: the RTP timestamp unfolded, counted from the first access unit's.
    public var pts: Int64
    /// Decoding time (``RTPDecodeTimes``).
    public var dts: Int64
    /// 1/90 000 s.
    public var timeBase: Rational { Rational(1, 90_000) }
    /// Length-prefixed: every NAL unit after its four-byte length (what MP4 stores; no start
    /// codes to search for).
    public var format: StreamFormat { .lengthPrefixed }
    public var bytes: [UInt8] { RTPTimedAccessUnit.lengthPrefixed(accessUnit.nalUnits) }
    /// Whether it holds an IDR (H.264) or IRAP (H.265) picture.
    public var isSync: Bool { RTPTimedAccessUnit.isKeyframe(accessUnit.nalUnits, codec: codec) }

    /// `nalUnits` each after a four-byte start code.
    public static func annexB(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nalUnits.reduce(0) { $0 + 4 + $1.count })
        for unit in nalUnits {
            out += [0, 0, 0, 1]
            out += unit
        }
        return out
    }

    /// `nalUnits` each after its length in four bytes, big-endian (ISO/IEC 14496-15).
    public static func lengthPrefixed(_ nalUnits: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nalUnits.reduce(0) { $0 + 4 + $1.count })
        for unit in nalUnits {
            let length = UInt32(truncatingIfNeeded: unit.count)
            out += [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                    UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
            out += unit
        }
        return out
    }

    /// Whether `nalUnits` hold an IDR slice (H.264 type 5) or an IRAP slice (H.265 16–23).
    public static func isKeyframe(_ nalUnits: [[UInt8]], codec: Codec) -> Bool {
        nalUnits.contains { unit in
            guard let header = try? NALUnitHeader(unit, codec: codec) else { return false }
            switch header {
            case .avc(let avc): return avc.nalUnitType == .idrSlice
            case .hevc(let hevc): return hevc.nalUnitType.isIRAP
            }
        }
    }
}

/// Gives received access units decoding times: RTP carries presentation times only (RFC 6184
/// 5.1), and access units come in decoding order. The n-th decoding time is the n-th smallest
/// presentation time, moved earlier by the largest distance the first ``window`` access units
/// need so that no picture decodes after it presents — what a decoder's output order implies
/// when pictures are reordered by fewer than ``window``. Decoding times strictly increase.
///
/// Access units are held until ``window`` more have come (memory: ``window`` access units).
public struct RTPDecodeTimes: Sendable {
    /// Access units held to sort presentation times: pictures reordered by more get negative
    /// composition offsets, never a decoding time out of order.
    public let window: Int
    public let codec: Codec
    private var held: [(unit: RTPAccessUnit, pts: Int64)] = []
    /// Presentation times of the held access units, sorted.
    private var sorted: [Int64] = []
    private var origin: Int64?
    private var shift: Int64?
    private var lastDTS: Int64?

    public init(codec: Codec, window: Int = 16) {
        self.codec = codec
        self.window = min(max(window, 1), 64)
    }

    /// Takes the next access unit in decoding order; returns those now timed.
    public mutating func push(_ unit: RTPAccessUnit) -> [RTPTimedAccessUnit] {
        if origin == nil { origin = unit.time }
        let pts = unit.time - (origin ?? 0)
        held.append((unit, pts))
        let index = sorted.firstIndex { $0 > pts } ?? sorted.count
        sorted.insert(pts, at: index)
        var out: [RTPTimedAccessUnit] = []
        while held.count > window { out.append(release()) }
        return out
    }

    /// Times what is held (the end of the stream).
    public mutating func finish() -> [RTPTimedAccessUnit] {
        var out: [RTPTimedAccessUnit] = []
        while !held.isEmpty { out.append(release()) }
        return out
    }

    private mutating func release() -> RTPTimedAccessUnit {
        if shift == nil {
            var largest: Int64 = 0
            for (index, entry) in held.enumerated() where index < sorted.count { largest = max(largest, sorted[index] - entry.pts) }
            shift = largest
        }
        let (unit, pts) = held.removeFirst()
        var dts = sorted.removeFirst() - (shift ?? 0)
        if let lastDTS, dts <= lastDTS { dts = lastDTS + 1 }
        lastDTS = dts
        return RTPTimedAccessUnit(accessUnit: unit, codec: codec, pts: pts, dts: dts)
    }
}
