// Every track of an MP4/MOV movie as `nalu info` lists it and as a cut clips it (issue 41 items
// 12, 14, 16): the input is a file. Opening it gives a movie or a typed error; its track list
// (MovieTrackSummary: audio sample entries of QuickTime versions 0–2, `tmcd` entries and first
// samples) has one entry per track; the location (`udta` ©xyz, `meta` keys) reads or is nil; a
// timecode entry that parses labels and moves frame numbers without trapping, a move by 0 ticks
// keeping the number; a clipped cut of every track to the middle third of its media keeps the
// clip asked for and starts at or before it.
import NALU
import NALUMP4
import NALUMedia

enum TracksHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        guard let movie = try? MP4MovieReader(MemoryRandomAccessSource(bytes)) else { return }
        let summaries = MovieTrackSummary.list(movie)
        try fuzzCheck(summaries.count == movie.tracks.count, "\(summaries.count) summaries of \(movie.tracks.count) tracks")
        _ = movie.metadata.location
        for reader in movie.tracks {
            let track = reader.track
            if track.handler == FourCC("tmcd") {
                for entry in track.sampleEntries {
                    guard let timecode = try? MP4TimecodeEntry(sampleEntry: entry) else { continue }
                    for frame: Int64 in [0, 1, 107_892, -1, Int64(Int32.max), Int64(Int32.min)] {
                        _ = timecode.label(frame: frame)
                        if timecode.flags & MP4TimecodeEntry.twentyFourHourMaxFlag == 0 {
                            let same = timecode.advance(frame, by: 0, mediaTimescale: max(1, track.timescale))
                            try fuzzCheck(same == frame, "a move by 0 ticks gave \(String(describing: same)) for \(frame)")
                        }
                        _ = timecode.advance(frame, by: Int64.max / 2, mediaTimescale: max(1, track.timescale))
                    }
                }
            }
            guard MP4TrackCut.clipsSamples(track) else { continue }
            var end: Int64 = 0
            var count = 0
            var iterator = reader.samples()
            while count < MP4Harness.sampleLimit, let sample = try? iterator.next() {
                end = max(end, sample.dts &+ Int64(sample.duration))
                count += 1
            }
            guard count < MP4Harness.sampleLimit, end > 3 else { continue }
            let range = (end / 3)..<(end / 3 * 2)
            guard let cut = try? MP4TrackCut.clipping(reader, to: range) else { continue }
            try fuzzCheck(cut.clip == range, "clipped to \(String(describing: cut.clip)), asked \(range)")
            if let times = cut.decodeTimes {
                try fuzzCheck(times.lowerBound <= range.lowerBound && times.upperBound == range.upperBound,
                              "kept \(times) for the clip \(range)")
            }
        }
    }
}
