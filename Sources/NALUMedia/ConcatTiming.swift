public import NALU
public import NALUMP4

/// The times of a join of MP4/MOV and MPEG-TS inputs (ISO/IEC 14496-12 8.6.6 edit lists applied; a
/// transport stream's pictures at their own PTS/DTS, ISO/IEC 13818-1 2.4.3.7): every
/// input shows exactly the pictures it shows alone, for as long, one after the other. Inputs of
/// different video timescales (other frame rates, other muxers) are joined on the least common
/// multiple of their timescales, in which every input's ticks are a whole number of ticks: no
/// time is rounded.
///
/// **One edit where the times allow** (issue 41, item 8): demuxers that honour only one edit
/// (GStreamer 1.22's qtdemux) or rebuild times edit by edit (FFmpeg's `mov_fix_index`) lose or
/// repeat pictures at every further edit. So each input's samples move onto one continuous
/// media timeline (``ConcatPiece``): its first shown picture presents where the input before it
/// stops showing (later by its own start delay: its leading empty edits, or the composition
/// offset of the first picture of an input without an edit list, a gap the previous picture
/// fills, as the input shows nothing there alone), and one edit spans them all. The first
/// input's start delay is the output's leading empty edit, and its hidden lead-in pictures
/// present before the edit; the last input's hidden pictures after it.
///
/// Where an input shows pictures hidden in the middle of the join (a plain `nalu trim` or
/// `ffmpeg -ss -c copy` cut hides the pictures from the keyframe before its start, and keeps the
/// reference pictures after its end), or several edits of its own, the join breaks there: the
/// input's samples present after every picture of the one before, and its own edits follow
/// (adjacent ones that continue each other merged), so it still shows exactly its pictures.
///
/// Decoding times keep each input's own spacing and never go backwards: an input decodes after
/// the one before (its composition offsets shrink when its pictures must present sooner,
/// possibly below zero; the muxer's `ctts` shift moves the edit with them), and inputs whose
/// first shown picture decodes less far before its presentation decode earlier, so that the
/// first picture of every input's edit in decoding order sits equally far before the edit start:
/// FFmpeg's per-edit rebuild then shows every input of a broken join at its times.
public final class ConcatTiming {
    /// The output's media timescale: a multiple of every input's.
    public let timescale: UInt32
    /// The movie timescale ``editList`` is in.
    public let movieTimescale: UInt32
    /// The output's edits: durations and media times in ``timescale`` ticks, −1 for an empty edit.
    private let edits: [(duration: Int64, mediaTime: Int64)]
    /// How many inputs continue the edit of the input before them (not laid out edit by edit).
    public let continuousJoins: Int
    /// The inputs (by position, never the first) that do not continue the edit of the input
    /// before them: at each such join pictures are hidden (the input's lead-in, or the previous
    /// input's pictures after its end) or the input has edits of its own.
    public let brokenJoins: [Int]
    /// How far a sample decodes after it presents, at most (0 when none does): what a transport
    /// stream (DTS ≤ PTS) decodes everything earlier by.
    public let decodeAdvance: Int64
    private var clocks: [SampleClock]
    /// The transport stream inputs whose clocks read their PES time stamps: the current one and
    /// the one before (its last picture completes when the next input's first NAL unit comes).
    private var held: [MediaSource] = []
    /// Where each input's presentation starts in the output (``timescale`` ticks from the
    /// output's presentation start: the sum of the presented durations of the inputs before it).
    public let inputStarts: [Int64]
    /// Input `i`'s presentation time (its own ticks) at ``inputStarts``: a transport stream's
    /// earliest PTS (unwrapped as its clock counts), an MP4's media time at its movie's 0.
    public let inputOrigins: [Int64]
    /// Whether input `i` is a transport stream (its clock is the source's, ``attach(_:at:)``).
    private let isTransportStream: [Bool]
    /// Output ticks per tick of input `i`'s timescale.
    private let factors: [Int64]
    /// Added to input `i`'s presentation times, and to its decoding times.
    private let shifts: [Int64]
    private let decodeShifts: [Int64]
    private var current = 0
    /// Whether the next picture completed is still the previous input's (its last).
    private var previousPending = false

