public import NALU
public import NALUMP4

/// Copies the samples of MP4 tracks into an ``MP4Writer``'s passthrough tracks unchanged
/// (bytes, durations, composition offsets, sync flags, sample entries), interleaved with the
/// video by decoding time: when the video reaches a track's next sample, about
/// ``chunkDuration`` seconds of that track go in, so chunks alternate as FFmpeg writes them.
///
/// Track `i` of `tracks` goes to writer track `i` (``MP4WriterConfiguration/passthroughTracks``
/// built with ``MP4PassthroughTrack/init(copying:)``). Each track may be limited to a range of
/// decoding times (for trimming): samples outside are skipped, and the kept samples keep their
/// durations, so in the output the first starts at decoding time 0 (the writer builds times
/// from durations); the range's start is then time 0 when comparing with the video's times.
/// Memory: one sample buffer and one look-ahead sample per track.
public final class MP4PassthroughInterleaver<Source: RandomAccessByteSource> {
    /// Seconds of one track appended at a time, as a fraction (1/2).
    public static var chunkDuration: Rational { Rational(1, 2) }

    private struct Lane {
        let reader: MP4TrackReader<Source>
        var samples: MP4SampleIterator<Source>
        var next: MP4Sample?
        let range: Range<Int64>?
        /// ``MP4TrackCut/clip``: media times the samples are clipped to.
        let clip: Range<Int64>?
        var done = false
        var appended = 0
    }

    private var lanes: [Lane]
    private var buffer: [UInt8] = []

    /// - Parameters:
    ///   - tracks: the tracks to copy, in writer track order.
    ///   - decodeTimes: for each track, the decoding times (its timescale) to copy, or `nil`
    ///     for all; `nil` copies every sample of every track.
    public convenience init(tracks: [MP4TrackReader<Source>], decodeTimes: [Range<Int64>?]? = nil) {
        self.init(tracks: tracks, cuts: decodeTimes.map { $0.map { MP4TrackCut(decodeTimes: $0) } } ?? [])
    }

    /// - Parameters:
    ///   - tracks: the tracks to copy, in writer track order.
    ///   - cuts: for each track, how it is cut (``MP4TrackCut``: whole samples in a range of
    ///     decoding times, or samples clipped to a range of media times, a timecode track's
    ///     frame number moved to the range's start); a track without an entry is copied whole.
    public init(tracks: [MP4TrackReader<Source>], cuts: [MP4TrackCut]) {
        lanes = tracks.enumerated().map { index, reader in
            let cut = index < cuts.count ? cuts[index] : nil
            return Lane(reader: reader, samples: reader.samples(), next: nil, range: cut?.decodeTimes, clip: cut?.clip)
        }
    }

    /// Samples appended so far, per track.
    public var appendedSamples: [Int] { lanes.map(\.appended) }

    /// Appends the tracks' samples that are due before a video sample decoding at
    /// `decodeTime` ticks of `timescale`: for each track whose next sample decodes at or before
    /// it, the samples up to ``chunkDuration`` past it. `nil` appends everything left.
    public func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws(NALUError) {
        try NALUError.typed(field: "passthrough track") {
            for index in lanes.indices {
                try fill(index)
                guard let first = lanes[index].next else { continue }
                let trackScale = lanes[index].reader.track.timescale
                guard let decodeTime else {
                    while let sample = lanes[index].next {
                        try append(sample, lane: index, writer: writer)
                    }
                    continue
                }
                let origin = lanes[index].clip?.lowerBound ?? lanes[index].range?.lowerBound ?? 0
                // Due: first.dts / trackScale <= decodeTime / timescale.
                guard Self.compare(first.dts &- origin, trackScale, decodeTime, timescale) <= 0 else { continue }
                // Up to decodeTime / timescale + 1/2 s: 2 · dts · timescale < (2 · decodeTime + timescale) · trackScale.
                let (twice, overflow1) = decodeTime.multipliedReportingOverflow(by: 2)
                let (limit, overflow2) = twice.addingReportingOverflow(Int64(timescale))
                while let sample = lanes[index].next {
                    if !overflow1, !overflow2 {
                        let (sampleTwice, overflow3) = (sample.dts &- origin).multipliedReportingOverflow(by: 2)
                        if overflow3 || Self.compare(sampleTwice, trackScale, limit, timescale) >= 0 { break }
                    }
                    try append(sample, lane: index, writer: writer)
                }
            }
        }
    }

    /// Sign of `a / aScale − b / bScale`, exactly (128-bit products).
    static func compare(_ a: Int64, _ aScale: UInt32, _ b: Int64, _ bScale: UInt32) -> Int {
        let left = a.multipliedFullWidth(by: Int64(bScale))
        let right = b.multipliedFullWidth(by: Int64(aScale))
        if left.high != right.high { return left.high < right.high ? -1 : 1 }
        if left.low != right.low { return left.low < right.low ? -1 : 1 }
        return 0
    }

