public import NALU
public import NALUMP4

/// How ``Concatenator`` joins the MP4/MOV inputs' tracks that are neither video nor sound —
/// subtitles (`tx3g`, `text`, `wvtt`), a QuickTime timecode (`tmcd`), timed metadata — so that
/// a join (and `trim --keep`, whose pieces are joined) carries them (issue 41, items 12 and 14).
///
/// Every input must have the same such tracks, in the same order: the same handler, media
/// timescale and sample entries, byte for byte (pieces cut from one file have). Each input's
/// track is clipped to its video's presented duration (``MP4TrackCut``, from where its video's
/// first picture presents) and placed where that input's video starts in the join
/// (``ConcatAudio/targets`` for the video): a sample's duration runs to the next one's start,
/// so a track shorter than its input's video holds its last sample, and the joined track stays
/// on the video's time. A timecode track gets one sample per input, each input's frame number
/// moved to its own start: the timecode of each piece's first picture.
public struct ConcatTracks {
    /// How many inputs are joined.
    public let count: Int
    /// The output tracks (the first input's descriptions), their edit lists set by
    /// ``tracks(movieTimescale:)``.
    let descriptions: [MP4Track]
    /// For each input and track: the clip (the track's timescale) and where it starts in the join.
    let clips: [[(range: Range<Int64>, target: Int64)]]
    /// The joined duration of each track (its timescale).
    let durations: [Int64]
    let open: (Int) throws(NALUError) -> MediaSource

    /// The tracks joined, each input's in order, or why they cannot be (`reason`); `nil` with no
    /// reason when the inputs have no such track.
    /// - Throws: ``NALU/NALUError`` (typed): what `open` throws; a malformed sample table of an input.
    public static func plan(count: Int, open: @escaping (Int) throws(NALUError) -> MediaSource) throws(NALUError) -> (tracks: ConcatTracks?, reason: String?) {
        guard count > 0 else { return (nil, nil) }
        var descriptions: [MP4Track] = []
        var firstPath = ""
        var clips: [[(range: Range<Int64>, target: Int64)]] = []
        var targets: [Int64] = []
        for position in 0..<count {
            let source = try open(position)
            guard let movie = try source.movie(), let video = source.mp4 else {
                return position == 0 ? (nil, nil) : (nil, "\(source.path) is not MP4/MOV")
            }
            let tracks = movie.tracks.filter { $0.track.trackID != video.track.trackID && MP4TrackCut.clipsSamples($0.track) }
            if position == 0 {
                guard !tracks.isEmpty else { return (nil, nil) }
                descriptions = tracks.map(\.track)
                firstPath = source.path
                targets = Array(repeating: 0, count: tracks.count)
                clips = Array(repeating: [], count: tracks.count)
            }
            guard tracks.count == descriptions.count else {
                return (nil, "\(source.path) has \(tracks.count) subtitle/timecode/data tracks, \(firstPath) \(descriptions.count)")
            }
            let videoDelay = CheckedNumber.int64(min(editListStart(video.track.editList).delay, UInt64(Int32.max))) ?? 0
            let movieScale = Int64(max(1, movie.movieTimescale))
            for (index, reader) in tracks.enumerated() {
                let track = reader.track, first = descriptions[index]
                guard track.handler == first.handler, track.timescale == first.timescale, track.sampleEntries == first.sampleEntries else {
                    return (nil, "\(source.path)'s track \(track.trackID) (\(track.handler)) differs from \(firstPath)'s track \(first.trackID)")
                }
                let scale = Int64(track.timescale)
                guard scale > 0, let duration = try ConcatAudio.videoDuration(source, timescale: track.timescale) else {
                    return (nil, "\(source.path)'s video has no duration")
                }
                let start = track.presentationStart
                let delay = CheckedNumber.int64(min(start.delay, UInt64(Int32.max))) ?? 0
                let lead = CheckedNumber.rescale(delay - videoDelay, from: movieScale, to: scale) ?? 0
                let origin = start.mediaTime &- lead
                guard let end = CheckedNumber.sum(origin, duration), let target = CheckedNumber.sum(targets[index], 0) else {
                    return (nil, "\(source.path)'s track \(track.trackID) times pass 64 bits")
                }
                clips[index].append((origin..<end, target))
                targets[index] = target &+ duration
            }
        }
        return (ConcatTracks(count: count, descriptions: descriptions, clips: clips, durations: targets, open: open), nil)
    }

    /// The output tracks, each with one edit for the joined duration (`movieTimescale`).
    public func tracks(movieTimescale: UInt32) -> [MP4PassthroughTrack] {
        zip(descriptions, durations).map { track, duration in
            var copy = MP4PassthroughTrack(copying: track)
            let segment = CheckedNumber.rescale(duration, from: Int64(max(1, track.timescale)), to: Int64(movieTimescale)) ?? 0
            copy.editList = [MP4EditListEntry(segmentDuration: UInt64(max(0, segment)), mediaTime: 0)]
            return copy
        }
    }

    /// A feeder per track, writing to writer tracks `firstWriterTrack`, `firstWriterTrack + 1`, ….
    func feeders(firstWriterTrack: Int) -> [ConcatTrackFeeder] {
        descriptions.indices.map { ConcatTrackFeeder(join: self, index: $0, writerTrack: firstWriterTrack + $0) }
    }
}

