public import NALU
public import NALUMP4
import NALUTS

/// How ``Concatenator`` joins the audio of MP4/MOV inputs, one sound track at a time (every
/// input has the same number of sound tracks; their k-th tracks are joined into the output's
/// k-th, ``plans(count:open:)``): when each input's k-th sound track has one sample entry, the entries alike in what a decoder needs (the same
/// format; for `mp4a` the same AudioSpecificConfig, sample rate and channel count — the `esds`
/// and `btrt` bitrate fields may differ, as they do between any two encodes), and the same
/// media timescale, the output gets ONE continuous audio track (the first input's sample entry)
/// with ONE edit (ISO/IEC 14496-12 8.6.6) for the whole track: the first input's `media_time`
/// (its priming hidden) for the joined presented duration. Demuxers that honour only the first
/// edit (GStreamer's qtdemux) then play it through.
///
/// Input *i*'s audio should start where its video does: after the inputs before it (the sum of
/// their presented video durations, ``targets``), later by its own leading empty edits (the
/// audio of a chunk of a distributed encode starts with the first frame that begins in the
/// chunk, an empty edit before it: the previous chunk keeps the frame across the join, so a
/// join of chunks holds every source frame once). Whole samples are kept or left out so that it does, within
/// half a sample duration (one AAC frame is 1024 samples): the samples before an input's own
/// edit (priming) and after it are left out where they would overlap the neighbours, so each
/// join costs at most one audio frame and the error never accumulates.
public struct ConcatAudio {
    /// How many inputs are joined.
    public let count: Int
    /// Which of each input's sound tracks is joined (0 for the first).
    public let soundTrackIndex: Int
    /// Input `i`'s sound track, opened for its turn: one input's file is open at a time, so a
    /// join of thousands of inputs (the pieces of a cut list) holds neither their memory nor their
    /// descriptors at once (issue 40 item 16).
    let reader: (Int) throws(NALUError) -> MP4TrackReader<AnyRandomAccessSource>
    /// The output track: the first input's, with the one joined edit.
    public let track: MP4PassthroughTrack
    /// The movie timescale the edit list is in (the tracks' media timescale).
    public let movieTimescale: UInt32
    /// The joined presentation duration (movie timescale).
    public let presentedDuration: UInt64
    /// The decoding times kept of each input (its own timeline): a contiguous run of samples.
    public let kept: [Range<Int64>]
    /// Where each input's audio should start in the joined presentation (track timescale): the
    /// sum of the previous inputs' presented video durations.
    public let targets: [Int64]
    /// Where each input's first kept sample presents in the joined track, minus where it
    /// presented in the input (track timescale): the join error; 0 for the first.
    public let joinErrors: [Int64]
    /// The duration each input's samples are written with inside the join: every input but the
    /// last has its samples written at least a whole frame long (its commonest duration), as a
    /// decoder outputs a whole frame for an AAC encoder's shorter last one; 0 for the last
    /// input (its durations as they are: its short last frame is the joined track's end).
    public let minimumDurations: [UInt32]
    /// Silence after input `i`'s last kept sample (track timescale): how much longer its last
    /// sample lasts in the join, so that the next input's audio starts with its pictures when
    /// input `i`'s audio ends before its video does (a gap of more than half a frame; 0 for none).
    public let gapsAfter: [Int64]

    /// The duration most of `durations` have (the longest of those tied), 0 for none.
    static func commonestDuration(_ durations: [Int64]) -> Int64 {
        var counts: [Int64: Int] = [:]
        for duration in durations { counts[duration, default: 0] += 1 }
        return counts.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key ?? 0
    }

    /// The join of `sources`' audio, or why there is none (`reason`, one phrase).
    /// - Throws: ``NALU/NALUError`` (typed): a malformed sample table of an input.
    public static func plan(_ sources: [MediaSource]) throws(NALUError) -> (audio: ConcatAudio?, reason: String?) {
        try plan(count: sources.count) { (position) throws(NALUError) in sources[position] }
    }

