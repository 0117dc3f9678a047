public import NALU
public import NALUMP4

/// How one audio track of an MP4/MOV input is cut to a ``TrimPlan``: the samples whose decode
/// times overlap the presented range widened by one frame on each side, and the edit list
/// (ISO/IEC 14496-12 8.6.6) that presents exactly the video's range from them.
public struct TrimAudioCut {
    /// The track read.
    public let reader: MP4TrackReader<AnyRandomAccessSource>
    /// The decoding times kept (the track's timescale).
    public let decodeTimes: Range<Int64>
    /// The output track's edit list: `media_time` the range's start on the kept samples'
    /// timeline (which starts at the first kept sample), `segment_duration` the video's presented
    /// duration in the movie timescale.
    public let editList: [MP4EditListEntry]
    /// Samples kept.
    public let sampleCount: Int

    /// The cut of every sound track of `source` (an MP4/MOV) for `plan`, in a movie whose
    /// timescale is `movieTimescale` and whose video presents for `segmentDuration` of it.
    /// A track's presentation time from the video's first picture is its decode time minus its
    /// edit's `media_time`, plus its leading empty edits minus the video's, as a player sees it.
    /// Tracks with no sample in the range are left out.
    public static func cuts(for plan: TrimPlan, source: MediaSource, segmentDuration: UInt64) throws(NALUError) -> [TrimAudioCut] {
        return try NALUError.typed(field: "audio track") {
            guard let movie = try source.movie(), let video = source.mp4 else { return [] }
            let videoDelay = Int64(min(editListStart(video.track.editList).delay, UInt64(Int32.max)))
            let inputMovieScale = Int64(max(1, movie.movieTimescale))
            var cuts: [TrimAudioCut] = []
            for reader in movie.tracks where reader.track.isAudio {
                let scale = Int64(reader.track.timescale)
                guard scale > 0 else { continue }
                let start = reader.track.presentationStart
                let audioDelay = Int64(min(start.delay, UInt64(Int32.max)))
                // Media time of presentation time 0 (the video's first picture).
                let origin = start.mediaTime &- (audioDelay - videoDelay) * scale / inputMovieScale
                let presented = plan.presentedRange(timescale: scale)
                let (low, overflowLow) = presented.lowerBound.addingReportingOverflow(origin)
                let (high, overflowHigh) = presented.upperBound.addingReportingOverflow(origin)
                guard !overflowLow, !overflowHigh else { continue }
                // The samples that overlap [low, high), then one more on each side.
                var previous: Int64?
                var first: Int64?
                var end: Int64?
                var count = 0
                var extraAfter = false
                try reader.forEachSample { sample in
                    guard end == nil else { return }
                    let sampleEnd = sample.dts &+ Int64(sample.duration)
                    if first == nil {
                        if sampleEnd > low {
                            first = previous ?? sample.dts
                            count = previous == nil ? 1 : 2
                        } else {
                            previous = sample.dts
                        }
                        if first != nil, sampleEnd >= high { extraAfter = true }
                        return
                    }
                    count += 1
                    if extraAfter { end = sampleEnd; return }
                    if sampleEnd >= high { extraAfter = true }
                }
                guard let first else { continue }
                let upper = end ?? Int64.max
                let (difference, overflow) = low.subtractingReportingOverflow(first)
                let mediaTime = overflow ? 0 : max(0, difference)
                cuts.append(TrimAudioCut(reader: reader, decodeTimes: first..<upper,
                                         editList: [MP4EditListEntry(segmentDuration: segmentDuration, mediaTime: mediaTime)],
                                         sampleCount: count))
            }
            return cuts
        }
    }
}
