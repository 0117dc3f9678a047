public import NALU
public import NALUMP4

/// What a cut keeps, decided on a ``TrimIndex`` before a byte is copied: the access units from
/// the keyframe at or before the start to the one that completes every picture before the end,
/// in decoding order, and the pictures among them that present in `[start, end)`.
///
/// - **Start**: the last keyframe in decoding order whose presentation time is at or before the
///   start: an IDR, CRA, BLA or recovery point (H.264 D.2.8, H.265 D.3.8) with a count of 0 —
///   a recovery point with a positive count (intra refresh) only when no other is there, its
///   first pictures then showing the refresh.
/// - **Leading pictures** of that keyframe (after it in decoding order, before it in
///   presentation: H.265 RASL/RADL, an H.264 open GOP's leading B pictures) are dropped: they
///   present before the start anyway, and the RASL ones cannot decode without what precedes
///   the keyframe (H.265 8.1.3: a CRA that starts the bitstream has `NoRaslOutputFlag` 1).
/// - **End**: the last access unit in decoding order that holds a picture presenting before the
///   end; the pictures decoded up to it that present later (a P picture the B pictures before it
///   need) are kept too.
///
/// The presented range is whole frames: from the first picture at or after the start to the
/// end of the last picture before the end (``presentedStart``, ``presentedDuration``), which
/// an MP4 edit list shows exactly (``mp4EditList(timescale:frameDuration:)``) and an audio track
/// is cut to (``presentedRange(timescale:)``).
public struct TrimPlan: Hashable, Sendable {
    /// The requested start and end (`nil`: the end of the stream).
    public var start: MediaTime
    public var end: MediaTime?
    /// Seconds per presentation tick of the index (``TrimIndex/timeBase``).
    public var timeBase: Rational
    /// The first tick at or after ``start`` and after ``end``: pictures in `[startTick, endTick)` show.
    public var startTick: Int64
    public var endTick: Int64
    /// Decoding index of the first access unit kept (the keyframe) and of the last.
    public var firstAccessUnit: Int
    public var lastAccessUnit: Int
    /// Why decoding can start at ``firstAccessUnit``.
    public var keyframe: KeyframeClass
    /// Decoding indices of the keyframe's leading pictures, dropped.
    public var droppedAccessUnits: [Int]
    /// Pictures kept that present before the start (from the keyframe on): the lead-in.
    public var leadInPictures: Int
    /// Pictures kept that present in `[start, end)`.
    public var presentedPictures: Int
    /// Pictures kept that present at or after the end.
    public var trailingPictures: Int
    /// Presentation time of the first picture shown (ticks), and the presented duration in ticks
    /// (``presentedPictures`` frames).
    public var presentedStart: Int64
    public var presentedDuration: Int64
    /// The frame rate the output is timed at.
    public var frameRate: Rational
    /// The largest (decoding position − presentation position) among the pictures kept: how
    /// far the output's decoding runs ahead of its presentation, in frames.
    public var decodeLead: Int
    /// Whether the input has its own times (``TrimIndex/hasSourceTimes``): the output keeps
    /// them, and the presented range is exactly `[start, end)` (clipped to the stream), the
    /// first picture shown at its own distance from the start (``sourceEditList(movieTimescale:)``).
    public var hasSourceTimes = false
    /// Source-timed: the source's presentation time of the first picture shown and the
    /// source's decoding time of the first access unit kept (the output's decoding time 0).
    public var firstShownSourceTime: Int64 = 0
    public var firstDecodeSourceTime: Int64 = 0
    /// Source-timed: the first picture shown, in ticks of ``timeBase`` like ``presentedStart``.
    public var firstShownTick: Int64 = 0
    /// ``TrimIndex/firstPictureTime``: added to ``presentedStart`` on the timeline other
    /// tracks share (``presentedRange(timescale:)``).
    public var firstPictureTime: Int64 = 0
    /// ``TrimIndex/timelineStart``: where tick 0 presents on the input's presentation timeline
    /// (``PresentationTimeline``), which ``start`` and ``end`` are on.
    public var timelineStart: Int64 = 0
    /// Source-timed: the earliest presentation time among the pictures kept (the first
    /// lead-in picture's, or the first shown), in ticks of ``timeBase``.
    public var firstKeptTick: Int64 = 0

    /// Plans the cut of `[start, end)` on `index`; `end` `nil` runs to the end of the stream.
    /// - Throws: ``NALUError`` `.invalidValue` (field `--end`) when the end is not after the
    ///   start, `.invalidValue` (`--start`) when no picture presents in the range, `.missing`
    ///   `keyframe` when none is at or before the start.
    /// `ticks` of `timeBase` as seconds with three decimals, the sign in front (`-3.500`).
    static func seconds(_ ticks: Int64, _ timeBase: Rational) -> String {
        let milliseconds = Int64((Double(ticks) * timeBase.doubleValue * 1000).rounded())
        let magnitude = milliseconds.magnitude
        let fraction = String(String(magnitude % 1000 + 1000).dropFirst())
        return (milliseconds < 0 ? "-" : "") + "\(magnitude / 1000).\(fraction)"
    }

