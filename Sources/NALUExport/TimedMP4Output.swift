public import NALU
public import NALUEncoder
import NALUIO
public import NALUMP4
public import NALUMedia

/// MP4 output of a transcode (``ExportSession``, `nalu encode IN`; issue 33 item 4): every encoded
/// picture keeps its source pts (variable frame rates included) through the muxer's source-timed
/// path (``MP4Muxer/useSourceTiming(timescale:lookup:)``), in the input track's timescale, and an
/// MP4/MOV input's other tracks (audio, subtitles) are copied beside the video as `nalu convert`
/// copies them, interleaved by decoding time.
///
/// The file is opened at the first packet: its decoding time is the origin of the output's
/// sample table, which the edit list (ISO/IEC 14496-12 8.6.6) refers to.
public final class TimedMP4Output {
    private let path: String
    private let codec: Codec
    private let options: MP4MuxerOptions
    private let source: MediaSource
    private let timescale: UInt32
    /// The presented range kept (`--start/--end`), in ticks of `timescale` of the source's pts,
    /// or `nil` for everything.
    private let keptRange: Range<Int64>?
    private let copyAudio: Bool
    /// A chunk of a distributed encode: each audio sample goes to the one chunk its decoding
    /// time falls in, so that the joined chunks hold every sample once.
    private let chunk: (first: Bool, last: Bool)?
    private var file: MP4FileSink?
    /// The packets' NAL units into the muxer, their times kept until it looks them up.
    private let packets = TimedPacketFeed()
    private var firstDecode: Int64?
    /// Copied track descriptions, for the summary.
    public private(set) var copiedTracks: [String] = []
    /// The tracks carried (a transport stream's AAC as `0x1_0000 | PID`), for
    /// ``NALUMedia/MediaSource/tracksLeftOut(carried:noAudio:to:)``.
    public let carried: Set<UInt32>
    /// A transport stream input's audio streams (AAC, AC-3, MPEG audio), each carried as a
    /// sound track of its own (``NALUMedia/TransportStreamAudioReader/mp4Track``).
    private let transportStreamAudio: [TransportStreamAudioReader]

