public import NALU
public import NALUMP4

/// The times of a join of MP4/MOV inputs that share a video timescale: each input keeps its
/// samples' times and its edit list (ISO/IEC 14496-12 8.6.6), laid end to end.
///
/// Input `i`'s decoding times move by `shift[i]` so that its first sample decodes where the
/// one before ends (the sum of the earlier inputs' sample durations), or later when the pictures
/// of the one before present past that (B pictures: no two pictures of the output's media
/// timeline share a presentation time, which demuxers that apply edit lists by time need); its edits (empty ones too)
/// follow the earlier inputs' in the output's edit list, their `media_time` moved by the same
/// shift, so exactly the pictures each input shows are shown, for as long as it shows them (a
/// piece cut by `nalu trim` or `ffmpeg -ss -c copy` hides its lead-in pictures, joined too). An
/// input without an edit list presents its whole media. Adjacent edits that continue each other
/// are merged.
public final class ConcatTiming {
    /// The shared media timescale.
    public let timescale: UInt32
    /// The output's edit list, durations in ``movieTimescale``.
    public let editList: [MP4EditListEntry]
    public let movieTimescale: UInt32
    private let clocks: [SampleClock]
    private let shifts: [Int64]
    private var current = 0
    /// Whether the next picture completed is still the previous input's (its last).
    private var previousPending = false

    /// `nil` unless every input is an MP4/MOV whose video track has `timescale` ticks a second;
    /// `movieTimescale` (default: the first input's) is the output movie's.
    public init?(_ sources: [MediaSource], movieTimescale: UInt32? = nil) throws {
        guard let first = sources.first?.mp4?.track else { return nil }
        let scale = first.timescale
        let movieScale = movieTimescale ?? first.movieTimescale
        guard scale > 0, movieScale > 0, sources.allSatisfy({ $0.mp4?.track.timescale == scale }) else { return nil }
        var shifts: [Int64] = []
        var edits: [MP4EditListEntry] = []
        var start: Int64 = 0
        /// Where the previous input's last picture stops presenting, in the output's media time.
        var presentedUntil = Int64.min
        for source in sources {
            guard let reader = source.mp4 else { return nil }
            var firstDecode: Int64?
            var total: Int64 = 0
            var earliest = Int64.max
            var latestEnd = Int64.min
            try reader.forEachSample { sample in
                if firstDecode == nil { firstDecode = sample.dts }
                total &+= Int64(sample.duration)
                earliest = min(earliest, sample.pts)
                latestEnd = max(latestEnd, sample.pts &+ Int64(sample.duration))
            }
            guard let firstDecode, total > 0, total <= Int64.max / 4 else { return nil }
            // The first picture must present after the previous input's last.
            if presentedUntil > Int64.min {
                start = max(start, presentedUntil &- (earliest &- firstDecode))
            }
            let shift = start &- firstDecode
            presentedUntil = latestEnd &+ shift
            shifts.append(shift)
            let own = source.videoEditList(decodeOrigin: 0, movieTimescale: movieScale) ?? []
            let pieceEdits = own.isEmpty
                ? [MP4EditListEntry(segmentDuration: MediaSource.convert(UInt64(total), from: scale, to: movieScale) ?? 0, mediaTime: firstDecode)]
                : own
            for var edit in pieceEdits {
                if edit.mediaTime >= 0 { edit.mediaTime &+= shift }
                // Merge with the previous edit when this one continues it.
                if let last = edits.last, last.mediaTime >= 0, edit.mediaTime >= 0, last.mediaRateInteger == edit.mediaRateInteger,
                   let lastMedia = MediaSource.convert(last.segmentDuration, from: movieScale, to: scale),
                   last.mediaTime &+ Int64(clamping: lastMedia) == edit.mediaTime,
                   MediaSource.convert(lastMedia, from: scale, to: movieScale) == last.segmentDuration {
                    edits[edits.count - 1].segmentDuration &+= edit.segmentDuration
                    continue
                }
                if edit.mediaTime == -1, let last = edits.last, last.mediaTime == -1 {
                    edits[edits.count - 1].segmentDuration &+= edit.segmentDuration
                    continue
                }
                edits.append(edit)
            }
            start &+= total
        }
        timescale = scale
        self.movieTimescale = movieScale
        editList = edits
        self.shifts = shifts
        clocks = sources.map { _ in SampleClock(timescale: scale) }
    }

    /// Input `position` starts: its samples feed its own clock.
    func begin(_ position: Int) {
        previousPending = position > 0
        current = position
    }

    /// Notes a sample of the current input.
    func add(_ sample: MP4Sample) { clocks[current].add(sample) }

    /// The lookup for the muxer: the first picture completed after an input starts is the last
    /// of the input before (it completes when the next one's first NAL unit arrives).
    public var lookup: SampleTimingLookup {
        { [self] offset in
            let position = previousPending ? current - 1 : current
            previousPending = false
            guard position >= 0, var timing = clocks[position].timing(at: offset) else { return nil }
            timing.decode &+= shifts[position]
            timing.presentation &+= shifts[position]
            return timing
        }
    }
}