    /// The joins of every sound track of the inputs `open` gives in turn: the k-th sound track of
    /// each input joined into the k-th output track, in track order. Every input must have as
    /// many sound tracks as the first, and each join must be possible (``plan(count:soundTrack:open:)``);
    /// otherwise none is joined and `reason` says why (nothing is joined in part).
    /// - Throws: ``NALU/NALUError`` (typed): what `open` throws; a malformed sample table of an input.
    public static func plans(count: Int, open: @escaping (Int) throws(NALUError) -> MediaSource) throws(NALUError) -> (audio: [ConcatAudio], reason: String?) {
        guard count > 0 else { return ([], "no input") }
        var tracks: Int?
        var firstPath = ""
        for position in 0..<count {
            let source = try open(position)
            guard let movie = try source.movie() else { return ([], "\(source.path) is not MP4/MOV") }
            let sound = movie.tracks.filter(\.track.isAudio).count
            if let tracks, sound != tracks {
                return ([], "\(source.path) has \(sound) audio track\(sound == 1 ? "" : "s"), \(firstPath) has \(tracks)")
            }
            if tracks == nil { (tracks, firstPath) = (sound, source.path) }
        }
        var joins: [ConcatAudio] = []
        // At most 32 joined tracks (what a transport stream output takes too).
        for index in 0..<min(tracks ?? 0, 32) {
            let (audio, reason) = try plan(count: count, soundTrack: index, open: open)
            guard let audio else { return ([], reason) }
            joins.append(audio)
        }
        return (joins, nil)
    }

    /// Sound track `index` of `source`, or why it cannot be joined.
    private static func soundTrack(_ source: MediaSource, index: Int) throws(NALUError) -> (reader: MP4TrackReader<AnyRandomAccessSource>?, reason: String?) {
        guard let movie = try source.movie() else { return (nil, "\(source.path) is not MP4/MOV") }
        let sound = movie.tracks.filter(\.track.isAudio)
        guard index < sound.count else { return (nil, "\(source.path) has \(sound.count) audio tracks, not \(index + 1)") }
        let reader = sound[index]
        guard reader.track.sampleEntries.count == 1 else { return (nil, "\(source.path)'s audio track \(index + 1) has several sample entries") }
        return (reader, nil)
    }