    public init(index: TrimIndex, start: MediaTime, end: MediaTime?) throws(NALUError) {
        if let end, !(start < end) {
            throw NALUError(.invalidValue, field: "--end", detail: "\(end) s is not after --start \(start) s")
        }
        // The times given are on the presentation timeline (``PresentationTimeline``); the
        // index counts from its first picture, which presents `timelineStart` into it.
        guard let startTick = start.ticks(of: index.timeBase).flatMap({ CheckedNumber.sum($0, 0 &- index.timelineStart) }),
              let endTick = end.map({ $0.ticks(of: index.timeBase).flatMap { CheckedNumber.sum($0, 0 &- index.timelineStart) } }) ?? index.endTime else {
            throw NALUError(.doesNotFit, field: "--end", detail: "\(end?.description ?? "the end") s in ticks of \(index.timeBase) s")
        }
        let entries = index.entries
        // The pictures that show.
        var lastInRange: Int?
        var firstShown: Int64?
        for (position, entry) in entries.enumerated() {
            guard let time = entry.presentationTime, time >= startTick, time < endTick else { continue }
            lastInRange = position
            firstShown = min(firstShown ?? time, time)
        }
        guard let lastInRange, let firstShown else {
            // The span the pictures present in: from the first presentation time (negative
            // when an MP4's timestamps start below zero) to the end, never a negative length.
            let first = entries.compactMap(\.presentationTime).min() ?? 0
            let shift = index.timelineStart
            let span = "from \(Self.seconds(first &+ shift, index.timeBase)) s to \(Self.seconds(max(first, index.endTime) &+ shift, index.timeBase)) s"
            throw NALUError(.invalidValue, field: "--start", detail: "no picture presents in [\(start), \(end?.description ?? "end")) s; the stream presents \(span)")
        }
        // The keyframe: the last before the range (in decoding order) presenting at or before the start.
        var clean: Int?
        var any: Int?
        for (position, entry) in entries.enumerated() {
            // A start before the first picture (another track starts first) takes the first keyframe.
            guard position <= lastInRange, let keyframe = entry.keyframe, let time = entry.presentationTime, time <= max(startTick, 0) else { continue }
            any = position
            if case .recoveryPoint(let count) = keyframe, count > 0 { continue }
            clean = position
        }
        guard let first = clean ?? any, let keyframe = entries[first].keyframe, let keyTime = entries[first].presentationTime else {
            throw NALUError(.missing, field: "keyframe", detail: "no keyframe at or before --start \(start) s")
        }
        // Leading pictures: after the keyframe in decoding order, before the next keyframe,
        // presenting before it.
        var dropped: [Int] = []
        var position = first + 1
        while position < entries.count, entries[position].keyframe == nil {
            if let time = entries[position].presentationTime, time < keyTime { dropped.append(position) }
            position += 1
        }
        // Keep every access unit up to the last that shows; count and order what is kept.
        var kept: [(time: Int64, decode: Int)] = []
        var leadIn = 0, shown = 0, trailing = 0
        var droppedIndex = 0
        for position in first...lastInRange {
            if droppedIndex < dropped.count, dropped[droppedIndex] == position {
                droppedIndex += 1
                continue
            }
            guard let time = entries[position].presentationTime else { continue }
            kept.append((time, kept.count))
            if time < startTick { leadIn += 1 } else if time < endTick { shown += 1 } else { trailing += 1 }
        }
        // Decoding positions against presentation positions among the kept pictures.
        let presentation = kept.sorted { $0.time != $1.time ? $0.time < $1.time : $0.decode < $1.decode }
        var lead = 0
        for (rank, picture) in presentation.enumerated() { lead = max(lead, picture.decode - rank) }

        self.start = start
        self.end = end
        timeBase = index.timeBase
        self.startTick = startTick
        self.endTick = endTick
        firstAccessUnit = first
        lastAccessUnit = lastInRange
        self.keyframe = keyframe
        droppedAccessUnits = dropped
        leadInPictures = leadIn
        presentedPictures = shown
        trailingPictures = trailing
        presentedStart = firstShown
        timelineStart = index.timelineStart
        let (duration, overflow) = Int64(shown).multipliedReportingOverflow(by: index.frameDuration)
        guard !overflow else { throw NALUError(.doesNotFit, field: "--end", detail: "the presented duration in ticks") }
        presentedDuration = duration
        frameRate = index.frameRate
        decodeLead = lead
        if index.hasSourceTimes {
            // Exactly [start, end): an empty edit until the first picture, whatever the frame rate.
            hasSourceTimes = true
            let end = min(endTick, index.endTime)
            presentedStart = min(startTick, firstShown)
            presentedDuration = max(0, end &- presentedStart)
            firstShownTick = firstShown
            firstKeptTick = kept.map(\.time).min() ?? firstShown
            firstPictureTime = index.firstPictureTime
            firstShownSourceTime = firstShown &+ index.presentationOrigin
            firstDecodeSourceTime = entries[first].decodeTime
        }
    }

