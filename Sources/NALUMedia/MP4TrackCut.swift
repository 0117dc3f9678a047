public import NALU
public import NALUMP4

/// How ``MP4PassthroughInterleaver`` cuts one copied track.
///
/// - An **edit-list cut** (audio: a sound sample cannot be split) keeps whole samples, those
///   whose decoding times are in ``decodeTimes``, with their durations; the track's edit list
///   (ISO/IEC 14496-12 8.6.6) shows the range from inside them.
/// - A **clipped cut** (``clip`` set: subtitles, timecode, timed metadata — a sample is a state
///   that holds for its duration) keeps the samples whose time overlaps ``clip`` and clips the
///   first one's start and the last one's end to it, so the output track starts at the range's
///   start with no edit into it, as ffmpeg's `-ss/-to -c copy` cuts a subtitle track. A timecode
///   track's (`tmcd`) first sample is rewritten to the frame number of the range's start
///   (``MP4TimecodeEntry/advance(_:by:mediaTimescale:)``): the timecode follows the cut.
public struct MP4TrackCut: Hashable, Sendable {
    /// The decoding times of the samples kept (the track's timescale), `nil` for all.
    public var decodeTimes: Range<Int64>?
    /// The media times kept, samples clipped to them; `nil` keeps samples whole.
    public var clip: Range<Int64>?

    public init(decodeTimes: Range<Int64>?, clip: Range<Int64>? = nil) {
        self.decodeTimes = decodeTimes
        self.clip = clip
    }

    /// Whether `track` is cut by clipping its samples rather than by an edit list: every track
    /// but sound and video.
    public static func clipsSamples(_ track: MP4Track) -> Bool {
        !track.isAudio && track.handler != FourCC("vide")
    }

    /// The clipped cut of `reader` to the media times `range` (the track's timescale): the
    /// samples from the one covering `range.lowerBound` to the last starting before its end;
    /// `nil` when none overlaps. Reads the sample table once.
    /// - Throws: ``NALU/NALUError`` (typed): a malformed sample table, naming the field and its byte offset.
    public static func clipping(_ reader: MP4TrackReader<some RandomAccessByteSource>, to range: Range<Int64>) throws(NALUError) -> MP4TrackCut? {
        guard !range.isEmpty else { return nil }
        var first: Int64?
        try NALUError.typed(field: "samples") { try reader.forEachSample(decodeTimes: Int64.min..<range.upperBound) { sample in
            if first == nil, sample.dts &+ Int64(sample.duration) > range.lowerBound { first = sample.dts }
        } }
        guard let first else { return nil }
        return MP4TrackCut(decodeTimes: first..<range.upperBound, clip: range)
    }

    /// The cut of a copied track given as an edit into its samples (as a cut of audio is): the
    /// samples at `decodeTimes`, shown from `mediaTime` for `segmentDuration` (movie timescale),
    /// after `delay` of nothing. For a track that ``clipsSamples(_:)``, the samples are clipped
    /// to those times instead and the edit starts at 0; returns the cut and the edit list to write.
    public static func cut(track: MP4Track, decodeTimes: Range<Int64>, mediaTime: Int64, segmentDuration: UInt64, delay: UInt64 = 0,
                           movieTimescale: UInt32) -> (cut: MP4TrackCut, editList: [MP4EditListEntry]) {
        let empty = delay > 0 ? [MP4EditListEntry(segmentDuration: delay, mediaTime: -1)] : []
        guard clipsSamples(track), movieTimescale > 0 else {
            return (MP4TrackCut(decodeTimes: decodeTimes), empty + [MP4EditListEntry(segmentDuration: segmentDuration, mediaTime: mediaTime)])
        }
        let start = decodeTimes.lowerBound &+ mediaTime
        let length = CheckedNumber.rescale(Int64(clamping: segmentDuration), from: Int64(movieTimescale), to: Int64(track.timescale)) ?? 0
        let end = min(decodeTimes.upperBound, CheckedNumber.sum(start, length) ?? Int64.max)
        let clip = start..<max(start, end)
        return (MP4TrackCut(decodeTimes: decodeTimes.lowerBound..<clip.upperBound, clip: clip),
                empty + [MP4EditListEntry(segmentDuration: segmentDuration, mediaTime: 0)])
    }
}
