/// The times of one access unit (or audio frame) on its track's media timeline, in ticks of
/// `1 / timescale` seconds, exactly as its source gave them: an MP4 track's `stts`/`ctts`
/// (ISO/IEC 14496-12 8.6.1.2, 8.6.1.3) or fragment `tfdt`/`trun` (8.8.8, 8.8.12), a transport
/// stream's PES DTS/PTS (ISO/IEC 13818-1 2.4.3.7, 90 kHz, unwrapped), or, for an elementary
/// stream, times synthesised from a frame rate and the picture order.
///
/// `presentation − decode` is the composition offset; it may be negative (`ctts`/`trun`
/// version 1). Times are before any edit list: a track's edit list (8.6.6) maps them to the
/// movie's presentation timeline.
public struct SampleTiming: Hashable, Sendable {
    /// Decoding time (DTS).
    public var decode: Int64
    /// Presentation (composition) time (PTS).
    public var presentation: Int64
    /// How long the sample lasts in decoding order (the distance to the next sample's decode
    /// time; the last one's as its source said, or the one before it).
    public var duration: Int64
    /// Ticks per second.
    public var timescale: UInt32

    public init(decode: Int64, presentation: Int64, duration: Int64, timescale: UInt32) {
        self.decode = decode
        self.presentation = presentation
        self.duration = duration
        self.timescale = timescale
    }

    /// `presentation − decode`, or `nil` when it does not fit 64 bits.
    public var compositionOffset: Int64? {
        let (offset, overflow) = presentation.subtractingReportingOverflow(decode)
        return overflow ? nil : offset
    }
}

/// Where a sink takes each access unit's ``SampleTiming`` from: called when an access unit is
/// complete with the offset of its first VCL NAL unit (the input's offset, as the source's NAL
/// units carry it: parameter sets from outside the stream may come first, at other offsets),
/// it returns that access unit's times, or `nil` when the source has none for
/// it (the sink then refuses the stream: a source that has times gives them for every picture).
public typealias SampleTimingLookup = (_ firstVCLOffset: Int64) -> SampleTiming?
