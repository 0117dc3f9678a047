public import NALU
public import NALUMP4

/// The times of a join of MP4/MOV inputs: each input keeps its samples' times and its edit list
/// (ISO/IEC 14496-12 8.6.6), laid end to end. Inputs of different video timescales (other frame
/// rates, other muxers) are joined on the least common multiple of their timescales, in which
/// every input's ticks are a whole number of ticks: no time is rounded.
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
///
/// Decoding times of an input may move a little earlier than its presentation times
/// (``decodeDelays``, 0 or negative: composition offsets only grow), so that the first picture
/// of every input's edit in decoding order sits equally far before the edit's `media_time`: a demuxer that rebuilds presentation times from decoding times and composition offsets
/// edit by edit (FFmpeg's `mov_fix_index`) then shows every input's pictures at their times.
public final class ConcatTiming {
    /// The output's media timescale: a multiple of every input's.
    public let timescale: UInt32
    /// The output's edit list, durations in ``movieTimescale``.
    public let editList: [MP4EditListEntry]
    public let movieTimescale: UInt32
    private let clocks: [SampleClock]
    /// Output ticks per tick of input `i`'s timescale.
    private let factors: [Int64]
    private let shifts: [Int64]
    /// Added to input `i`'s decoding times only (composition offsets shrink by as much).
    public let decodeDelays: [Int64]
    private var current = 0
    /// Whether the next picture completed is still the previous input's (its last).
    private var previousPending = false

    /// `nil` unless every input is an MP4/MOV with a video track (and the least common multiple
    /// of their timescales fits 31 bits); `movieTimescale` (default: the first input's) is the
    /// output movie's.
    public convenience init?(_ sources: [MediaSource], movieTimescale: UInt32? = nil) throws {
        try self.init(count: sources.count, open: { sources[$0] }, movieTimescale: movieTimescale)
    }

    /// As ``init(_:movieTimescale:)`` for `count` inputs that `open` gives in turn (only their
    /// sample tables and edit lists are read; each may be closed again after).
    public init?(count: Int, open: (Int) throws -> MediaSource, movieTimescale: UInt32? = nil) throws {
        guard count > 0, let first = try open(0).mp4?.track else { return nil }
        let movieScale = movieTimescale ?? first.movieTimescale
        guard movieScale > 0 else { return nil }
        // What each input's samples say, in its own timescale.
        var pieces: [(firstDecode: Int64, total: Int64, earliest: Int64, latestEnd: Int64, lead: Int64, edits: [MP4EditListEntry])] = []
        var inputScales: [UInt32] = []
        for position in 0..<count {
            let source = try open(position)
            guard let reader = source.mp4, reader.track.timescale > 0 else { return nil }
            let scale = reader.track.timescale
            inputScales.append(scale)
            var firstDecode: Int64?
            var total: Int64 = 0
            var earliest = Int64.max
            var latestEnd = Int64.min
            let editStart = reader.track.editList.first { $0.mediaTime >= 0 }?.mediaTime
            var firstShownDecode: Int64?
            try reader.forEachSample { sample in
                if firstDecode == nil { firstDecode = sample.dts }
                total &+= Int64(sample.duration)
                earliest = min(earliest, sample.pts)
                latestEnd = max(latestEnd, sample.pts &+ Int64(sample.duration))
                if firstShownDecode == nil, sample.pts >= editStart ?? firstDecode ?? 0 { firstShownDecode = sample.dts }
            }
            guard let firstDecode, total > 0, total <= Int64.max / 4 else { return nil }
            // How far the first picture of the edit in decoding order decodes before the edit starts.
            let lead = (editStart ?? firstDecode) &- (firstShownDecode ?? firstDecode)
            guard abs(lead) <= total else { return nil }
            let own = source.videoEditList(decodeOrigin: 0, movieTimescale: movieScale) ?? []
            let edits = own.isEmpty
                ? [MP4EditListEntry(segmentDuration: MediaSource.convert(UInt64(total), from: scale, to: movieScale) ?? 0, mediaTime: firstDecode)]
                : own
            pieces.append((firstDecode, total, earliest, latestEnd, lead, edits))
        }
        // The output timescale, and each input's ticks in it.
        var common: Int64 = 1
        for inputScale in inputScales {
            let value = Int64(inputScale)
            var (a, b) = (common, value)
            while b != 0 { (a, b) = (b, a % b) }
            common = common / a * value
            guard common <= Int64(Int32.max) else { return nil }
        }
        let scale = UInt32(common)
        let factors = inputScales.map { common / Int64($0) }
        for index in pieces.indices where factors[index] != 1 {
            let factor = factors[index]
            var piece = pieces[index]
            let limit = UInt64(Int64.max / 4 / factor)
            guard [piece.total, piece.firstDecode, piece.earliest, piece.latestEnd].allSatisfy({ $0.magnitude <= limit }) else { return nil }
            piece.firstDecode *= factor
            piece.total *= factor
            piece.earliest *= factor
            piece.latestEnd *= factor
            piece.lead *= factor
            for edit in piece.edits.indices where piece.edits[edit].mediaTime >= 0 {
                guard piece.edits[edit].mediaTime.magnitude <= limit else { return nil }
                piece.edits[edit].mediaTime *= factor
            }
            pieces[index] = piece
        }
        // Every input decodes as far before its edit as the one that decodes furthest before:
        // decoding times only move earlier (composition offsets grow, never turn negative).
        let lead = pieces.map(\.lead).max() ?? 0
        var shifts: [Int64] = []
        var delays: [Int64] = []
        var edits: [MP4EditListEntry] = []
        var start: Int64 = 0
        /// Where the previous input's last picture stops presenting, and its last sample stops
        /// decoding, in the output's media time.
        var presentedUntil = Int64.min
        var decodedUntil: Int64 = 0
        for piece in pieces {
            let delay = piece.lead &- lead
            // The first picture presents after the previous input's last, the first sample
            // decodes after its last (the first input's at 0).
            start = max(start, decodedUntil &- delay)
            if presentedUntil > Int64.min {
                start = max(start, presentedUntil &- (piece.earliest &- piece.firstDecode))
            }
            let shift = start &- piece.firstDecode
            presentedUntil = piece.latestEnd &+ shift
            decodedUntil = start &+ delay &+ piece.total
            shifts.append(shift)
            delays.append(delay)
            for var edit in piece.edits {
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
            start &+= piece.total
        }
        timescale = scale
        self.movieTimescale = movieScale
        editList = edits
        self.shifts = shifts
        decodeDelays = delays
        self.factors = factors
        clocks = inputScales.map { SampleClock(timescale: $0) }
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
            let factor = factors[position]
            timing.decode = timing.decode &* factor &+ shifts[position] &+ decodeDelays[position]
            timing.presentation = timing.presentation &* factor &+ shifts[position]
            timing.duration &*= factor
            timing.timescale = timescale
            return timing
        }
    }
}