    private func append<Sink: ByteSink>(_ sample: MP4Sample, lane index: Int, writer: MP4Writer<Sink>) throws(NALUError) {
        lanes[index].next = nil
        var duration = sample.duration
        if let clip = lanes[index].clip {
            // Clipped to the range: the part of the sample inside it.
            let start = max(sample.dts, clip.lowerBound)
            let end = min(sample.dts &+ Int64(sample.duration), clip.upperBound)
            guard end > start, let clipped = UInt32(exactly: end - start) else { return try fill(index) }
            duration = clipped
        }
        try lanes[index].reader.read(sample, into: &buffer)
        if let clip = lanes[index].clip, sample.dts < clip.lowerBound, lanes[index].reader.track.handler == FourCC("tmcd") {
            buffer = try Self.timecode(buffer, of: sample, track: lanes[index].reader.track, advancedBy: clip.lowerBound - sample.dts)
        }
        try writer.append(buffer, track: index, duration: duration, compositionOffset: sample.compositionOffset,
                          isSync: sample.isSync, sampleDescription: sample.sampleDescriptionIndex)
        lanes[index].appended += 1
        try fill(index)
    }

    /// A `tmcd` sample whose first `ticks` are cut: its frame number moved to the frame then
    /// (``MP4TimecodeEntry/advance(_:by:mediaTimescale:)``).
    /// - Throws: ``NALUError`` naming the `tmcd` field that does not read, rather than a timecode
    ///   left at the uncut start.
    static func timecode(_ bytes: [UInt8], of sample: MP4Sample, track: MP4Track, advancedBy ticks: Int64) throws(NALUError) -> [UInt8] {
        let entries = track.sampleEntries
        guard sample.sampleDescriptionIndex >= 1, sample.sampleDescriptionIndex <= entries.count else {
            throw NALUError(.invalidValue, field: "sample_description_index", byteOffset: sample.offset,
                            detail: "timecode sample \(sample.index + 1) names entry \(sample.sampleDescriptionIndex) of \(entries.count)")
        }
        let entry = try MP4TimecodeEntry(sampleEntry: entries[sample.sampleDescriptionIndex - 1])
        guard let frame = MP4TimecodeSample.frame(bytes),
              let moved = entry.advance(frame, by: ticks, mediaTimescale: track.timescale),
              let rewritten = MP4TimecodeSample.replacing(bytes, frame: moved) else {
            throw NALUError(.invalidValue, field: "tmcd sample", byteOffset: sample.offset,
                            detail: "the frame number of timecode sample \(sample.index + 1) (\(bytes.count) bytes) cannot move to the cut's start")
        }
        return rewritten
    }

    /// Looks ahead to the lane's next sample in its range.
    private func fill(_ index: Int) throws(NALUError) {
        guard lanes[index].next == nil, !lanes[index].done else { return }
        while let sample = try lanes[index].samples.next() {
            if let range = lanes[index].range {
                if sample.dts >= range.upperBound { break }
                if sample.dts < range.lowerBound { continue }
            }
            lanes[index].next = sample
            return
        }
        lanes[index].done = true
    }
}

extension MediaSource {
    /// Every track of an MP4/MOV input (``MP4MovieReader`` on the same file), or `nil` for a raw
    /// stream.
    public func movie() throws(NALUError) -> MP4MovieReader<AnyRandomAccessSource>? {
        return try NALUError.typed(field: "moov") {
            guard let mp4 else { return nil }
            return try MP4MovieReader(mp4.source)
        }
    }

    /// The tracks an MP4-to-MP4 conversion copies beside the video read: every track but video
    /// tracks, and but the sound tracks unless `audio`; with the movie timescale to write them
    /// in (the input's, so their edit lists stay exact). `nil` for a raw stream.
    public func passthroughTracks(audio: Bool = true) throws(NALUError) -> (tracks: [MP4TrackReader<AnyRandomAccessSource>], movieTimescale: UInt32)? {
        return try NALUError.typed(field: "moov") {
            guard let movie = try movie(), let video = mp4 else { return nil }
            let tracks = movie.tracks.filter { reader in
                reader.track.trackID != video.track.trackID && reader.track.handler != FourCC("vide") && (audio || !reader.track.isAudio)
            }
            return (tracks, movie.movieTimescale)
        }
    }
}

extension MediaSource {
    /// What an MP4-to-MP4 remux copies of the movie besides the samples (``MP4MovieMetadata``):
    /// `mvhd` times and matrix, `moov`'s `udta` and `meta`, and the video track's times, display
    /// matrix, language, handler name and `udta`. `nil` for a raw stream or a transport stream.
    public func movieMetadata() throws(NALUError) -> MP4MovieMetadata? {
        return try NALUError.typed(field: "moov") {
            guard let movie = try movie(), let video = mp4 else { return nil }
            var metadata = movie.metadata
            if let track = movie.track(id: video.track.trackID) { metadata.video = track.track.metadata }
            return metadata
        }
    }
}
