public import NALU
public import NALUMP4

/// How one track of an MP4/MOV input that is neither video nor sound (subtitles `tx3g`/`text`/
/// `wvtt`, a QuickTime timecode `tmcd`, timed metadata) is cut to a ``TrimPlan``: its samples
/// clipped to the presented range (``MP4TrackCut/clip``), so the track starts where the cut does,
/// as ffmpeg's `-ss/-to -c copy` cuts a subtitle track; a timecode track's sample rewritten to
/// the timecode of the first picture shown (issue 41, items 12 and 14).
public struct TrimTrackCut {
    /// The track read.
    public let reader: MP4TrackReader<AnyRandomAccessSource>
    /// The samples kept and the media times they are clipped to (the track's timescale).
    public let cut: MP4TrackCut
    /// The output track's edit list: the video's presented duration (movie timescale) from
    /// media time 0, after an empty edit when the track starts later (a timecode starts with
    /// the first picture shown, which may present after the range's start).
    public let editList: [MP4EditListEntry]

    /// The cuts of every track of `source` (an MP4/MOV) other than video and sound for `plan`,
    /// in a movie whose timescale is `movieTimescale` and whose video presents for
    /// `segmentDuration` of it. A track's presentation time from the video's first picture is
    /// its media time less its edit's `media_time`, plus its leading empty edits less the
    /// video's, as for audio (``TrimAudioCut``). Tracks with no sample in the range are left out
    /// (nothing of them presents there): `emptyInRange` lists their track_IDs.
    /// - Throws: ``NALU/NALUError`` (typed): a malformed sample table, naming the field and its byte offset.
    public static func cuts(for plan: TrimPlan, source: MediaSource, segmentDuration: UInt64,
                            movieTimescale: UInt32) throws(NALUError) -> (cuts: [TrimTrackCut], emptyInRange: [UInt32]) {
        guard let movie = try source.movie(), let video = source.mp4, movieTimescale > 0 else { return ([], []) }
        let videoDelay = CheckedNumber.int64(min(editListStart(video.track.editList).delay, UInt64(Int32.max))) ?? 0
        let inputMovieScale = Int64(max(1, movie.movieTimescale))
        var cuts: [TrimTrackCut] = []
        var empty: [UInt32] = []
        for reader in movie.tracks where reader.track.trackID != video.track.trackID && MP4TrackCut.clipsSamples(reader.track) {
            let scale = Int64(reader.track.timescale)
            guard scale > 0 else { continue }
            let start = reader.track.presentationStart
            let delay = CheckedNumber.int64(min(start.delay, UInt64(Int32.max))) ?? 0
            // Media time of presentation time 0 (the video's first picture).
            guard let lead = CheckedNumber.rescale(delay - videoDelay, from: inputMovieScale, to: scale) else { continue }
            let origin = start.mediaTime &- lead
            let isTimecode = reader.track.handler == FourCC("tmcd")
            // A timecode names the first picture shown; other tracks cover the range from its start.
            let presented = (isTimecode ? plan.startingAtFirstPicture : plan).presentedRange(timescale: scale)
            // To the video's end: its presented duration (`segmentDuration`), as the audio's edit.
            let length = CheckedNumber.rescale(CheckedNumber.int64(segmentDuration) ?? Int64.max, from: Int64(movieTimescale), to: scale)
            guard let low = CheckedNumber.sum(presented.lowerBound, origin),
                  let high = CheckedNumber.sum(isTimecode ? presented.upperBound : (length.map { presented.lowerBound &+ $0 } ?? presented.upperBound), origin)
            else { continue }
            guard let cut = try MP4TrackCut.clipping(reader, to: low..<high) else {
                empty.append(reader.track.trackID)
                continue
            }
            var edits: [MP4EditListEntry] = []
            var segment = segmentDuration
            if isTimecode {
                let full = plan.presentedRange(timescale: scale)
                let gap = CheckedNumber.rescale(max(0, presented.lowerBound &- full.lowerBound), from: scale, to: Int64(movieTimescale)) ?? 0
                if gap > 0, UInt64(gap) < segment {
                    edits.append(MP4EditListEntry(segmentDuration: UInt64(gap), mediaTime: -1))
                    segment -= UInt64(gap)
                }
            }
            edits.append(MP4EditListEntry(segmentDuration: segment, mediaTime: 0))
            cuts.append(TrimTrackCut(reader: reader, cut: cut, editList: edits))
        }
        return (cuts, empty)
    }
}

extension TrimTrackCut {
    /// The tracks a cut copies beside the video, in writer track order: the sound tracks cut by
    /// edit lists (``TrimAudioCut``), then the others clipped: their descriptions with the cut's
    /// edit lists, readers and cuts for ``MP4PassthroughInterleaver/init(tracks:cuts:)``.
    public static func copied(audio: [TrimAudioCut], others: [TrimTrackCut])
        -> (tracks: [MP4PassthroughTrack], readers: [MP4TrackReader<AnyRandomAccessSource>], cuts: [MP4TrackCut]) {
        var tracks: [MP4PassthroughTrack] = []
        var readers: [MP4TrackReader<AnyRandomAccessSource>] = []
        var cuts: [MP4TrackCut] = []
        for cut in audio {
            var track = MP4PassthroughTrack(copying: cut.reader.track)
            track.editList = cut.editList
            tracks.append(track)
            readers.append(cut.reader)
            cuts.append(MP4TrackCut(decodeTimes: cut.decodeTimes))
        }
        for cut in others {
            var track = MP4PassthroughTrack(copying: cut.reader.track)
            track.editList = cut.editList
            tracks.append(track)
            readers.append(cut.reader)
            cuts.append(cut.cut)
        }
        return (tracks, readers, cuts)
    }
}
