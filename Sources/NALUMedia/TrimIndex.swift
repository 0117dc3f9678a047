public import NALU
import NALUMP4

/// The timing index of a stream: one compact entry per access unit, in decoding order, with its
/// presentation time — what a cut is planned on (``TrimPlan``). The first of the two passes
/// ``Trimmer`` makes over its input.
///
/// Presentation times come from the container where it has them (an MP4 track's decoding time
/// plus composition offset, less the media time its presentation starts at
/// (``MediaSource/videoMediaOrigin()``), in the track's timescale, counted from the first
/// picture presented; ``timelineStart`` places that picture on the presentation timeline
/// ffmpeg's command line counts times on, ``PresentationTimeline``),
/// else from the picture order counts (ITU-T H.264 8.2.1, H.265 8.3.1): within each coded video
/// sequence pictures present in picture order count order, one frame period each, the sequences
/// following each other (ticks of `1 / frameRate` seconds).
///
/// Memory is 40 bytes per access unit (an hour at 60 fps: 9 MB), and 24 more while indexing an
/// elementary stream (its picture order counts).
public struct TrimIndex: Sendable {
    /// One access unit.
    public struct Entry: Hashable, Sendable {
        /// Presentation time in ``TrimIndex/timeBase`` ticks; `nil` for an access unit without a
        /// picture (an end of sequence NAL unit alone).
        public var presentationTime: Int64?
        /// Why decoding can start here, if it can.
        public var keyframe: KeyframeClass?
        /// The picture's coding type.
        public var pictureType: PictureType?
        /// The source's decoding time (``TrimIndex/sourceTimescale`` ticks), for an input with
        /// times (MP4/MOV, MPEG-TS); the decoding position for an elementary stream.
        public var decodeTime: Int64 = 0
    }

    /// Whether the times are the container's own (MP4/MOV, MPEG-TS: ``SampleClock``), so an
    /// output keeps them; `false` for an elementary stream timed at ``frameRate``.
    public let hasSourceTimes: Bool
    /// Added to a ``Entry/presentationTime`` to give the source's presentation time (before
    /// any edit list), in ticks of ``timeBase``.
    public internal(set) var presentationOrigin: Int64 = 0
    /// Source-timed: where the last picture stops presenting (its presentation time plus its
    /// duration), in ticks of ``timeBase`` like ``Entry/presentationTime``.
    public internal(set) var presentationEnd: Int64 = 0
    /// Where the first picture presents on the track's presentation timeline (after its edit
    /// list's `media_time`; an input without an edit list whose first picture has a
    /// composition offset, as fragmented files often do), in ticks of ``timeBase``: times are
    /// counted from that picture, other tracks from the timeline's start.
    public internal(set) var firstPictureTime: Int64 = 0
    /// Where the first picture (tick 0) presents on the input's presentation timeline
    /// (``PresentationTimeline``: edit lists applied, zero at the earliest track's start), in
    /// ticks of ``timeBase``: a time the user gives is that much later than the same tick.
    /// 0 for an elementary stream.
    public internal(set) var timelineStart: Int64 = 0

    public let codec: Codec
    /// Access units in decoding order.
    public internal(set) var entries: [Entry]
    /// Seconds per tick of ``Entry/presentationTime``: `1/timescale` (MP4) or `1/frameRate`.
    public let timeBase: Rational
    /// The frame rate the output is timed at: the MP4 track's (timescale over its first sample's
    /// duration), the one given, or the SPS VUI's.
    public let frameRate: Rational
    /// Ticks of ``timeBase`` per frame (1 for elementary streams).
    public let frameDuration: Int64
    /// The parameter sets in force at the end of the index.
    public let parameterSets: ParameterSetStore

    /// The most access units an index takes (about 2.3 days at 120 fps): a bound on memory.
    public static let maxAccessUnits = 24_000_000

