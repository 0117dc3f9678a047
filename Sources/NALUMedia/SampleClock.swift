public import NALU
public import NALUMP4
import NALUTS

/// The times a container gives each access unit of its video (``NALU/SampleTiming``), looked up
/// by the offset of the access unit's first VCL NAL unit as a sink completes it
/// (``NALU/SampleTimingLookup``):
///
/// - **MP4/MOV**: each sample's decoding time, composition time and duration from `stts`/`ctts`
///   (ISO/IEC 14496-12 8.6.1) or the fragments' `tfdt`/`trun` (8.8.12, 8.8.8), in the track's
///   timescale, fed with the samples as they are read (``add(_:)``; the last few are kept).
/// - **MPEG-TS**: the PES packet's DTS and PTS (ISO/IEC 13818-1 2.4.3.7; a missing DTS is the
///   PTS) at 90 kHz, unwrapped across 2^33 (each time is taken as the value nearest the
///   previous decoding time), so a stream that runs past 26.5 hours keeps counting up. An access
///   unit that starts in no PES packet with times (several in one packet) decodes one frame
///   period after the one before (the last distance) with the same composition offset.
///
/// Elementary streams have no clock: their sinks time them from a frame rate.
public final class SampleClock {
    /// Ticks per second of the times.
    public let timescale: UInt32
    /// The MP4 samples last read, by offset.
    private var slots: [(offset: Int64, timing: SampleTiming)?] = Array(repeating: nil, count: 16)
    private var next = 0
    /// A transport stream's time stamps by elementary-stream offset.
    private let pes: ((Int64) -> PESTimestamps?)?
    /// The last transport stream access unit's unwrapped times and its distance to the one before.
    private var last: (decode: Int64, presentation: Int64, distance: Int64)?

    /// The clock of an MP4 track of `timescale`: fed by ``add(_:)``.
    public init(timescale: UInt32) {
        self.timescale = timescale
        pes = nil
    }

    /// The clock of a transport stream: `timestamps` gives the PES time stamps of the access unit
    /// starting at an elementary-stream offset (called once per access unit, in order).
    init(transportStream timestamps: @escaping (Int64) -> PESTimestamps?) {
        timescale = 90_000
        pes = timestamps
    }

    /// Notes an MP4 sample read (``MediaSource/forEachNALUnit(sampleStarts:_:)``).
    public func add(_ sample: MP4Sample) {
        slots[next] = (sample.offset, SampleTiming(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration), timescale: timescale))
        next = (next + 1) % slots.count
    }

    /// The times of the access unit whose first NAL unit is at `offset`.
    public func timing(at offset: Int64) -> SampleTiming? {
        guard let pes else {
            // The sample that holds the NAL unit: the one starting last at or before it.
            var best: (offset: Int64, timing: SampleTiming)?
            for slot in slots {
                if let slot, slot.offset <= offset, slot.offset > best?.offset ?? Int64.min { best = slot }
            }
            return best?.timing
        }
        let stamps = pes(offset)
        guard let decodeRaw = stamps?.effectiveDecoding, let presentationRaw = stamps?.presentation ?? stamps?.effectiveDecoding else {
            // No time stamps of its own: one frame period after the previous one.
            guard let last else { return nil }
            let decode = last.decode &+ last.distance
            let timing = SampleTiming(decode: decode, presentation: decode &+ (last.presentation &- last.decode), duration: last.distance, timescale: timescale)
            self.last = (decode, timing.presentation, last.distance)
            return timing
        }
        let reference = last?.decode ?? decodeRaw
        let decode = Self.unwrap(decodeRaw, near: reference)
        let presentation = Self.unwrap(presentationRaw, near: decode)
        let distance = last.map { decode &- $0.decode } ?? 0
        let duration = distance > 0 ? distance : (last?.distance ?? 0)
        last = (decode, presentation, duration)
        return SampleTiming(decode: decode, presentation: presentation, duration: duration, timescale: timescale)
    }

    /// The lookup a sink takes (``NALU/SampleTimingLookup``).
    public var lookup: SampleTimingLookup { { [self] offset in timing(at: offset) } }

    /// ``lookup`` with every decoding time `advance` ticks earlier (``MediaSource/decodeAdvance()``).
    public func lookup(decodingEarlierBy advance: Int64) -> SampleTimingLookup {
        guard advance > 0 else { return lookup }
        return { [self] offset in
            guard var timing = timing(at: offset) else { return nil }
            timing.decode &-= advance
            return timing
        }
    }

    /// `value` (33 bits, ISO/IEC 13818-1 2.4.3.7) plus the multiple of 2^33 that brings it
    /// nearest `reference`.
    static func unwrap(_ value: Int64, near reference: Int64) -> Int64 {
        let period: Int64 = 1 << 33
        let wrapped = value & (period - 1)
        let base = reference - (reference & (period - 1))
        var best = base + wrapped
        for candidate in [best - period, best + period] where abs(candidate - reference) < abs(best - reference) {
            best = candidate
        }
        return best
    }
}