    /// `nil` unless every input is an MP4/MOV with a video track or an MPEG-TS whose every picture
    /// has a time (and the least common multiple of their timescales, 90 kHz for a transport
    /// stream, fits 31 bits); `movieTimescale` (default: the first input's) is the output movie's.
    /// - Throws: ``NALU/NALUError`` (typed): a malformed sample table or edit list of an input.
    public convenience init?(_ sources: [MediaSource], movieTimescale: UInt32? = nil) throws(NALUError) {
        try self.init(count: sources.count, open: { (position) throws(NALUError) in sources[position] }, movieTimescale: movieTimescale)
    }

    /// As ``init(_:movieTimescale:)`` for `count` inputs that `open` gives in turn (only their
    /// sample tables and edit lists are read; each may be closed again after). A transport
    /// stream input is read through once (``ConcatPiece/init(transportStream:codec:)``): `open`
    /// must give one that has not been read.
    /// - Throws: ``NALU/NALUError`` (typed): what `open` throws; a malformed sample table or edit list of an input.
    public init?(count: Int, open: (Int) throws(NALUError) -> MediaSource, movieTimescale: UInt32? = nil) throws(NALUError) {
        guard count > 0 else { return nil }
        var pieces: [ConcatPiece] = []
        var inputScales: [UInt32] = []
        var firstMovieScale: UInt32 = 0
        var transportStreams: [Bool] = []
        for position in 0..<count {
            let source = try open(position)
            if source.container.isTransportStream {
                guard let piece = try ConcatPiece(transportStream: source, codec: source.codec) else { return nil }
                if position == 0 { firstMovieScale = 90_000 }
                pieces.append(piece)
                inputScales.append(90_000)
                transportStreams.append(true)
                continue
            }
            guard let track = source.mp4?.track, let piece = try ConcatPiece(source, codec: source.codec) else { return nil }
            if position == 0 { firstMovieScale = track.movieTimescale }
            pieces.append(piece)
            inputScales.append(track.timescale)
            transportStreams.append(false)
        }
        let movieScale = movieTimescale ?? firstMovieScale
        guard movieScale > 0 else { return nil }
        // The output timescale, and each input's ticks in it.
        var common: Int64 = 1
        for inputScale in inputScales {
            let value = Int64(inputScale)
            var (a, b) = (common, value)
            while b != 0 { (a, b) = (b, a % b) }
            common = common / a * value
            guard common <= Int64(Int32.max) else { return nil }
        }
        let factors = inputScales.map { common / Int64($0) }
        for index in pieces.indices {
            guard let scaled = pieces[index].scaled(by: factors[index]) else { return nil }
            pieces[index] = scaled
        }
        // Every input's first shown picture decodes as far before its edit as the one that
        // decodes furthest before (decoding times only move earlier).
        let lead = pieces.map(\.lead).max() ?? 0
        var shifts: [Int64] = []
        var decodeShifts: [Int64] = []
        var edits: [(duration: Int64, mediaTime: Int64)] = []
        var continuous = 0
        /// Where the previous input's samples stop presenting and decoding, and where its shown
        /// range ends when the next input may continue its edit (output media ticks).
        var presentedUntil = Int64.min
        var decodedUntil = Int64.min
        var runEnd: Int64?
        var advance: Int64 = 0
        var starts: [Int64] = []
        var presented: Int64 = 0
        var broken: [Int] = []
        for (position, piece) in pieces.enumerated() {
            starts.append(presented)
            presented &+= piece.edits.reduce(0) { $0 &+ $1.duration }
            let earlier = piece.lead &- lead
            let shift: Int64
            var decodeShift: Int64
            if let end = runEnd, piece.isSimple, !piece.hiddenBefore {
                // Continues the edit: its first shown picture where the previous input's shown range ends.
                shift = end &+ piece.delay &- piece.shownStart
                decodeShift = max(shift &+ earlier, decodedUntil &- piece.firstDecode)
                edits[edits.count - 1].duration &+= piece.delay &+ piece.shownDuration
                continuous += 1
            } else {
                if position > 0 { broken.append(position) }
                if decodedUntil == Int64.min {
                    // The first input decodes from 0.
                    shift = 0 &- piece.firstDecode &- earlier
                } else {
                    shift = max(presentedUntil &- piece.earliest, decodedUntil &- piece.firstDecode &- earlier)
                }
                decodeShift = shift &+ earlier
                for edit in piece.edits {
                    Self.append((edit.duration, edit.mediaTime == -1 ? -1 : edit.mediaTime &+ shift), to: &edits)
                }
            }
            shifts.append(shift)
            decodeShifts.append(decodeShift)
            advance = max(advance, piece.decodeAdvance &+ decodeShift &- shift)
            presentedUntil = piece.latestEnd &+ shift
            decodedUntil = piece.firstDecode &+ decodeShift &+ piece.total
            runEnd = piece.isSimple && !piece.hiddenAfter ? piece.shownStart &+ piece.shownDuration &+ shift : nil
        }
        timescale = UInt32(common)
        self.movieTimescale = movieScale
        self.edits = edits
        continuousJoins = continuous
        brokenJoins = broken
        decodeAdvance = advance
        self.shifts = shifts
        self.decodeShifts = decodeShifts
        self.factors = factors
        clocks = inputScales.map { SampleClock(timescale: $0) }
        inputStarts = starts
        inputOrigins = zip(pieces, factors).map { piece, factor in (piece.shownStart &- piece.delay) / max(1, factor) }
        isTransportStream = transportStreams
    }