    /// Reads every access unit of `source` once.
    /// - Parameter frameRate: frames per second for streams without container timing (`--fps`);
    ///   `nil` takes the MP4 track's or the SPS VUI's.
    /// - Throws: ``NALUError``: what reading the stream throws; `.missing` `frame rate` when no
    ///   rate is known; `.tooLarge` past ``maxAccessUnits``.
    public init(source: MediaSource, frameRate: Rational? = nil) throws(NALUError) {
        codec = source.codec
        var splitter = try source.splitter()
        var counter = PictureOrderCounter()
        var entries: [Entry] = []
        // Per access unit, for streams without container timing: the picture order count.
        var counts: [(value: Int, startsSequence: Bool)?] = []
        var pendingCount: (value: Int, startsSequence: Bool)?
        let clock = source.sampleClock()
        let isMP4 = clock != nil
        let editShift = try source.videoMediaOrigin()
        let codec = source.codec
        var firstVCLOffset: Int64?
        var lastEnd: Int64?

        func complete(_ summary: AccessUnitSummary) throws(NALUError) {
            guard entries.count < Self.maxAccessUnits else {
                throw NALUError(.tooLarge, field: "access units", detail: "more than \(Self.maxAccessUnits) to index")
            }
            var entry = Entry(presentationTime: nil, keyframe: summary.keyframe, pictureType: summary.pictureType)
            if summary.vclNALUnitCount > 0 {
                if let clock {
                    guard let sample = clock.timing(at: firstVCLOffset ?? summary.offset) else {
                        throw NALUError(.missing, field: "sample time", byteOffset: summary.offset,
                                        detail: "access unit \(summary.index) has no time in the source")
                    }
                    entry.decodeTime = sample.decode
                    let (time, overflow) = sample.presentation.subtractingReportingOverflow(editShift)
                    let (end, endOverflow) = time.addingReportingOverflow(max(0, sample.duration))
                    if !endOverflow { lastEnd = max(lastEnd ?? end, end) }
                    guard !overflow else {
                        throw NALUError(.doesNotFit, field: "sample time", byteOffset: summary.offset,
                                        detail: "composition time \(sample.presentation) less edit media_time \(editShift)")
                    }
                    entry.presentationTime = time
                } else {
                    entry.presentationTime = 0  // set from the counts below
                }
            }
            entries.append(entry)
            counts.append(summary.vclNALUnitCount > 0 ? pendingCount ?? (entries.count - 1, false) : nil)
            pendingCount = nil
            firstVCLOffset = nil
        }

        try NALUError.typed(field: "input") { try source.forEachNALUnit(sampleStarts: { clock?.add($0) }) { unit in
            let step = try splitter.push(unit)
            if let completed = step.completed { try complete(completed) }
            if step.isFirstVCL { firstVCLOffset = unit.offset }
            if step.isFirstVCL && !isMP4 {
                do throws(NALUError) {
                    if codec == .h264 {
                        if let (count, _) = try splitter.avcPictureOrderCount(&counter) {
                            pendingCount = (count.value, count.startsCodedVideoSequence)
                        }
                    } else if let slice = step.hevcSliceSegmentHeader {
                        let sets = splitter.parameterSets
                        guard let pps = sets.hevcPPS[slice.slicePicParameterSetId]?.parsed,
                              let sps = sets.hevcSPS[pps.ppsSeqParameterSetId]?.parsed else {
                            throw NALUError(.missing, field: "slice_pic_parameter_set_id")
                        }
                        let count = try counter.pictureOrderCount(slice, sps: sps)
                        pendingCount = (count.value, count.startsCodedVideoSequence)
                    }
                } catch {
                    throw error.offset(by: unit.offset)
                }
            }
            if codec.isEndOfSequence(firstByte: unit.firstByte) { counter.endOfSequence() }
        } }
        if let last = splitter.finish() { try complete(last) }
        parameterSets = splitter.parameterSets

        hasSourceTimes = clock != nil
        if let clock {
            let timescale = clock.timescale
            var chosenRate = frameRate
            if chosenRate == nil { chosenRate = try source.containerFrameRate() }
            guard let rate = chosenRate ?? splitter.parameterSets.streamDescription?.frameRate?.reduced else {
                throw NALUError(.missing, field: "frame rate", detail: "the track has no sample duration; give a frame rate (--fps)")
            }
            self.frameRate = rate
            let times = try Self.sourceTimes(&entries, timescale: timescale, rate: rate, editShift: editShift, lastEnd: lastEnd)
            (timeBase, presentationOrigin, firstPictureTime, presentationEnd, frameDuration) = times
            timelineStart = try PresentationTimeline(source: source).videoStart(firstPicture: firstPictureTime)
        } else {
            guard let rate = (frameRate ?? parameterSets.streamDescription?.frameRate)?.reduced,
                  rate.numerator > 0, rate.denominator > 0 else {
                throw NALUError(.missing, field: "frame rate", detail: "the SPS has no VUI timing; give the frame rate (--fps)")
            }
            self.frameRate = rate
            timeBase = Rational(rate.denominator, rate.numerator)
            frameDuration = 1
            Self.assignPresentationOrder(&entries, counts: counts)
        }
        self.entries = entries
    }