    /// The join of the audio of `count` inputs that `open` gives in turn (each is read and let
    /// go before the next is opened; the join opens them again, one at a time), or why there is
    /// none (`reason`, one phrase).
    /// - Throws: ``NALU/NALUError`` (typed): what `open` throws; a malformed sample table of an input.
    public static func plan(count: Int, soundTrack index: Int = 0, open: @escaping (Int) throws(NALUError) -> MediaSource) throws(NALUError) -> (audio: ConcatAudio?, reason: String?) {
        guard count > 0 else { return (nil, "no input") }
        var first: (track: MP4Track, entry: [UInt8], path: String)?
        // Each input's samples, its media_time, its presented duration and leading delay (track
        // timescale), and its presented video duration (inputs but the last).
        var inputs: [(samples: [(dts: Int64, duration: Int64)], mediaTime: Int64, duration: Int64, delay: Int64)] = []
        var videoDurations: [Int64?] = []
        for position in 0..<count {
            let source = try open(position)
            let (found, reason) = try soundTrack(source, index: index)
            guard let reader = found else { return (nil, reason) }
            if let first {
                guard reader.track.timescale == first.track.timescale else {
                    return (nil, "\(source.path)'s audio timescale \(reader.track.timescale) differs from \(first.path)'s \(first.track.timescale)")
                }
                if let entry = reader.track.sampleEntries.first, let difference = AudioSampleEntry.difference(first.entry, entry) {
                    return (nil, "\(source.path)'s audio \(difference) differs from \(first.path)'s")
                }
            } else {
                guard let entry = reader.track.sampleEntries.first else { return (nil, "no input") }
                first = (reader.track, entry, source.path)
            }
            let scale = first?.track.timescale ?? reader.track.timescale
            guard scale > 0 else { return (nil, "audio timescale 0") }
            var samples: [(dts: Int64, duration: Int64)] = []
            var total: Int64 = 0
            try NALUError.typed(field: "audio") { try reader.forEachSample { sample in
                samples.append((sample.dts, Int64(sample.duration)))
                total &+= Int64(sample.duration)
            } }
            let movieScale = UInt64(max(1, try source.movie()?.movieTimescale ?? 1))
            let start = reader.track.editList.first { $0.mediaTime >= 0 }
            let mediaTime = min(max(0, start?.mediaTime ?? 0), total)
            var duration = total - mediaTime
            if let start, start.segmentDuration > 0 {
                let (product, overflow) = start.segmentDuration.multipliedReportingOverflow(by: UInt64(scale))
                if !overflow { duration = min(duration, Int64(clamping: product / movieScale)) }
            }
            // The leading empty edits: the audio starts that long after the input's video (a
            // chunk of a distributed encode whose first audio frame begins inside it).
            let lead = reader.track.presentationStart.delay.multipliedFullWidth(by: UInt64(scale))
            let delay = lead.high < movieScale ? Int64(clamping: movieScale.dividingFullWidth(lead).quotient) : 0
            inputs.append((samples, mediaTime, duration, delay))
            videoDurations.append(position + 1 < count ? try Self.videoDuration(source, timescale: scale) : nil)
        }
        guard let first else { return (nil, "no input") }
        let scale = first.track.timescale
        // Input i's audio starts where its video does: after the previous inputs' presented
        // video (their video edit's duration, else their video media), so an input whose audio
        // runs longer or shorter than its pictures does not carry the difference into the next
        // joins. The last input's audio ends with its own edit.
        var targets: [Int64] = []
        var target: Int64 = 0
        for (position, input) in inputs.enumerated() {
            targets.append(target)
            target &+= videoDurations[position] ?? input.duration
        }
        let end = targets.last.map { $0 &+ (inputs.last.map { $0.delay &+ $0.duration } ?? 0) } ?? 0
        // The joined track's presentation position of the next sample kept (0 is the first
        // input's media_time, so its priming sits before 0).
        var cursor: Int64 = 0 &- (inputs.first?.mediaTime ?? 0)
        var kept: [Range<Int64>] = []
        var errors: [Int64] = []
        var minimums: [UInt32] = []
        var gaps = [Int64](repeating: 0, count: inputs.count)
        /// The last input with a kept sample, before the current one.
        var lastKept: Int?
        for (position, input) in inputs.enumerated() {
            // Up to where the next input's audio starts: its video's start, or later by its
            // leading empty edit (a chunk's audio resumes where the previous chunk's ends, so the
            // frame across the join stays with the chunk it began in).
            let limit = position + 1 < inputs.count ? targets[position + 1] &+ inputs[position + 1].delay : end
            var low: Int64?
            var high: Int64 = 0
            var error: Int64 = 0
            // A shorter last sample (an AAC encoder's final partial frame) still decodes to a
            // whole frame: inside the join it counts (and is written) as one. A whole frame is
            // the duration most samples have, not the longest: a fragmented file without an edit
            // list gives its first sample the time before it (80 ms where the video starts late),
            // and every sample written that long would stretch the audio over the join.
            let frame = position + 1 < inputs.count ? Self.commonestDuration(input.samples.map(\.duration)) : 0
            minimums.append(UInt32(clamping: frame))
            for sample in input.samples {
                let duration = max(sample.duration, frame)
                // Where the sample presents in the joined timeline were the input placed exactly.
                let ideal = targets[position] &+ input.delay &+ (sample.dts &- input.mediaTime)
                let middle = ideal &+ duration / 2
                guard middle < limit else { break }
                guard middle > cursor else { continue }
                if low == nil {
                    // The inputs before end sooner than their pictures: silence until this
                    // input's audio starts with its pictures (the previous kept sample lasts longer).
                    if let previous = lastKept, ideal &- cursor > duration / 2, ideal &- cursor < Int64(UInt32.max / 2) {
                        gaps[previous] = ideal &- cursor
                        cursor = ideal
                    }
                    low = sample.dts
                    error = cursor &- ideal
                }
                high = sample.dts &+ 1
                cursor &+= duration
            }
            kept.append((low ?? 0)..<(low == nil ? 0 : high))
            errors.append(error)
            if low != nil { lastKept = position }
        }
        let presented = max(0, min(end, cursor))
        var track = MP4PassthroughTrack(copying: first.track)
        track.editList = [MP4EditListEntry(segmentDuration: UInt64(presented), mediaTime: inputs.first?.mediaTime ?? 0)]
        let reader: (Int) throws(NALUError) -> MP4TrackReader<AnyRandomAccessSource> = { (position) throws(NALUError) in
            let source = try open(position)
            guard let reader = try soundTrack(source, index: index).reader else {
                throw NALUError(.unsupported, field: "concat", detail: "\(source.path) changed while the inputs were joined")
            }
            return reader
        }
        return (ConcatAudio(count: count, soundTrackIndex: index, reader: reader, track: track, movieTimescale: scale, presentedDuration: UInt64(presented),
                            kept: kept, targets: targets, joinErrors: errors, minimumDurations: minimums, gapsAfter: gaps), nil)
    }
}