    /// Where input `position`'s presentation starts in the output (its first picture for a
    /// transport stream, its movie's time 0 for an MP4/MOV), in `scale` ticks from the output's
    /// presentation start (rounded down); `nil` past 64 bits.
    public func inputStart(_ position: Int, scale: Int64) -> Int64? {
        guard inputStarts.indices.contains(position) else { return nil }
        return CheckedNumber.rescale(inputStarts[position], from: Int64(timescale), to: scale)
    }

    /// Input `position` was opened for its turn: a transport stream's access units take their
    /// times from its PES packets (``SampleClock``), so it is held until the next input's turn
    /// is over.
    func attach(_ source: MediaSource, at position: Int) {
        guard isTransportStream.indices.contains(position), isTransportStream[position], let clock = source.sampleClock() else { return }
        clocks[position] = clock
        held = (held.suffix(1) + [source])
    }

    /// Appends `edit` to `edits`, merged with the last one when it continues it (two empty
    /// edits, or a non-empty one that starts where the last one's media ends).
    private static func append(_ edit: (duration: Int64, mediaTime: Int64), to edits: inout [(duration: Int64, mediaTime: Int64)]) {
        guard edit.duration > 0 || edit.mediaTime >= 0 else { return }
        if let last = edits.last,
           (last.mediaTime == -1 && edit.mediaTime == -1) || (last.mediaTime >= 0 && last.mediaTime &+ last.duration == edit.mediaTime) {
            edits[edits.count - 1].duration &+= edit.duration
            return
        }
        edits.append(edit)
    }

    /// The output media time that presents at the start of the join (the one edit's `media_time`
    /// less the first input's start delay) when one edit shows every input
    /// (``continuousJoins`` is one less than the inputs): time 0 of a transport stream, which has
    /// no edit list; `nil` when the join needs several edits (pictures hidden between inputs).
    public var presentationOrigin: Int64? {
        let shown = edits.filter { $0.mediaTime >= 0 }
        guard shown.count == 1, let edit = shown.first, edits.last?.mediaTime == edit.mediaTime else { return nil }
        return edit.mediaTime &- edits.dropLast().reduce(0) { $0 &+ $1.duration }
    }

    /// The output's edit list in ``movieTimescale``.
    public var editList: [MP4EditListEntry] { editList(movieTimescale: movieTimescale) }

    /// The output's edit list with durations in `movieTimescale` ticks (rounded to the nearest):
    /// one edit, after the first input's start delay, when every input continues the one before.
    public func editList(movieTimescale: UInt32) -> [MP4EditListEntry] {
        edits.map { edit in
            let duration = ConcatPiece.nearest(edit.duration, from: Int64(timescale), to: Int64(max(1, movieTimescale))) ?? 0
            return MP4EditListEntry(segmentDuration: UInt64(max(0, duration)), mediaTime: edit.mediaTime)
        }
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
    public var lookup: SampleTimingLookup { lookup(decodingEarlierBy: 0) }

    /// ``lookup`` with every decoding time `advance` ticks earlier (``decodeAdvance`` for a
    /// transport stream).
    public func lookup(decodingEarlierBy advance: Int64) -> SampleTimingLookup {
        { [self] offset in
            let position = previousPending ? current - 1 : current
            previousPending = false
            guard position >= 0, var timing = clocks[position].timing(at: offset) else { return nil }
            let factor = factors[position]
            timing.decode = timing.decode &* factor &+ decodeShifts[position] &- advance
            timing.presentation = timing.presentation &* factor &+ shifts[position]
            timing.duration &*= factor
            timing.timescale = timescale
            return timing
        }
    }
}