    /// Source-timed (``hasSourceTimes``): the MP4 edit list (ISO/IEC 14496-12 8.6.6) of the
    /// cut with the source's sample times, decoding times counted from the first access unit
    /// kept: an empty edit from the start to the first picture shown (a variable frame rate
    /// need not have a picture at the start), then the media from that picture to the end, so
    /// the cut lasts exactly ``presentedDuration``. Durations in `movieTimescale`; `media_time`
    /// in ticks of ``timeBase`` (the source's timescale, `timescale`).
    public func sourceEditList(timescale: UInt32, movieTimescale: UInt32) -> [MP4EditListEntry] {
        func movie(_ ticks: Int64) -> UInt64 {
            let value = UInt64(max(0, ticks))
            guard timescale != movieTimescale, timescale > 0 else { return value }
            let product = value.multipliedFullWidth(by: UInt64(movieTimescale))
            guard product.high < UInt64(timescale) else { return value }
            let (quotient, remainder) = UInt64(timescale).dividingFullWidth(product)
            return remainder * 2 >= UInt64(timescale) ? quotient + 1 : quotient
        }
        // From the range's start to the first picture shown: nothing (an empty edit).
        let gap = movie(firstShownTick &- presentedStart)
        var edits: [MP4EditListEntry] = []
        if gap > 0 { edits.append(MP4EditListEntry(segmentDuration: gap, mediaTime: -1)) }
        let total = movie(presentedDuration)
        let shown = total > gap ? total - gap : 0
        edits.append(MP4EditListEntry(segmentDuration: shown, mediaTime: firstShownSourceTime &- firstDecodeSourceTime))
        return edits
    }


    /// Whether the access unit at decoding position `position` is written.
    public func keeps(_ position: Int) -> Bool {
        position >= firstAccessUnit && position <= lastAccessUnit && !droppedAccessUnits.contains(position)
    }

    /// The presented range `[start, end)` in ticks of `1/timescale` s (an audio track's), rounded
    /// to the nearest tick: what an audio edit list or cut covers.
    public func presentedRange(timescale: Int64) -> Range<Int64> {
        func convert(_ ticks: Int64) -> Int64 {
            // ticks · tn / td seconds · timescale, rounded; 128-bit wide.
            let (factor, overflow) = timeBase.numerator.multipliedReportingOverflow(by: timescale)
            let divisor = timeBase.denominator
            guard !overflow, divisor > 0 else { return 0 }
            let product = ticks.multipliedFullWidth(by: factor)
            guard product.high.magnitude < UInt64(divisor) / 2 else { return 0 }
            let (quotient, remainder) = divisor.dividingFullWidth(product)
            return remainder * 2 >= divisor ? quotient + 1 : quotient
        }
        let start = presentedStart &+ firstPictureTime
        let lower = convert(start)
        let (end, overflow) = start.addingReportingOverflow(presentedDuration)
        return lower..<max(lower, overflow ? lower : convert(end))
    }

    /// The plan with its presented range starting at the first picture shown instead of the
    /// requested start: what an output without an edit list presents (a smart cut's first
    /// picture is its time 0), so the audio cut to ``presentedRange(timescale:)`` starts with
    /// that picture. Unchanged when not source-timed (the range starts there already).
    public var startingAtFirstPicture: TrimPlan {
        guard hasSourceTimes, firstShownTick > presentedStart else { return self }
        var plan = self
        plan.presentedDuration = max(0, presentedDuration &- (firstShownTick &- presentedStart))
        plan.presentedStart = firstShownTick
        return plan
    }

    /// The presented range in seconds on the presentation timeline (as ``start`` and ``end``).
    public var presentedSeconds: (start: Double, end: Double) {
        let start = Double(presentedStart &+ timelineStart) * timeBase.doubleValue
        return (start, start + Double(presentedDuration) * timeBase.doubleValue)
    }

    /// The edit list that shows exactly the presented pictures of an MP4 written by
    /// ``MP4Muxer`` at `frameDuration` ticks of `1/timescale` s per frame (constant frame rate,
    /// unsigned `ctts` offsets): `media_time` is the first presented picture's time on the
    /// muxer's timeline (its presentation position among the pictures kept, plus the shift that
    /// makes every composition offset non-negative), `segment_duration` the presented frames.
    public func mp4EditList(timescale: UInt32, frameDuration: UInt32) -> [MP4EditListEntry] {
        let frame = Int64(frameDuration)
        let mediaTime = (Int64(decodeLead) + Int64(leadInPictures)) * frame
        return [MP4EditListEntry(segmentDuration: UInt64(presentedPictures) * UInt64(frameDuration), mediaTime: mediaTime)]
    }
}