extension ConcatAudio {
    /// How long `source`'s video presents, in ticks of `timescale`, as a join lays it out
    /// (``ConcatPiece``, ``ConcatTiming``): its start delay (leading empty edits, or the first
    /// picture's composition time without an edit list) and what its edits show; `nil` when
    /// unknown.
    static func videoDuration(_ source: MediaSource, timescale: UInt32) throws(NALUError) -> Int64? {
        guard let video = source.mp4?.track, video.timescale > 0, let piece = try ConcatPiece(source, codec: source.codec) else { return nil }
        let total = piece.edits.reduce(Int64(0)) { $0 &+ $1.duration }
        guard total > 0 else { return nil }
        return CheckedNumber.rescale(total, from: Int64(video.timescale), to: Int64(timescale))
    }

    /// ``track`` with its edit's duration in `movieTimescale` ticks (the output movie's: a
    /// multiple of the audio's timescale, so exact), rounded to the nearest otherwise.
    public func track(movieTimescale: UInt32) -> MP4PassthroughTrack {
        guard movieTimescale != self.movieTimescale, movieTimescale > 0 else { return track }
        var track = track
        track.editList = track.editList?.map { edit in
            var edit = edit
            if let ticks = CheckedNumber.int64(edit.segmentDuration),
               let scaled = ConcatPiece.nearest(ticks, from: Int64(self.movieTimescale), to: Int64(movieTimescale)) {
                edit.segmentDuration = UInt64(max(0, scaled))
            }
            return edit
        }
        return track
    }
}

/// What of two sound sample entries a decoder needs (ISO/IEC 14496-12 12.2.3 AudioSampleEntry,
/// ISO/IEC 14496-14 `esds`): the format, channel count, sample rate and, for `mp4a`, the
/// AudioSpecificConfig; not the `esds` bitrate fields or a `btrt` box, which differ between encodes.
enum AudioSampleEntry {
    /// What differs between `a` and `b` ("sample entry (format mp4a vs ac-3)"), or `nil` when a
    /// decoder takes both alike.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> String? {
        if a == b { return nil }
        guard a.count >= 36, b.count >= 36 else { return "sample entry" }
        let formatA = String(decoding: a[4..<8], as: UTF8.self), formatB = String(decoding: b[4..<8], as: UTF8.self)
        guard formatA == formatB else { return "format (\(formatA) vs \(formatB))" }
        // SoundSampleEntry (version 0 layout): channelcount at 24, samplesize 26, samplerate 32 (16.16).
        guard a[24..<28] == b[24..<28] else { return "channel count or sample size" }
        guard a[32..<36] == b[32..<36] else { return "sample rate" }
        guard formatA == "mp4a" else { return "sample entry (\(formatA) configuration)" }
        guard let configA = try? AudioSpecificConfig.fromSampleEntry(a), let configB = try? AudioSpecificConfig.fromSampleEntry(b) else {
            return "esds"
        }
        return configA == configB ? nil : "AudioSpecificConfig"
    }
}

/// Appends the joined inputs' kept audio samples (``ConcatAudio/kept``) to a writer passthrough track,
/// interleaved with the video by decoding time (about half a second of audio at a time, as
/// ``MP4PassthroughInterleaver``). Memory: one sample buffer, reused.
final class ConcatAudioFeeder {
    private let audio: ConcatAudio
    private let kept: [Range<Int64>]
    private let minimumDurations: [UInt32]
    private var current = 0
    /// The current input's sound track (opened for its turn) and its samples.
    private var reader: MP4TrackReader<AnyRandomAccessSource>?
    private var samples: MP4SampleIterator<AnyRandomAccessSource>?
    private var next: MP4Sample?
    private var buffer: [UInt8] = []
    /// The output decoding time of the next sample (the track's timescale).
    private var time: Int64 = 0
    private let scale: Int64
    private let track: Int
    private(set) var appended = 0

    init(_ audio: ConcatAudio, track: Int = 0) {
        self.audio = audio
        self.track = track
        kept = audio.kept
        minimumDurations = audio.minimumDurations
        scale = Int64(audio.movieTimescale)
    }

