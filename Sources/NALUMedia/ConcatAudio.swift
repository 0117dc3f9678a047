import NALU
public import NALUMP4
import NALUTS

/// How ``Concatenator`` joins the audio of MP4/MOV inputs: when every input has exactly one sound
/// track with one sample entry, all byte-identical (same codec, sample rate, channels and
/// `esds`/codec configuration) and the same media timescale, the output gets one audio track
/// holding every input's samples in order, copied unchanged (durations kept, so its media
/// duration is the sum of the inputs'). Its edit list (ISO/IEC 14496-12 8.6.6) has one entry
/// per input: that input's own first non-empty edit moved to where its samples sit in the
/// joined track, so each input presents exactly the audio it presented on its own (AAC priming
/// hidden at every join) and the audio of input *i* starts where the sum of the previous
/// inputs' presented audio durations ends. With inputs whose audio and video last as long (as
/// FFmpeg writes them), the joins stay in sync; otherwise the difference carries over.
public struct ConcatAudio {
    /// Each input's sound track, in order.
    public let readers: [MP4TrackReader<AnyRandomAccessSource>]
    /// The output track: the first input's, with the joined edit list.
    public let track: MP4PassthroughTrack
    /// The movie timescale the edit list is in (the tracks' media timescale).
    public let movieTimescale: UInt32
    /// The joined presentation duration (movie timescale): the sum of the inputs' presented audio.
    public let presentedDuration: UInt64

    /// The join of `sources`' audio, or why there is none (`reason`, one phrase).
    public static func plan(_ sources: [MediaSource]) throws -> (audio: ConcatAudio?, reason: String?) {
        var readers: [MP4TrackReader<AnyRandomAccessSource>] = []
        for source in sources {
            guard let movie = try source.movie() else { return (nil, "\(source.path) is not MP4/MOV") }
            let sound = movie.tracks.filter(\.track.isAudio)
            guard sound.count == 1, let reader = sound.first else {
                return (nil, "\(source.path) has \(sound.count) audio tracks, not one")
            }
            guard reader.track.sampleEntries.count == 1 else { return (nil, "\(source.path)'s audio has several sample entries") }
            readers.append(reader)
        }
        guard let first = readers.first else { return (nil, "no input") }
        for (position, reader) in readers.enumerated().dropFirst() {
            guard reader.track.sampleEntries == first.track.sampleEntries, reader.track.timescale == first.track.timescale else {
                return (nil, "\(sources[position].path)'s audio sample entry (codec configuration) differs from \(sources[0].path)'s")
            }
        }
        let scale = first.track.timescale
        guard scale > 0 else { return (nil, "audio timescale 0") }
        var edits: [MP4EditListEntry] = []
        var offset: Int64 = 0
        var presented: UInt64 = 0
        for (position, reader) in readers.enumerated() {
            var total: Int64 = 0
            try reader.forEachSample { sample in total &+= Int64(sample.duration) }
            let movieScale = UInt64(max(1, try sources[position].movie()?.movieTimescale ?? 1))
            let start = reader.track.editList.first { $0.mediaTime >= 0 }
            let mediaTime = min(max(0, start?.mediaTime ?? 0), total)
            // The edit's duration in the track's timescale, at most the samples after media_time.
            var duration = UInt64(total - mediaTime)
            if let start {
                let (product, overflow) = start.segmentDuration.multipliedReportingOverflow(by: UInt64(scale))
                if !overflow { duration = min(duration, product / movieScale) }
            }
            let (at, overflow) = offset.addingReportingOverflow(mediaTime)
            guard !overflow else { return (nil, "audio too long") }
            edits.append(MP4EditListEntry(segmentDuration: duration, mediaTime: at))
            offset &+= total
            presented &+= duration
        }
        var track = MP4PassthroughTrack(copying: first.track)
        track.editList = edits
        return (ConcatAudio(readers: readers, track: track, movieTimescale: scale, presentedDuration: presented), nil)
    }
}

/// Appends the joined inputs' audio samples to writer track 0, interleaved with the video by
/// decoding time (about half a second of audio at a time, as ``MP4PassthroughInterleaver``).
/// Memory: one sample buffer, reused.
final class ConcatAudioFeeder {
    private let readers: [MP4TrackReader<AnyRandomAccessSource>]
    private var current = 0
    private var samples: MP4SampleIterator<AnyRandomAccessSource>?
    private var next: MP4Sample?
    private var buffer: [UInt8] = []
    /// The output decoding time of the next sample (the track's timescale).
    private var time: Int64 = 0
    private let scale: Int64
    private(set) var appended = 0

