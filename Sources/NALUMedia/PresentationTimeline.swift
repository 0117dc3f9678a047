public import NALU
public import NALUMP4

/// The presentation timeline of an input as players and ffmpeg's command line count it: every
/// track's edit list applied (ISO/IEC 14496-12 8.6.6), zero at the earliest audio or video
/// track's start. Every time a user types (`--start`, `--end`, `--keep`) is on it, and every
/// path that cuts or moves tracks (trim, smart trim, keep, encode `--start/--end`, MP4 → MPEG-TS)
/// takes where the video starts on it from here.
///
/// - **MP4/MOV**: a track starts at its leading empty edits' duration (the movie timescale) plus
///   how far its earliest composition time at or after the first non-empty edit's `media_time`
///   lies past that `media_time` (an input without an edit list whose first picture has a
///   composition offset, as a fragmented CMAF file's video: it starts at that offset).
/// - **MPEG-TS**: a stream starts at its first PTS (ISO/IEC 13818-1 2.4.3.7); the program at the
///   earliest of its video's and its AAC's.
/// - **Elementary streams**: the video alone, from 0.
///
/// Times are in ticks of the video track's clock (``timescale``: an MP4 track's timescale, or
/// 90 kHz), on the video's own presentation clock: an MP4 composition time less the video edit's
/// `media_time`, a transport stream's PTS.
public struct PresentationTimeline: Hashable, Sendable {
    /// Ticks per second of the times.
    public let timescale: Int64
    /// The earliest start among the input's tracks other than its video, on the video's
    /// presentation clock (may be before or after the video's first picture); `nil` when there
    /// is no other audio or video track with a sample.
    public let otherTracksStart: Int64?

    /// The timeline of `source`.
    /// - Throws: ``NALUError`` what reading the other tracks' sample tables throws.
    public init(source: MediaSource) throws(NALUError) {
        if let video = source.mp4 {
            let track = video.track
            timescale = Int64(max(1, track.timescale))
            otherTracksStart = try Self.mp4OtherTracksStart(source: source, video: track)
        } else if source.container.isTransportStream {
            timescale = 90_000
            // The AAC's first PTS: the video's PTS are on the same 33-bit clock.
            otherTracksStart = try source.transportStreamAudio().map { SampleClock.unwrap($0.firstPTS, near: source.transportStreamVideoStart ?? $0.firstPTS) }
        } else {
            timescale = 1
            otherTracksStart = nil
        }
    }

    /// Where the video's first picture presents on the timeline (from its zero, never negative),
    /// given where it presents on the video's own presentation clock (``TrimIndex/firstPictureTime``).
    public func videoStart(firstPicture: Int64) -> Int64 {
        guard let otherTracksStart, otherTracksStart < firstPicture else { return 0 }
        return CheckedNumber.sum(firstPicture, 0 &- otherTracksStart) ?? 0
    }

    /// The earliest start of an MP4's other audio and video tracks, in the video's ticks on its
    /// presentation clock (which starts at the video's leading empty edits).
    static func mp4OtherTracksStart(source: MediaSource, video: MP4VideoTrack) throws(NALUError) -> Int64? {
        guard let movie = try source.movie() else { return nil }
        let videoScale = Int64(max(1, video.timescale))
        let movieScale = Int64(max(1, movie.movieTimescale))
        let videoDelay = CheckedNumber.int64(video.presentationStart.delay) ?? 0
        var earliest: Int64?
        for reader in movie.tracks where reader.track.trackID != video.trackID {
            let other = reader.track
            guard other.isAudio || other.handler == FourCC("vide"), other.timescale > 0 else { continue }
            let start = other.presentationStart
            // Its earliest composition time at or after the edit's media_time.
            var first: Int64?
            var iterator = reader.samples()
            var seen = 0
            while let sample = try iterator.next(), seen < 64 {
                seen += 1
                if sample.pts >= start.mediaTime { first = min(first ?? sample.pts, sample.pts) }
                if other.isAudio, first != nil { break }
            }
            guard let first else { continue }
            guard let delay = CheckedNumber.int64(start.delay),
                  let lead = CheckedNumber.rescale(delay &- videoDelay, from: movieScale, to: videoScale),
                  let offset = CheckedNumber.rescale(first &- start.mediaTime, from: Int64(other.timescale), to: videoScale),
                  let time = CheckedNumber.sum(lead, offset) else { continue }
            earliest = min(earliest ?? time, time)
        }
        return earliest
    }
}

extension MP4VideoTrack {
    /// Where the track's presentation starts (ISO/IEC 14496-12 8.6.6 `elst`): the leading empty
    /// edits' duration in the movie timescale, and the first non-empty edit's `media_time` in
    /// the track's timescale (0 without an edit list).
    public var presentationStart: (delay: UInt64, mediaTime: Int64) { editListStart(editList) }
}

extension MediaSource {
    /// The video track's composition time (ticks of its timescale) that presents at the same
    /// instant as `track`'s first non-empty edit's `media_time` (ISO/IEC 14496-12 8.6.6): the
    /// video edit's `media_time` moved by the difference of the two tracks' leading empty edits.
    /// A video time `t` is then `track`'s media time `media_time + (t − this)` (rescaled): how an
    /// audio track is cut to a range of video times. 0 for an input that is no MP4/MOV.
    public func videoTime(alignedWith track: MP4Track) throws(NALUError) -> Int64 {
        return try NALUError.typed(field: "edit list") {
            guard let video = mp4?.track else { return 0 }
            let start = video.presentationStart
            let lead = (CheckedNumber.int64(track.presentationStart.delay) ?? 0) &- (CheckedNumber.int64(start.delay) ?? 0)
            let shift = CheckedNumber.rescale(lead, from: Int64(max(1, video.movieTimescale)), to: Int64(max(1, video.timescale))) ?? 0
            return try videoMediaOrigin() &+ shift
        }
    }

    /// The video track's media time that presents at the start of its presentation, as ffmpeg
    /// and the players built on it show an edit list (ISO/IEC 14496-12 8.6.6): the first
    /// non-empty edit's `media_time`, or, when it falls inside a picture (a cut at a time between
    /// two pictures, `ffmpeg -ss 3.3 -c copy` of 25 fps video), the composition time of the
    /// first picture after it (within one picture's duration): ffmpeg drops the picture the edit
    /// starts inside and presents the next at the start, with the audio's `media_time`. What
    /// every path that moves the video's times (MP4 → MPEG-TS, cuts, encode) counts from, so
    /// the audio keeps its place against the pictures as ffmpeg shows them. 0 without an edit
    /// list; 0 for an input that is no MP4/MOV.
    public func videoMediaOrigin() throws(NALUError) -> Int64 {
        return try NALUError.typed(field: "edit list") {
            guard let mp4 else { return 0 }
            guard let edit = mp4.track.editList.first(where: { $0.mediaTime >= 0 }) else { return 0 }
            let mediaTime = edit.mediaTime
            var next: Int64?
            var exact = false
            try mp4.forEachSample { sample in
                guard !exact, sample.pts >= mediaTime else { return }
                if sample.pts == mediaTime { exact = true }
                if sample.pts - mediaTime < Int64(sample.duration), sample.pts < next ?? Int64.max { next = sample.pts }
            }
            return exact ? mediaTime : next ?? mediaTime
        }
    }
}