extension MediaSource {
    /// The clock of the input's video times: an MP4/MOV track's or a transport stream's; `nil`
    /// for an elementary stream (no times in it).
    public func sampleClock() -> SampleClock? {
        if let mp4 { return SampleClock(timescale: mp4.track.timescale) }
        if container.isTransportStream { return SampleClock(transportStream: { [weak self] offset in self?.pesTimestamps(at: offset) }) }
        return nil
    }

    /// The MP4 track's edit list (ISO/IEC 14496-12 8.6.6) with its non-empty edits' `media_time`
    /// counted from `decodeOrigin` (the first sample's decoding time, which an output's sample
    /// table starts at 0), `segment_duration` in `movieTimescale` (rounded up). Empty when the
    /// track has none (its media timeline is then its presentation). `nil` for other inputs.
    public func videoEditList(decodeOrigin: Int64 = 0, movieTimescale: UInt32) -> [MP4EditListEntry]? {
        guard let track = mp4?.track else { return nil }
        return track.editList.map { edit in
            var edit = edit
            if edit.mediaTime >= 0 { edit.mediaTime &-= decodeOrigin }
            if movieTimescale != track.movieTimescale {
                edit.segmentDuration = Self.convert(edit.segmentDuration, from: track.movieTimescale, to: movieTimescale) ?? edit.segmentDuration
            }
            return edit
        }
    }

    /// `value · to / from`, rounded up, or `nil` past 64 bits or when `from` is 0.
    static func convert(_ value: UInt64, from: UInt32, to: UInt32) -> UInt64? {
        guard from > 0 else { return nil }
        let product = value.multipliedFullWidth(by: UInt64(to))
        guard product.high < UInt64(from) else { return nil }
        let (quotient, remainder) = UInt64(from).dividingFullWidth(product)
        return remainder == 0 ? quotient : quotient == .max ? nil : quotient + 1
    }

    /// How far an MP4 track's signed composition offsets (`ctts` version 1) present a picture
    /// before it decodes, at most (0 when none does): a transport stream (PTS ≥ DTS) decodes that
    /// much earlier. 0 for other inputs.
    public func decodeAdvance() throws(NALUError) -> Int64 {
        return try NALUError.typed(field: "decode time") {
            var advance: Int64 = 0
            try mp4?.forEachSample { advance = max(advance, $0.dts &- $0.pts) }
            return advance
        }
    }

    /// The first video sample's decoding time (MP4: a fragment's `tfdt` may start above 0).
    public func firstDecodeTime() throws(NALUError) -> Int64 {
        return try NALUError.typed(field: "decode time") {
            guard let mp4 else { return 0 }
            var iterator = mp4.samples()
            return try iterator.next()?.dts ?? 0
        }
    }
}
