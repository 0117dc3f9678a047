public import NALU
public import NALUMP4
public import NALUTS

extension MediaSource {
    /// The audio track an MPEG-TS output carries (ADTS, ``TransportStreamMuxer/addAudio(audioSpecificConfig:)``):
    /// the first `mp4a` sound track of an MP4/MOV input with one sample entry whose `esds` holds an
    /// AudioSpecificConfig ADTS can say (ISO/IEC 13818-7 ADTS, ISO/IEC 14496-3 1.6.2.1), with
    /// that config. `nil` for a raw stream or when there is none.
    public func transportStreamAudioTrack() throws -> (reader: MP4TrackReader<AnyRandomAccessSource>, audioSpecificConfig: [UInt8])? {
        guard let movie = try movie() else { return nil }
        for reader in movie.tracks where reader.track.isAudio && reader.track.sampleEntryType == FourCC("mp4a") {
            guard reader.track.sampleEntries.count == 1, let entry = reader.track.sampleEntries.first,
                  let config = try? AudioSpecificConfig.fromSampleEntry(entry),
                  (try? ADTSHeader(audioSpecificConfig: config)) != nil else { continue }
            return (reader, config)
        }
        return nil
    }
}

extension MP4Track {
    /// Where the track's presentation starts (ISO/IEC 14496-12 8.6.6 `elst`): the leading empty
    /// edits' duration in the movie timescale, and the first non-empty edit's `media_time` in
    /// the track's timescale (0 without an edit list).
    public var presentationStart: (delay: UInt64, mediaTime: Int64) { editListStart(editList) }
}

/// The leading empty edits' duration and the first non-empty edit's `media_time` of `editList`.
func editListStart(_ editList: [MP4EditListEntry]) -> (delay: UInt64, mediaTime: Int64) {
    var delay: UInt64 = 0
    for edit in editList {
        // Other negative media times are malformed: taken as 0.
        guard edit.mediaTime == -1 else { return (delay, max(0, edit.mediaTime)) }
        let (sum, overflow) = delay.addingReportingOverflow(edit.segmentDuration)
        delay = overflow ? delay : sum
    }
    return (delay, 0)
}

/// Feeds an MP4 AAC track's samples to a ``TransportStreamMuxer`` interleaved with its video:
/// before each access unit, the audio frames presented up to its decoding time go in, so audio
/// and video are never more than one frame apart in the file. Times keep the MP4's A/V offset:
/// a sample's time from the video's first picture is its decode time minus the audio edit's
/// `media_time`, plus the audio's leading empty edits minus the video's (movie timescale).
/// Memory: one sample buffer, reused.
public final class TransportStreamAudioFeeder {
    private let reader: MP4TrackReader<AnyRandomAccessSource>
    private var samples: MP4SampleIterator<AnyRandomAccessSource>
    private var next: MP4Sample?
    private var done = false
    private var buffer: [UInt8] = []
    private let range: Range<Int64>?
    /// Added to a sample's decode time (track timescale) to give its time from the video's start.
    private let shift: Int64
    /// Frames pushed so far.
    public private(set) var pushedFrames = 0

    /// - Parameters:
    ///   - videoDelay: the video's leading empty edits (movie timescale).
    ///   - decodeTimes: the decoding times (track timescale) to carry, `nil` for all; the range's
    ///     start is then the video's start.
    ///   - origin: the decode time (track timescale) presented with the video's first picture,
    ///     when the caller knows it (a cut); it replaces the edit lists' offset.
    public init(reader: MP4TrackReader<AnyRandomAccessSource>, movieTimescale: UInt32, videoDelay: UInt64,
                decodeTimes: Range<Int64>? = nil, origin: Int64? = nil) {
        self.reader = reader
        samples = reader.samples()
        range = decodeTimes
        let start = reader.track.presentationStart
        let scale = Int64(reader.track.timescale)
        let movie = Int64(max(1, movieTimescale))
        // (audioDelay − videoDelay) in the track's timescale; delays beyond 2^31 movie ticks are clamped.
        let audioDelay = Int64(min(start.delay, UInt64(Int32.max)))
        let videoDelay = Int64(min(videoDelay, UInt64(Int32.max)))
        let delay = (audioDelay - videoDelay) * scale / movie
        // Wrapping arithmetic: a malformed file's times give wrong times, never a trap.
        shift = origin.map { 0 &- $0 } ?? decodeTimes.map { 0 &- $0.lowerBound } ?? (delay &- start.mediaTime)
    }

    /// Wires the feeder to `muxer`: its ``TransportStreamMuxer/willWriteVideo`` (which keeps the
    /// feeder) pushes the due frames.
    public func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.willWriteVideo = { [unowned muxer] time in try self.push(upTo: time, muxer: muxer) }
    }

    /// Pushes the frames whose time is at or before `time` (90 kHz from the video's start), or
    /// all that are left for `nil`.
    public func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws {
        let scale = Int64(reader.track.timescale)
        while let sample = try peek() {
            let (sampleTime, overflow) = sample.dts.addingReportingOverflow(shift)
            guard !overflow else { throw NALUError(.doesNotFit, field: "audio decode time", detail: "\(sample.dts)") }
            if let time {
                // sampleTime / scale > time / 90000: not due yet.
                let left = sampleTime.multipliedFullWidth(by: 90_000)
                let right = time.multipliedFullWidth(by: scale)
                if left.high > right.high || (left.high == right.high && left.low > right.low) { return }
            }
            try reader.read(sample, into: &buffer)
            try buffer.withUnsafeBytes { try muxer.pushAudio($0, time: sampleTime, timescale: scale) }
            pushedFrames += 1
            next = nil
        }
    }

    private func peek() throws -> MP4Sample? {
        if let next { return next }
        guard !done else { return nil }
        while let sample = try samples.next() {
            if let range {
                if sample.dts >= range.upperBound { break }
                if sample.dts < range.lowerBound { continue }
            }
            next = sample
            return sample
        }
        done = true
        return nil
    }
}