    /// Appends the samples due before a video sample decoding at `decodeTime` / `timescale` s
    /// (up to half a second past it), or all that are left for `nil`.
    func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws(NALUError) {
        while let sample = try peek() {
            if let decodeTime {
                // Stop at time / scale ≥ decodeTime / timescale + 1/2.
                let left = time.multipliedFullWidth(by: 2 * Int64(timescale))
                let (twice, overflow1) = decodeTime.multipliedReportingOverflow(by: 2)
                let (sum, overflow2) = twice.addingReportingOverflow(Int64(timescale))
                if !overflow1, !overflow2 {
                    let right = sum.multipliedFullWidth(by: scale)
                    if left.high > right.high || (left.high == right.high && left.low >= right.low) { return }
                }
            }
            try reader?.read(sample, into: &buffer)
            let duration = max(sample.duration, current < minimumDurations.count ? minimumDurations[current] : 0) &+ gap(after: sample)
            try writer.append(buffer, track: track, duration: duration, compositionOffset: sample.compositionOffset,
                              isSync: sample.isSync, sampleDescription: 1)
            time &+= Int64(duration)
            appended += 1
            next = nil
        }
    }

    /// The silence after `sample` (``ConcatAudio/gapsAfter``) when it is its input's last kept one.
    private func gap(after sample: MP4Sample) -> UInt32 {
        guard current < kept.count, sample.dts == kept[current].upperBound &- 1 else { return 0 }
        return UInt32(clamping: audio.gapsAfter[current])
    }

    private func peek() throws(NALUError) -> MP4Sample? {
        if let next { return next }
        while current < audio.count {
            if reader == nil {
                let opened = try audio.reader(current)
                reader = opened
                samples = opened.samples()
            }
            if let sample = try samples?.next() {
                guard current < kept.count, kept[current].contains(sample.dts) else { continue }
                next = sample
                return sample
            }
            // Done with this input: its file is closed before the next one is opened.
            samples = nil
            reader = nil
            current += 1
        }
        return nil
    }
}

/// Pushes the joined inputs' kept audio frames (``ConcatAudio/kept``: AAC, AC-3, MPEG audio) into
/// a ``TransportStreamMuxer`` audio stream, interleaved with the video by time
/// (``TransportStreamMuxer/willWriteVideo``). A transport stream has no edit list: each frame
/// is timed where it presents in the joined track (its decoding position less the first
/// input's `media_time`), so the frames continue without gaps and the first input's priming
/// presents just before time 0. Memory: one sample buffer, reused.
final class ConcatTransportStreamAudioFeeder {
    private let audio: ConcatAudio
    private let kept: [Range<Int64>]
    private let minimumDurations: [UInt32]
    private let scale: Int64
    private var current = 0
    /// The current input's sound track (opened for its turn) and its samples.
    private var reader: MP4TrackReader<AnyRandomAccessSource>?
    private var samples: MP4SampleIterator<AnyRandomAccessSource>?
    private var next: MP4Sample?
    private var buffer: [UInt8] = []
    /// The presentation time of the next frame (track timescale).
    private var time: Int64
    private let stream: Int
    private(set) var pushed = 0

    init(_ audio: ConcatAudio, stream: Int = 0) {
        self.audio = audio
        self.stream = stream
        kept = audio.kept
        minimumDurations = audio.minimumDurations
        scale = Int64(audio.movieTimescale)
        time = 0 &- (audio.track.editList?.first?.mediaTime ?? 0)
    }

    func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.alsoBeforeVideo { [unowned muxer] (time) throws(NALUError) in try self.push(upTo: time, muxer: muxer) }
    }

    private func push<Sink: ByteSink>(upTo limit: Int64?, muxer: TransportStreamMuxer<Sink>) throws(NALUError) {
        while let sample = try peek() {
            if let limit {
                let left = time.multipliedFullWidth(by: 90_000)
                let right = limit.multipliedFullWidth(by: scale)
                if left.high > right.high || (left.high == right.high && left.low > right.low) { return }
            }
            try reader?.read(sample, into: &buffer)
            try buffer.withBytes { (bytes) throws(NALUError) in try muxer.pushAudio(bytes, time: time, timescale: scale, stream: stream) }
            time &+= Int64(max(sample.duration, current < minimumDurations.count ? minimumDurations[current] : 0))
            if current < kept.count, sample.dts == kept[current].upperBound &- 1 { time &+= audio.gapsAfter[current] }
            pushed += 1
            next = nil
        }
    }

    private func peek() throws(NALUError) -> MP4Sample? {
        if let next { return next }
        while current < audio.count {
            if reader == nil {
                let opened = try audio.reader(current)
                reader = opened
                samples = opened.samples()
            }
            if let sample = try samples?.next() {
                guard current < kept.count, kept[current].contains(sample.dts) else { continue }
                next = sample
                return sample
            }
            // Done with this input: its file is closed before the next one is opened.
            samples = nil
            reader = nil
            current += 1
        }
        return nil
    }
}