    /// The index's times on the source's own clock (`timescale` ticks): presentation times
    /// counted from the first picture, the origin and end in the source's terms, and the ticks a
    /// frame lasts at `rate` (its first sample's duration, or from --fps).
    static func sourceTimes(_ entries: inout [Entry], timescale: UInt32, rate: Rational, editShift: Int64, lastEnd: Int64?) throws(NALUError)
        -> (timeBase: Rational, presentationOrigin: Int64, firstPictureTime: Int64, presentationEnd: Int64, frameDuration: Int64) {
        let origin = countFromFirstPicture(&entries)
        let (ticks, overflow) = Int64(timescale).multipliedReportingOverflow(by: rate.denominator)
        guard !overflow, rate.numerator > 0, rate.denominator > 0 else {
            throw NALUError(.invalidValue, field: "frame rate", detail: "\(rate) at timescale \(timescale)")
        }
        return (Rational(1, Int64(timescale)), editShift &+ origin, origin, (lastEnd ?? 0) &- origin, max(1, ticks / rate.numerator))
    }

    /// Makes the earliest presentation time at or after 0 the origin (pictures before the edit
    /// list's `media_time` stay negative: they are not presented).
    /// - Returns: what was subtracted.
    static func countFromFirstPicture(_ entries: inout [Entry]) -> Int64 {
        var origin: Int64?
        for entry in entries {
            guard let time = entry.presentationTime, time >= 0 else { continue }
            origin = min(origin ?? time, time)
        }
        guard let origin, origin > 0 else { return 0 }
        for index in entries.indices {
            if let time = entries[index].presentationTime { entries[index].presentationTime = time - origin }
        }
        return origin
    }

    /// Presentation index of each picture: within a coded video sequence, by picture order count
    /// (then decoding order), the sequences following each other.
    private static func assignPresentationOrder(_ entries: inout [Entry], counts: [(value: Int, startsSequence: Bool)?]) {
        var next: Int64 = 0
        var sequence: [(count: Int, index: Int)] = []
        func flush() {
            sequence.sort { $0.count != $1.count ? $0.count < $1.count : $0.index < $1.index }
            for picture in sequence {
                entries[picture.index].presentationTime = next
                next += 1
            }
            sequence.removeAll(keepingCapacity: true)
        }
        for (index, count) in counts.enumerated() {
            guard let count else { continue }
            if count.startsSequence { flush() }
            sequence.append((count.value, index))
        }
        flush()
    }

    /// The number of pictures.
    public var pictureCount: Int { entries.reduce(0) { $0 + ($1.presentationTime == nil ? 0 : 1) } }

    /// The presentation end of the last picture, in ticks (the stream's duration when it starts
    /// at 0).
    public var endTime: Int64 {
        if hasSourceTimes { return presentationEnd }
        let last = entries.reduce(Int64?.none) { latest, entry in
            guard let time = entry.presentationTime else { return latest }
            return max(latest ?? time, time)
        }
        guard let last else { return 0 }
        let (end, overflow) = last.addingReportingOverflow(frameDuration)
        return overflow ? Int64.max : end
    }
}