    init(_ audio: ConcatAudio) {
        readers = audio.readers
        scale = Int64(audio.movieTimescale)
        samples = audio.readers.first?.samples()
    }

    /// Appends the samples due before a video sample decoding at `decodeTime` / `timescale` s
    /// (up to half a second past it), or all that are left for `nil`.
    func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws {
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
            try readers[current].read(sample, into: &buffer)
            try writer.append(buffer, track: 0, duration: sample.duration, compositionOffset: sample.compositionOffset,
                              isSync: sample.isSync, sampleDescription: 1)
            time &+= Int64(sample.duration)
            appended += 1
            next = nil
        }
    }

    private func peek() throws -> MP4Sample? {
        if let next { return next }
        while current < readers.count {
            if let sample = try samples?.next() {
                next = sample
                return sample
            }
            current += 1
            samples = current < readers.count ? readers[current].samples() : nil
        }
        return nil
    }
}

/// Pushes the joined inputs' AAC frames into a ``TransportStreamMuxer`` as ADTS, interleaved
/// with the video by time (``TransportStreamMuxer/willWriteVideo``). A transport stream has no
/// edit list, so each input's frames are timed by its edit in the ``ConcatAudio`` plan: input
/// *i*'s audio presents from the sum of the previous inputs' presented durations, and the frames
/// wholly outside its edit — the AAC priming frame of every input after the first, a tail past
/// the edit — are left out so the timestamps never go back. Memory: one sample buffer, reused.
final class ConcatTransportStreamAudioFeeder {
    private let readers: [MP4TrackReader<AnyRandomAccessSource>]
    private let edits: [MP4EditListEntry]
    private let scale: Int64
    private var current = 0
    private var samples: MP4SampleIterator<AnyRandomAccessSource>?
    private var next: MP4Sample?
    private var buffer: [UInt8] = []
    /// The joined decoding time of the current input's first sample, and the presentation time
    /// its edit starts at (both in the track's timescale).
    private var inputStart: Int64 = 0
    private var base: Int64 = 0
    private var inputSamples: Int64 = 0
    private(set) var pushed = 0
    private(set) var skipped = 0

    init(_ audio: ConcatAudio) {
        readers = audio.readers
        edits = audio.track.editList ?? []
        scale = Int64(audio.movieTimescale)
        samples = audio.readers.first?.samples()
    }

    func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.willWriteVideo = { [unowned muxer] time in try self.push(upTo: time, muxer: muxer) }
    }

    private func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws {
        while let sample = try peek() {
            guard current < edits.count else { return }
            let edit = edits[current]
            // Presentation time: the edit's start, plus the sample's place after its media_time.
            let joined = inputStart &+ sample.dts
            let presented = base &+ (joined &- edit.mediaTime)
            let editEnd = base &+ Int64(clamping: edit.segmentDuration)
            if (current > 0 && presented < base) || (current + 1 < edits.count && presented >= editEnd) {
                skipped += 1
                next = nil
                continue
            }
            if let time {
                let left = presented.multipliedFullWidth(by: 90_000)
                let right = time.multipliedFullWidth(by: scale)
                if left.high > right.high || (left.high == right.high && left.low > right.low) { return }
            }
            try readers[current].read(sample, into: &buffer)
            try buffer.withUnsafeBytes { try muxer.pushAudio($0, time: presented, timescale: scale) }
            pushed += 1
            next = nil
        }
    }

    private func peek() throws -> MP4Sample? {
        if let next { return next }
        while current < readers.count {
            if let sample = try samples?.next() {
                inputSamples = sample.dts &+ Int64(sample.duration)
                next = sample
                return sample
            }
            // The next input: its samples follow this one's in the joined timeline.
            inputStart &+= inputSamples
            inputSamples = 0
            if current < edits.count { base &+= Int64(clamping: edits[current].segmentDuration) }
            current += 1
            samples = current < readers.count ? readers[current].samples() : nil
        }
        return nil
    }
}
