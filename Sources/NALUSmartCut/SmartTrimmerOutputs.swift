public import NALU
public import NALUMedia
public import NALUTS

extension SmartTrimmer {
    /// Writes the cut length-prefixed (ISO/IEC 14496-15 framing, `lengthSize`-byte lengths): every
    /// parameter set in band (the re-encoded pictures' before their IDR picture, the copied
    /// pictures' before the copy point); the report's record holds them too.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeLengthPrefixed<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output,
                                                      lengthSize: Int = 4) throws(SmartCutError) -> Report {
        try SmartCutError.typed { try lengthPrefixed(start: start, end: end, output: output, lengthSize: lengthSize) }
    }

    private func lengthPrefixed<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output, lengthSize: Int) throws -> Report {
        let (plan, _) = try self.plan(start: start, end: end)
        let index = try self.index()
        let sink = try LengthPrefixedSink(codec: index.codec, output: output, options: .init(lengthSize: lengthSize, keepParameterSets: true))
        let writer = OutputWriter(codec: index.codec, timing: try outputTiming(plan, index: index), pictureWritten: pictureWritten) { try sink.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: 0)
    }

    /// Writes the cut as an MPEG-TS program (``NALUMedia/TransportStreamSink``): the first picture
    /// presents at the first PTS, the others at their source times after it (an elementary
    /// stream's at its frame rate); decoding times precede by the output's reordering delay.
    /// With `audio`, an MP4/MOV input's AAC track or a transport stream input's AAC stream is cut
    /// to the presented range and carried as ADTS, starting with the first picture.
    /// `options.frameRate` is ignored: the times are the source's.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeTransportStream<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output,
                                                       options: TransportStreamMuxerOptions, audio: Bool = true) throws(SmartCutError) -> Report {
        try SmartCutError.typed { try transportStream(start: start, end: end, output: output, options: options, audio: audio) }
    }

    private func transportStream<Output: ByteSink>(start: MediaTime, end: MediaTime?, output: Output,
                                                   options: TransportStreamMuxerOptions, audio: Bool) throws -> Report {
        let (plan, requested) = try self.plan(start: start, end: end)
        // The first picture presents at the first PTS: the audio starts with it.
        let trim = requested.startingAtFirstPicture
        let index = try self.index()
        let timing = try outputTiming(plan, index: index, decodeAdvance: try decodeAdvance(plan, index: index))
        var options = options
        options.frameRate = nil
        options.placement = .beforeFirstSlice
        let source = trimmer.source
        let sink = try TransportStreamSink(codec: index.codec, output: output, options: options, declarativeSEI: source.declarativeSEI)
        try sink.muxer.useSourceTiming(timescale: timing.timescale, presentationOrigin: 0, lookup: timing.lookup)
        var ids: [UInt32] = []
        let tracks = audio ? try source.transportStreamAudioTracks() : []
        let cuts = tracks.isEmpty ? [] : try TrimAudioCut.cuts(for: trim, source: source, segmentDuration: 0)
        for track in tracks {
            guard let cut = cuts.first(where: { $0.reader.track.trackID == track.reader.track.trackID }), let video = source.mp4 else { continue }
            // The range's start on the audio's media timeline presents with the first picture;
            // without an edit list to trim them, the frames kept are those starting within
            // half a frame of the range (the cut's extra frame at each end is left out), so the
            // audio lasts the video's duration within one frame.
            let stream = try sink.muxer.addAudio(track.stream)
            let origin = cut.decodeTimes.lowerBound &+ (cut.editList.first?.mediaTime ?? 0)
            let presented = trim.presentedRange(timescale: Int64(cut.reader.track.timescale))
            let half = Int64(track.stream.samplesPerFrame / 2)
            let lower = max(cut.decodeTimes.lowerBound, origin &- half)
            let upper = min(cut.decodeTimes.upperBound, max(lower, origin &+ (presented.upperBound &- presented.lowerBound) &- half))
            TransportStreamAudioFeeder(reader: cut.reader, movieTimescale: video.track.movieTimescale, videoDelay: 0,
                                       decodeTimes: lower..<upper, origin: origin, stream: stream).attach(to: sink.muxer)
            ids.append(track.reader.track.trackID)
        }
        for tsAudio in (audio && ids.isEmpty ? try source.transportStreamAudioStreams() : []) {
            let stream = try sink.muxer.addAudio(try tsAudio.transportStreamStream())
            let range = trim.presentedRange(timescale: 90_000)
            let origin = index.hasSourceTimes ? 0 : tsAudio.origin(in: source)
            TransportStreamToTransportStreamAudioFeeder(reader: tsAudio, origin: origin &+ range.lowerBound,
                                                        range: (origin &+ range.lowerBound)..<(origin &+ range.upperBound), stream: stream).attach(to: sink.muxer)
            ids.append(UInt32(tsAudio.pid) | 0x1_0000)
        }
        let writer = OutputWriter(codec: index.codec, timing: timing, pictureWritten: pictureWritten) { try sink.push($0) }
        try run(plan, index: index, writer: writer)
        let report = try sink.finish()
        return Report(plan: plan, sink: report, headPictures: plan.head.count, tailPictures: plan.tail.count,
                      copiedAccessUnits: plan.copied.count, audioTracks: ids.count, audioTrackIDs: ids)
    }

    /// How far decoding times must precede the sorted presentation times so that no picture
    /// decodes after it presents (ticks of the output timescale): the copied access units' own
    /// delay, exactly, and for the re-encoded ones a bound of four pictures (x264's and x265's
    /// B-pyramids delay output by at most two; ``MatchedEncoding`` keeps the default B-frames).
    func decodeAdvance(_ plan: SmartCutPlan, index: TrimIndex) throws -> Int64 {
        let times = plan.presentationTimes
        var advance: Int64 = 0
        for (k, position) in plan.copied.enumerated() {
            let j = plan.head.count + k
            guard j < times.count, let pts = index.entries[position].presentationTime else { continue }
            advance = max(advance, times[j] &- pts)
        }
        for i in times.indices where i >= 4 { advance = max(advance, times[i] &- times[i - 4]) }
        if times.count < 5, let first = times.first, let last = times.last { advance = max(advance, last &- first &+ index.frameDuration) }
        return advance &* max(1, index.timeBase.numerator)
    }
}
