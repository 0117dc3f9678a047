#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMP4
import NALUMedia

/// The output side of a ``LivePackager``: the init segment, the segmenter, and after every part
/// and segment the media playlists (video, and the audio rendition's when there is one,
/// ``LiveAudio``), the multivariant playlist and the dynamic MPD, each rewritten whole under a
/// temporary name and renamed (``PackageFolder``); old segments (of both) deleted. The first
/// playlists wait for the first segment of each track, so no playlist names a rendition whose
/// playlist is not there yet.
final class LiveWriter {
    let folder: PackageFolder
    let options: PackagerOptions
    let name: String
    let segmenter: FragmentSegmenter
    private(set) var track: PackagedTrack
    private(set) var notes: [String] = []
    private(set) var manifests: [String] = []
    /// `EXT-X-TARGETDURATION`: the segment duration rounded up, or the first segment's rounded
    /// duration if longer (keyframes further apart); raised, with a note, when a later segment
    /// comes out longer still (RFC 8216 wants it fixed).
    private var targetDuration: Int
    /// Segments (1-based numbers) whose files were deleted: 1...deleted.
    private var deleted = 0
    private var ended = false
    /// Wall-clock seconds since 1970 when the first picture came (DASH `availabilityStartTime`).
    private var availabilityStart: Int = 0
    private var segmentsWritten = 0
    /// The audio rendition, if the input has one.
    let audio: LiveAudio?
    /// Audio segments (1-based numbers) whose files were deleted: 1...audioDeleted.
    private var audioDeleted = 0
    /// The audio playlist's `EXT-X-TARGETDURATION`: the video's, or an audio segment's rounded
    /// duration if longer (its cuts are within a frame of the video's).
    private var audioTarget = 1

    init(folder: PackageFolder, options: PackagerOptions, name: String, timescale: UInt32, audio: LiveAudio? = nil) {
        self.audio = audio
        self.folder = folder
        self.options = options
        self.name = name
        segmenter = FragmentSegmenter(folder: folder, name: name, trackID: 1, timescale: timescale, presentationOffset: 0)
        track = PackagedTrack(kind: .video, inputPath: "-", name: name, initName: name + "_init.mp4", timescale: timescale, codecs: "")
        targetDuration = max(1, Int(options.segmentDuration.doubleValue.rounded(.up)))
        segmenter.didWrite = { [unowned self] in try self.update() }
        audio?.didWrite = { [unowned self] in try self.update() }
    }

    /// Init segments written so far (the first is ``PackagedTrack/initName``; after each
    /// parameter-set change `v0_init_2.mp4`, …).
    private var inits = 1
    /// After a parameter-set change: the sets that go in band at the start of each segment.
    private(set) var inBandParameterSets: [[UInt8]]?
    /// The codec string of each period after the first (DASH `@codecs` of its representation),
    /// and the picture size of each period (its `@width`, `@height`).
    private var periodCodecs: [Int: String] = [:]
    private var periodSizes: [Int: (width: Int, height: Int)] = [:]