    /// - Parameters:
    ///   - path: the output, written through ``NALUIO/FileSink`` (a temporary name renamed into
    ///     place by ``finish()``), opened at the first packet.
    ///   - options: the muxer's layout, sample entry and limits (its frame rate is ignored: the
    ///     pictures keep their source times).
    ///   - timeBase: the packets' time base (1/timescale of the source track, 1/90000 for TS).
    ///   - keptRange: the source pts kept (`--start/--end`); the edit list then presents from
    ///     its first picture, and the audio is cut to the same range.
    ///   - copyAudio: whether the audio tracks are copied (the other tracks always are).
    ///   - chunk: a chunk of a distributed encode: whether it is the first and the last.
    /// - Throws: ``NALU/NALUError``: a time base not 1/N, or reading the input's tracks.
    public init(path: String, codec: Codec, options: MP4MuxerOptions, source: MediaSource, timeBase: Rational,
                keptRange: Range<Int64>?, copyAudio: Bool, chunk: (first: Bool, last: Bool)? = nil) throws(NALUError) {
        do {
            self.chunk = chunk
            guard timeBase.numerator == 1, timeBase.denominator > 0, timeBase.denominator <= Int64(UInt32.max) else {
                throw NALUError(.invalidValue, field: "timeBase", detail: "\(timeBase): not 1/N with N in 32 bits")
            }
            self.path = path
            self.codec = codec
            self.options = options
            self.source = source
            self.timescale = UInt32(timeBase.denominator)
            self.keptRange = keptRange
            self.copyAudio = copyAudio
            transportStreamAudio = copyAudio ? try source.transportStreamAudioStreams() : []
            var carried = Set(try source.passthroughTracks(audio: copyAudio)?.tracks.map(\.track.trackID) ?? [])
            for audio in transportStreamAudio { carried.insert(UInt32(audio.pid) | 0x1_0000) }
            self.carried = carried
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    private func open(firstDecode: Int64, firstPresentation: Int64) throws -> MP4FileSink {
        var muxer = options
        muxer.frameRate = nil
        // The movie's rotation, creation times and user data (location) follow the pictures,
        // as they do through convert and trim (issue 41 item 11).
        muxer.metadata = try outputMetadata(from: source, output: path)
        var tracks: [MP4TrackReader<AnyRandomAccessSource>] = []
        var cuts: [MP4TrackCut] = []
        if let copied = try source.passthroughTracks(audio: copyAudio), !copied.tracks.isEmpty {
            tracks = copied.tracks
            // A chunk's movie is timed in the video's timescale, so that its edit lasts exactly
            // its pictures' time and the joined chunks neither gain nor lose a tick.
            muxer.movieTimescale = chunk == nil ? copied.movieTimescale : timescale
            var passthrough = tracks.map { MP4PassthroughTrack(copying: $0.track) }
            if let keptRange {
                // Each copied track cut to the kept range: the samples whose decoding times
                // overlap it, presented from the range's start.
                for (index, reader) in tracks.enumerated() {
                    // (A chunk's subtitles and timecode are clipped to its pictures, as a cut's.)
                    let cut = try Self.cut(reader, presented: keptRange, videoTimescale: timescale, videoOrigin: try source.videoTime(alignedWith: reader.track),
                                           movieTimescale: muxer.movieTimescale ?? timescale,
                                           chunk: MP4TrackCut.clipsSamples(reader.track) ? nil : chunk)
                    // Subtitles and timecode clipped to the range, the timecode moved (issue 41 item 14).
                    let trackCut = cut.map {
                        MP4TrackCut.cut(track: reader.track, decodeTimes: $0.range, mediaTime: $0.mediaTime, segmentDuration: $0.segment,
                                        delay: $0.delay, movieTimescale: muxer.movieTimescale ?? timescale)
                    }
                    cuts.append(trackCut?.cut ?? MP4TrackCut(decodeTimes: nil))
                    passthrough[index].editList = trackCut?.editList
                }
            }
            muxer.passthroughTracks = passthrough
        }
        var transportStreamFeeders: [TransportStreamAudioMP4Feeder] = []
        if !transportStreamAudio.isEmpty {
            // A transport stream's audio streams as sound tracks, in program map order, each
            // timed against where the first picture kept presents (90 kHz, as the video's pts),
            // cut to the range.
            muxer.movieTimescale = TransportStreamAudioMP4Feeder.movieTimescale
            muxer.passthroughTracks = []
            let presented = keptRange.map { UInt64(max(0, rescale(tickSpan($0), from: Int64(timescale), to: Int64(TransportStreamAudioMP4Feeder.movieTimescale)))) }
            for (index, audio) in transportStreamAudio.enumerated() {
                let origin = keptRange?.lowerBound ?? audio.origin(in: source)
                muxer.passthroughTracks.append(audio.mp4Track(origin: origin))
                transportStreamFeeders.append(TransportStreamAudioMP4Feeder(reader: audio, track: index, origin: origin, range: keptRange,
                                                                            presentedDuration: presented))
                copiedTracks.append("\(audio.coding == .aac ? "AAC" : audio.coding == .ac3 ? "AC-3" : "MPEG audio") PID \(audio.pid)")
            }
        }
        let movieTimescale = muxer.movieTimescale ?? timescale
        if keptRange == nil, let edits = source.videoEditList(decodeOrigin: firstDecode, movieTimescale: movieTimescale), !edits.isEmpty {
            // The input's own edit list, on the output's sample times (the pts are the input's).
            muxer.editList = edits
            muxer.editListFollowsSampleTimes = true
        } else if let keptRange {
            // The range is on the presentation timeline: when its first picture presents after
            // the range's start (another track starts first, or --start falls between
            // pictures), an empty edit holds its place.
            let gap = max(0, firstPresentation &- keptRange.lowerBound)
            let duration = max(0, tickSpan(keptRange) - gap)
            let delay = UInt64(max(0, rescale(gap, from: Int64(timescale), to: Int64(movieTimescale))))
            let segment = UInt64(max(0, rescale(duration, from: Int64(timescale), to: Int64(movieTimescale), roundingUp: true)))
            muxer.editList = (delay > 0 ? [MP4EditListEntry(segmentDuration: delay, mediaTime: -1)] : [])
                + [MP4EditListEntry(segmentDuration: segment, mediaTime: firstPresentation - firstDecode)]
            muxer.editListFollowsSampleTimes = true
        } else if let delay = Self.firstPictureDelay(source, firstPresentation: firstPresentation,
                                                     movieTimescale: movieTimescale, timescale: timescale) {
            muxer.videoStartDelay = delay
        }
        let sink = try MP4FileSink(codec: codec, output: try FileSink(path: path), options: muxer)
        try sink.muxer.useSourceTiming(timescale: timescale, lookup: { [weak self] offset in self?.packets.timing(at: offset) })
        if !transportStreamFeeders.isEmpty {
            sink.muxer.willAppendVideoSample = { (writer, time, scale) throws(NALUError) in
                for feeder in transportStreamFeeders { try feeder.advance(to: time, timescale: scale, writer: writer) }
            }
        }
        if !tracks.isEmpty {
            let interleaver = MP4PassthroughInterleaver(tracks: tracks, cuts: cuts)
            sink.muxer.willAppendVideoSample = { (writer, time, scale) throws(NALUError) in
                try interleaver.advance(to: time, timescale: scale, writer: writer)
            }
            copiedTracks = tracks.map { "track \($0.track.trackID) (\($0.track.handler))" }
        }
        return sink
    }

    /// The samples of `reader` whose presentation overlaps the video's `presented` pts (ticks
    /// of `videoTimescale`, the video's presentation 0 at `videoOrigin`): their decoding times,
    /// and the edit that shows them from the range's start for its length. A chunk's audio
    /// (the samples whose decoding time falls in it) starts inside the chunk: `delay` (movie
    /// timescale) is the empty edit before it, so it plays where it did in the source and
    /// `nalu concat` places it there (``NALUMedia/ConcatAudio``).
    static func cut(_ reader: MP4TrackReader<AnyRandomAccessSource>, presented: Range<Int64>, videoTimescale: UInt32, videoOrigin: Int64,
                    movieTimescale: UInt32, chunk: (first: Bool, last: Bool)? = nil)
        throws -> (range: Range<Int64>, mediaTime: Int64, segment: UInt64, delay: UInt64)? {
        let scale = Int64(reader.track.timescale)
        guard scale > 0, videoTimescale > 0 else { return nil }
        let origin = reader.track.presentationStart.mediaTime
        func toTrack(_ ticks: Int64) -> Int64 {
            rescale(ticks &- videoOrigin, from: Int64(videoTimescale), to: scale) &+ origin
        }
        let low = presented.lowerBound == Int64.min ? origin : toTrack(presented.lowerBound)
        let high = presented.upperBound == Int64.max ? Int64.max : toTrack(presented.upperBound)
        if let chunk {
            // Each sample in exactly one chunk: the one its decoding time falls in.
            let from = chunk.first ? Int64.min : low, to = chunk.last ? Int64.max : high
            var first: Int64?
            var end: Int64?
            try reader.forEachSample { sample in
                if sample.dts >= from, sample.dts < to {
                    if first == nil { first = sample.dts }
                    end = sample.dts &+ Int64(sample.duration)
                }
            }
            guard let first, let end, end > first else { return nil }
            let mediaTime = chunk.first ? max(0, origin &- first) : 0
            let segment = UInt64(max(0, rescale(end &- first &- mediaTime, from: scale, to: Int64(movieTimescale))))
            let delay = chunk.first ? 0 : UInt64(max(0, rescale(first &- low, from: scale, to: Int64(movieTimescale))))
            return (first..<end, mediaTime, segment, delay)
        }
        var first: Int64?
        var end: Int64?
        try reader.forEachSample { sample in
            let sampleEnd = sample.dts &+ Int64(sample.duration)
            if sampleEnd > low, sample.dts < high {
                if first == nil { first = sample.dts }
                end = sampleEnd
            }
        }
        guard let first, let end, end > first else { return nil }
        let length = tickSpan(presented)
        let segment = UInt64(max(0, rescale(length, from: Int64(videoTimescale), to: Int64(movieTimescale))))
        return (first..<end, max(0, low &- first), segment, 0)
    }

    /// How late (movie timescale) an MP4 input's first picture presented when the input has no
    /// edit list (its media timeline is its presentation, as a CMAF file's whose video starts at
    /// its composition offset, ``NALUMedia/PresentationTimeline``): the output's video starts
    /// that late (an empty edit), as the source's did, its audio copied with its own times.
    /// `nil` for other inputs, and when the first picture presents at 0.
    static func firstPictureDelay(_ source: MediaSource, firstPresentation: Int64, movieTimescale: UInt32, timescale: UInt32) -> UInt64? {
        guard let track = source.mp4?.track, track.editList.isEmpty, firstPresentation > 0 else { return nil }
        let delay = rescale(firstPresentation, from: Int64(timescale), to: Int64(movieTimescale))
        return delay > 0 ? UInt64(delay) : nil
    }

    /// Writes one encoded access unit (Annex-B) with its times.
    /// - Throws: ``NALU/NALUError`` from muxing or writing.
    public func write(_ packet: EncodedPacket) throws(NALUError) {
        do {
            let sink: MP4FileSink
            if let file {
                sink = file
            } else {
                sink = try open(firstDecode: packet.dts, firstPresentation: packet.pts)
                file = sink
                firstDecode = packet.dts
            }
            try packets.feed(packet, timescale: timescale) { try sink.push($0) }
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Writes the movie box and renames the file into place; returns the muxer's notes (what
    /// it did that a reader should know, ``NALUMedia/MediaSinkReport/notes``). `beforeCommit`
    /// runs once everything is written, before the rename: throwing there (a cancellation)
    /// leaves the output uncommitted.
    /// - Throws: the muxer's `NALUError`, or what `beforeCommit` throws as thrown (untyped for it, as
    ///   ``EncodePipeline/encode(_:)`` is).
    @discardableResult
    public func finish(beforeCommit: () throws -> Void = {}) throws -> [String] {
        guard let file else { throw NALUError(.missing, field: "sample", detail: "no picture was encoded") }
        let report = try file.finish()
        try beforeCommit()
        try file.output.commit()
        return report.notes
    }

    /// Abandons the output: the temporary file (and a faststart spool) is removed, nothing is
    /// renamed into place.
    public func discard() {
        file?.output.discard()
        file = nil
    }
}

/// The length of `range` in ticks, `Int64.max` when it does not fit 64 bits (a range open to
/// the end whose start is before 0), never a wrapped value (issue 40 item 9).
func tickSpan(_ range: Range<Int64>) -> Int64 {
    let (length, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
    return overflow ? Int64.max : length
}

/// `value · to / from`, rounded down (or up), clamped to 64 bits (`from` > 0).
func rescale(_ value: Int64, from: Int64, to: Int64, roundingUp: Bool = false) -> Int64 {
    guard from > 0 else { return 0 }
    let (product, overflow) = value.multipliedReportingOverflow(by: to)
    guard !overflow else { return (value < 0) != (to < 0) ? Int64.min : Int64.max }
    let quotient = product / from
    let remainder = product % from
    if roundingUp { return remainder > 0 ? quotient + 1 : quotient }
    return remainder < 0 ? quotient - 1 : quotient
}