/// Appends one joined track's samples (``ConcatTracks``) to its writer track, interleaved with
/// the video by time (about half a second ahead, as ``MP4PassthroughInterleaver``). One sample
/// is held until the next one's start is known, which sets its duration. Memory: the held
/// sample's bytes; one input's file open at a time.
final class ConcatTrackFeeder {
    private let join: ConcatTracks
    private let index: Int
    private let writerTrack: Int
    private let scale: Int64
    private var current = 0
    private var reader: MP4TrackReader<AnyRandomAccessSource>?
    private var samples: MP4SampleIterator<AnyRandomAccessSource>?
    private var held: (bytes: [UInt8], start: Int64, end: Int64, entry: Int, sync: Bool)?
    private var firstAtInput = true
    private(set) var appended = 0

    init(join: ConcatTracks, index: Int, writerTrack: Int) {
        self.join = join
        self.index = index
        self.writerTrack = writerTrack
        scale = Int64(max(1, join.descriptions[index].timescale))
    }

    /// Appends what starts before `decodeTime` / `timescale` s plus half a second (everything for `nil`).
    func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws(NALUError) {
        let limit = decodeTime.flatMap { time in
            CheckedNumber.rescale(time, from: Int64(max(1, timescale)), to: scale).flatMap { CheckedNumber.sum($0, scale / 2) }
        }
        while let next = try nextSample() {
            if let held { try flush(held, until: next.start, writer: writer) }
            held = next
            if let limit, next.start > limit { return }
        }
        // The end: the last sample lasts to the joined track's end.
        if decodeTime == nil, let last = held {
            try flush(last, until: join.durations[index], writer: writer)
            held = nil
        }
    }

    /// Writes `sample` up to `next`, where the following one starts: a subtitle sample
    /// (`tx3g`/`text`) with text keeps its own end and an empty sample (a 16-bit text length of
    /// 0, 3GPP TS 26.245 5.17) fills the gap, so a cue does not stay on screen across it; an empty
    /// one, or another kind (a timecode runs on), lasts until `next`.
    private func flush<Sink: ByteSink>(_ sample: (bytes: [UInt8], start: Int64, end: Int64, entry: Int, sync: Bool), until next: Int64,
                                       writer: MP4Writer<Sink>) throws(NALUError) {
        let entry = join.descriptions[index].sampleEntryType
        let isText = entry == FourCC("tx3g") || entry == FourCC("text")
        if isText, sample.bytes != [0, 0], sample.end > sample.start, sample.end < next {
            try write(sample, duration: sample.end &- sample.start, writer: writer)
            try write(([0, 0], sample.end, next, sample.entry, true), duration: next &- sample.end, writer: writer)
        } else if next > sample.start {
            try write(sample, duration: next &- sample.start, writer: writer)
        }
    }

    /// Writes a held sample lasting `duration` ticks: a subtitle or data sample longer than a
    /// 32-bit duration (a gap between cues of more than 71 minutes at ffmpeg's 1 MHz) is written
    /// as several samples of the same bytes; a timecode sample that long is refused (a repeat
    /// would restart its count).
    private func write<Sink: ByteSink>(_ sample: (bytes: [UInt8], start: Int64, end: Int64, entry: Int, sync: Bool), duration: Int64, writer: MP4Writer<Sink>) throws(NALUError) {
        var left = duration
        while left > 0 {
            let part = min(left, Int64(UInt32.max))
            if part < left, join.descriptions[index].handler == FourCC("tmcd") {
                throw NALUError(.doesNotFit, field: "tmcd sample duration", detail: "\(duration) ticks do not fit 32 bits")
            }
            try writer.append(sample.bytes, track: writerTrack, duration: UInt32(part), compositionOffset: 0,
                              isSync: sample.sync, sampleDescription: sample.entry)
            appended += 1
            left -= part
        }
    }

    /// The next sample of the join with its start in the joined track, its bytes read (a
    /// timecode's first sample of an input moved to the input's start).
    private func nextSample() throws(NALUError) -> (bytes: [UInt8], start: Int64, end: Int64, entry: Int, sync: Bool)? {
        while current < join.count {
            if reader == nil {
                let source = try join.open(current)
                guard let movie = try source.movie(), let video = source.mp4 else {
                    throw NALUError(.unsupported, field: "concat", detail: "\(source.path) changed while the inputs were joined")
                }
                let tracks = movie.tracks.filter { $0.track.trackID != video.track.trackID && MP4TrackCut.clipsSamples($0.track) }
                guard index < tracks.count else {
                    throw NALUError(.unsupported, field: "concat", detail: "\(source.path) changed while the inputs were joined")
                }
                reader = tracks[index]
                samples = tracks[index].samples()
                firstAtInput = true
            }
            let clip = join.clips[index][current]
            while let sample = try samples?.next(), let reader {
                let end = sample.dts &+ Int64(sample.duration)
                if sample.dts >= clip.range.upperBound { break }
                guard end > clip.range.lowerBound else { continue }
                var bytes: [UInt8] = []
                try reader.read(sample, into: &bytes)
                if firstAtInput, sample.dts < clip.range.lowerBound, reader.track.handler == FourCC("tmcd") {
                    bytes = try MP4PassthroughInterleaver<AnyRandomAccessSource>.timecode(bytes, of: sample, track: reader.track,
                                                                                         advancedBy: clip.range.lowerBound &- sample.dts)
                }
                firstAtInput = false
                let start = clip.target &+ max(0, sample.dts &- clip.range.lowerBound)
                let until = clip.target &+ (min(end, clip.range.upperBound) &- clip.range.lowerBound)
                return (bytes, start, until, sample.sampleDescriptionIndex, sample.isSync)
            }
            reader = nil
            samples = nil
            current += 1
        }
        return nil
    }
}