    /// Writes the init segment for the first keyframe's parameter sets.
    func start(codec: Codec, parameterSets: [[UInt8]], description: StreamDescription?) throws {
        guard let description else {
            throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "the first keyframe has no SPS before it")
        }
        let entry: MP4SampleEntryType = codec == .h264 ? .avc1 : .hvc1
        track.codecs = try CodecString.video(codec: codec, parameterSets: parameterSets, entry: entry.rawValue)
        track.width = description.width
        track.height = description.height
        periodSizes[0] = (description.width, description.height)
        track.partTarget = options.partDuration?.doubleValue
        segmenter.partTarget = options.partDuration.map { max(1, Int64(($0.doubleValue * Double(track.timescale)).rounded(.down))) }
        try writeInit(codec: codec, entry: entry, parameterSets: parameterSets, description: description, to: track.initName ?? name + "_init.mp4")
        availabilityStart = Int(time(nil))
    }

    private func writeInit(codec: Codec, entry: MP4SampleEntryType, parameterSets: [[UInt8]], description: StreamDescription,
                           to initName: String) throws {
        let record = try DecoderConfigurationRecord.build(codec: codec, parameterSets: parameterSets, lengthSize: 4, arrayCompleteness: true)
        let header = CMAFBoxes.videoHeader(sampleEntry: entry, record: record, width: description.width, height: description.height,
                                           timescale: track.timescale)
        try folder.write([header], to: initName)
    }

    /// The parameter sets change at a keyframe: the open segment ends, a new init segment
    /// (`v0_init_2.mp4`, …) is written for the new sets, and the segments from here are a new
    /// period (``PackagedSegment/period``): in HLS an `EXT-X-DISCONTINUITY` with the new
    /// `EXT-X-MAP` (RFC 8216 4.3.2.3, 4.3.2.5), in DASH a new `Period` (ISO/IEC 23009-1 5.3.2).
    /// `RESOLUTION` and `@width`/`@height` become the largest; `CODECS` stays the first SPS's.
    ///
    /// The new init segment's entry is `avc3`/`hev1`, and the new sets also go in band, in the
    /// first sample of every segment from here (``inBandParameterSets``; ISO/IEC 14496-15
    /// 5.4.2.1): a player that keeps the first init segment across the discontinuity (ffmpeg's
    /// HLS reader does: it skips a second `moov`) still decodes the new pictures.
    func changeParameterSets(codec: Codec, parameterSets: [[UInt8]], description: StreamDescription?, at time: Int64) throws {
        guard let description else {
            throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "the keyframe whose parameter sets change has no SPS")
        }
        try segmenter.flush()
        inits += 1
        let initName = name + "_init_\(inits).mp4"
        try writeInit(codec: codec, entry: codec == .h264 ? .avc3 : .hev1, parameterSets: parameterSets, description: description, to: initName)
        inBandParameterSets = parameterSets
        segmenter.period += 1
        segmenter.initName = initName
        let codecs = try CodecString.video(codec: codec, parameterSets: parameterSets, entry: codec == .h264 ? "avc3" : "hev1")
        periodCodecs[segmenter.period] = codecs
        periodSizes[segmenter.period] = (description.width, description.height)
        // RFC 8216 4.3.4.2: CODECS names every format of every segment.
        if !track.codecs.split(separator: ",").contains(Substring(codecs)) { track.codecs += "," + codecs }
        notes.append("the parameter sets change at \(HLSPlaylist.decimal(time, track.timescale)) s (\(description.width)x\(description.height)): "
                     + "a new init segment \(initName), an EXT-X-DISCONTINUITY in the playlists and a new DASH Period")
        track.width = max(track.width, description.width)
        track.height = max(track.height, description.height)
    }

    /// Ends the stream: the last segment, then the playlists with `EXT-X-ENDLIST`.
    func finish() throws {
        try segmenter.flush()
        try audio?.finish()
        notes += audio?.notes ?? []
        ended = true
        if segmenter.segments.isEmpty { return }
        try update()
    }

    /// Ends the stream after a failure, as far as the disk allows: the open segment completed
    /// (its samples are whole), then the playlists with `EXT-X-ENDLIST` and no part or preload
    /// hint, the MPD with its duration. Errors here are dropped: the failure is what is reported.
    func endAfterFailure() {
        try? segmenter.flush()
        audio?.endAfterFailure()
        ended = true
        if segmenter.segments.isEmpty { return }
        try? update()
    }

    /// The segments listed: the last ``PackagerOptions/window``.
    private var listed: ArraySlice<PackagedSegment> { segmenter.segments.suffix(max(1, options.window)) }

    /// The part that will come next (`EXT-X-PRELOAD-HINT`): the open segment's next one, or,
    /// once that segment has reached its end time (the next keyframe will start a new one), the
    /// next segment's first part.
    private func nextPart(_ all: [PackagedSegment]) -> String {
        let ticks = all.reduce(Int64(0)) { $0 + $1.duration } + segmenter.openParts.reduce(Int64(0)) { $0 + $1.duration }
        let due = options.segmentDuration.doubleValue * Double(all.count + 1)
        if !segmenter.openParts.isEmpty, Double(ticks) / Double(track.timescale) + 1e-9 >= due {
            return segmenter.partName(all.count + 2, 1)
        }
        return segmenter.nextPartName
    }

    private func update() throws {
        let all = segmenter.segments
        track.segments = all
        if all.count > segmentsWritten {
            segmentsWritten = all.count
            // DASH presentationTimeOffset: the period starts with the first segment.
            if all.count == 1 { track.presentationOffset = all[0].decodeTime }
            if let newest = all.last {
                let rounded = Int((Double(newest.duration) / Double(track.timescale)).rounded(.toNearestOrAwayFromZero))
                if all.count == 1 {
                    // No playlist was written before the first segment: the target can still follow it.
                    targetDuration = max(targetDuration, rounded)
                } else if rounded > targetDuration {
                    notes.append("segment \(all.count) lasts \(HLSPlaylist.decimal(newest.duration, track.timescale)) s, past the target duration of \(targetDuration) s (keyframes further apart than --segment-duration): EXT-X-TARGETDURATION is raised to \(rounded)")
                    targetDuration = rounded
                }
            }
            let ticks = all.reduce(Int64(0)) { $0 + $1.duration }
            if ticks > 0 { track.frameRate = Double(all.reduce(0) { $0 + $1.samples }) * Double(track.timescale) / Double(ticks) }
        }
        // The first playlist waits for the first segment, whose length fixes the target duration,
        // and for the audio's first segment; not longer than three video segments (an AAC stream
        // that carries nothing yet must not hold the video back: it joins the playlists when its
        // first segment comes; one that carried none is left out of them, with a note).
        if all.isEmpty { return }
        let audioSegments = audio?.segmenter?.segments ?? []
        var audioTrack = audio?.track
        audioTrack?.segments = audioSegments
        if audio != nil, audioSegments.isEmpty {
            if !ended, all.count < 3 { return }
            audioTrack = nil
        }
        if let newest = audioSegments.last, let audioTrack {
            let rounded = CheckedNumber.int((Double(newest.duration) / Double(max(audioTrack.timescale, 1))).rounded(.toNearestOrAwayFromZero)) ?? Int.max
            audioTarget = max(audioTarget, targetDuration, rounded)
        }
        // DASH presentationTimeOffset: the video's, in the audio's timescale (one timeline: the TS clock).
        if let first = all.first, let audioTimescale = audioTrack?.timescale {
            audioTrack?.presentationOffset = CheckedNumber.rescale(first.decodeTime, from: Int64(track.timescale),
                                                                   to: Int64(audioTimescale)) ?? 0
        }
        let audioListed = audioSegments.suffix(max(1, options.window))
        if options.hls {
            // A rendition's playlist over its window: the video's, then the audio's alike.
            func windowPlaylist(_ rendition: PackagedTrack, listed: ArraySlice<PackagedSegment>, total: Int, target: Int,
                                segmenter: FragmentSegmenter, preloadHint: @autoclosure () -> String?) -> String {
                var windowed = rendition
                windowed.segments = Array(listed)
                var playlist = HLSMediaPlaylist(track: windowed, segmentType: .fmp4)
                playlist.mediaSequence = total - listed.count + 1
                playlist.live = true
                playlist.ended = ended
                playlist.targetDuration = target
                playlist.openPeriod = segmenter.period
                playlist.openInitName = segmenter.initName
                if !ended {
                    playlist.openParts = segmenter.openParts
                    if rendition.partTarget != nil { playlist.preloadHint = preloadHint() }
                }
                return playlist.text
            }
            try folder.write(text: windowPlaylist(track, listed: listed, total: all.count, target: targetDuration,
                                                  segmenter: segmenter, preloadHint: nextPart(all)), to: name + ".m3u8")
            if let audioTrack, let audioSegmenter = audio?.segmenter {
                try folder.write(text: windowPlaylist(audioTrack, listed: audioListed, total: audioSegments.count, target: audioTarget,
                                                      segmenter: audioSegmenter, preloadHint: audioSegmenter.nextPartName),
                                 to: audioTrack.name + ".m3u8")
            }
            try folder.write(text: HLSPlaylist.multivariant(video: [track], audio: audioTrack), to: HLSPlaylist.multivariantName)
        }
        if options.dash {
            var windowTrack = track
            windowTrack.segments = Array(listed)
            var windowAudio = audioTrack
            windowAudio?.segments = Array(audioListed)
            let text = DASHManifest.dynamicMPD(video: windowTrack, startNumber: all.count - listed.count + 1,
                                               audio: windowAudio, audioStartNumber: audioSegments.count - audioListed.count + 1,
                                               periodCodecs: periodCodecs, periodSizes: periodSizes,
                                               availabilityStart: availabilityStart, publishTime: Int(time(nil)),
                                               segmentDuration: options.segmentDuration.doubleValue, window: options.window,
                                               ended: ended)
            try folder.write(text: text, to: DASHManifest.name)
        }
        let audioPlaylists = audioTrack.map { [$0.name + ".m3u8"] } ?? []
        manifests = (options.hls ? [name + ".m3u8"] + audioPlaylists + [HLSPlaylist.multivariantName] : []) + (options.dash ? [DASHManifest.name] : [])
        // A segment that left the window stays for as long again as the window (RFC 8216 6.2.2).
        // Overflow-safe: a window of `.max` (every segment listed, live-hls-sample) keeps all.
        let keep = CheckedNumber.sum(CheckedNumber.product(Int64(max(1, options.window)), 2) ?? Int64.max, 1).flatMap { Int(exactly: $0) } ?? Int.max
        while deleted < all.count - keep {
            let segment = all[deleted]
            try folder.remove(segment.name)
            for part in segment.parts { try folder.remove(part.name) }
            deleted += 1
        }
        while audioDeleted < audioSegments.count - keep {
            let segment = audioSegments[audioDeleted]
            try folder.remove(segment.name)
            for part in segment.parts { try folder.remove(part.name) }
            audioDeleted += 1
        }
    }

    /// The audio rendition as packaged so far (its segments), if any.
    var audioTrack: PackagedTrack? {
        guard var track = audio?.track else { return nil }
        track.segments = audio?.segmenter?.segments ?? []
        return track
    }
}
