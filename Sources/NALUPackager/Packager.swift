import NALU
import NALUIO
import NALUMP4
import NALUMedia

/// Packages H.264/H.265 inputs for streaming (issue 35): CMAF segments (ISO/IEC 23000-19) cut
/// at keyframes, with HLS playlists (RFC 8216) and a DASH MPD (ISO/IEC 23009-1) over them.
///
/// Each input is a video rendition of one presentation (`v0`, `v1`, …); the first input's AAC
/// track, if any, is the audio rendition (`a0`), cut at the video's segment times. Samples keep
/// their source's times (decoding and composition times, variable frame rate included) and
/// bytes; each track's edit list is copied into its init segment. A segment starts at the first
/// sync sample at or after each multiple of ``PackagerOptions/segmentDuration`` (counted from the
/// first sample), so segments of renditions with aligned keyframes start together, which
/// ``PackagerOptions/checksAlignment`` verifies. Every file is written under a temporary name
/// and renamed when complete; playlists last.
public final class Packager {
    public let directory: String
    public let options: PackagerOptions
    var notes: [String] = []
    /// Where the files go, and the inputs they may not replace (set by ``package(_:sourceOptions:)``).
    var folder: PackageFolder

    /// - Parameter directory: an existing folder the package is written into.
    public init(directory: String, options: PackagerOptions) {
        self.directory = directory
        self.options = options
        folder = PackageFolder(path: directory)
    }

    /// The temporary MP4s raw and MPEG-TS inputs were muxed into, and the inputs' names, which
    /// notes and errors give instead (``package(_:sourceOptions:)``).
    var inputNames: [(temporary: String, original: String)] = []

    /// ``package(_:sourceOptions:)``'s work.
    func packageInputs(_ inputs: [String], sourceOptions: MediaSourceOptions) throws -> PackageSummary {
        guard !inputs.isEmpty else { throw NALUError(.missing, field: "input", detail: "no input to package") }
        folder = PackageFolder(path: directory, inputs: inputs + options.otherInputs)
        // No playlist of an older package may name the segments this run replaces.
        folder.removePlaylistsBeforeFirstWrite(renditions: inputs.count)
        var video: [PackagedTrack] = []
        var audio: [PackagedTrack] = []
        var notCarried: [String] = []
        var programsNotRead: [PackageSummary.ProgramsNotRead] = []
        for (index, path) in inputs.enumerated() {
            let opened = try MediaSource(path: path, options: sourceOptions)
            // A transport stream's other programs, not read unless the options chose one.
            if sourceOptions.pid == nil, let programs = opened.transportStream?.otherPrograms, !programs.isEmpty {
                programsNotRead.append(.init(input: path, programs: programs.map { "program \($0.number) (PMT PID 0x\(String($0.pid, radix: 16)))" }))
            }
            // A raw stream or an MPEG-TS is muxed into an MP4 first (PackageInput.swift).
            let input = opened.mp4 == nil ? try PackageInput(opened, options: options) : nil
            notes += input?.notes ?? []
            if let input { inputNames.append((input.source.path, path)) }
            let source = input?.source ?? opened
            // Nothing is left out silently: a track that is neither the video nor audio is left
            // out on purpose (--no-subtitles, --no-timecode) or listed as not carried.
            for other in try source.passthroughTracks()?.tracks.filter({ !$0.track.isAudio }) ?? [] {
                let handler = other.track.handler.description
                if options.dropsSubtitles && Self.subtitleHandlers.contains(handler) { continue }
                if options.dropsTimecode && handler == "tmcd" { continue }
                notCarried.append("\(path) track \(other.track.trackID) (\(handler), \(other.track.sampleEntryType?.description ?? "?"))")
            }
            if options.segmentType == .ts {
                // One audio track goes into the first rendition's program; several are each a
                // rendition of audio-only MPEG-TS segments (a0, a1, …), which a player chooses
                // among (EXT-X-MEDIA); each other video rendition is video only.
                let renditions = index == 0 && !options.dropsAudio ? try source.transportStreamAudioTracks() : []
                let muxed = index == 0 && !options.dropsAudio && renditions.count < 2
                var (track, audioCodecs) = try packageTransportStream(source, name: "v\(index)", withAudio: muxed)
                if renditions.count > 1 {
                    let boundaries = track.segments.dropFirst().map { Double($0.presentationTime) / Double(track.timescale) }
                    for rendition in renditions {
                        audio.append(try packageTransportStreamAudio(rendition, inputPath: path, name: "a\(audio.count)", boundaries: boundaries))
                    }
                }
                if index == 0, !options.dropsAudio {
                    // Every audio track a transport stream carries goes with the video; the others (PCM, …) are named.
                    let sound = try source.passthroughTracks()?.tracks.filter(\.track.isAudio) ?? []
                    let carried = Set(try source.transportStreamAudioTracks().map(\.reader.track.trackID))
                    for other in sound where !carried.contains(other.track.trackID) {
                        notCarried.append("\(path) track \(other.track.trackID) (soun, \(other.track.sampleEntryType?.description ?? "?")): MPEG-TS segments carry AAC, AC-3 and MPEG audio")
                    }
                }
                if options.checksAlignment, let reference = video.first {
                    try Self.checkAlignment(track, against: reference, rendition: index)
                }
                if let audioCodecs { track.codecs += "," + audioCodecs }
                track.inputPath = path
                video.append(track)
                continue
            }
            var track = try packageVideo(source, name: "v\(index)")
            if options.checksAlignment, let reference = video.first {
                try Self.checkAlignment(track, against: reference, rendition: index)
            }
            let audioTracks = try source.passthroughTracks()?.tracks.filter(\.track.isAudio) ?? []
            if !options.dropsAudio, audio.isEmpty, !audioTracks.isEmpty {
                // Every audio track its own rendition (a0, a1, …), cut at the video's segment times.
                let movieTimescale = try source.passthroughTracks()?.movieTimescale
                for reader in audioTracks {
                    // Audio a package cannot hold (PCM, several sample entries) is named, not packaged.
                    guard reader.track.sampleEntries.count == 1, let entry = reader.track.sampleEntries.first,
                          CodecString.audio(sampleEntry: MediaSource.isoMPEGAudioEntry(entry) ?? entry) != nil else {
                        notCarried.append("\(path) track \(reader.track.trackID) (soun, \(reader.track.sampleEntryType?.description ?? "?"): AAC, AC-3 and MPEG audio are packaged)")
                        continue
                    }
                    audio.append(try packageAudio(reader, movieTimescale: movieTimescale ?? reader.track.timescale, inputPath: path, name: "a\(audio.count)",
                                                  boundaries: track.segments.dropFirst().map { Double($0.presentationTime) / Double(track.timescale) }))
                }
            } else if !audioTracks.isEmpty, !options.dropsAudio {
                notes.append("\(path): its audio is not packaged (the first input's audio is the audio rendition)")
            }
            track.inputPath = path
            video.append(track)
        }
        for index in video.indices { try finishTrack(&video[index]) }
        for index in audio.indices { try finishTrack(&audio[index]) }
        var manifests: [String] = []
        if options.hls {
            for track in video + audio {
                try folder.write(text: HLSPlaylist.media(track, segmentType: options.segmentType), to: track.name + ".m3u8")
                manifests.append(track.name + ".m3u8")
            }
            try folder.write(text: HLSPlaylist.multivariant(video: video, audio: audio), to: HLSPlaylist.multivariantName)
            manifests.append(HLSPlaylist.multivariantName)
        }
        if options.dash {
            try folder.write(text: DASHManifest.staticMPD(video: video, audio: audio, segmentDuration: options.segmentDuration.doubleValue),
                                  to: DASHManifest.name)
            manifests.append(DASHManifest.name)
        }
        var summary = PackageSummary(video: video, audio: audio, manifests: manifests, notes: notes, notCarried: notCarried)
        summary.programsNotRead = programsNotRead
        return summary
    }

    /// Handler types of subtitle and caption tracks (ISO/IEC 14496-12 `text`, `subt`, `sbtl`;
    /// QuickTime `clcp` closed captions), which ``PackagerOptions/dropsSubtitles`` leaves out.
    static let subtitleHandlers: Set<String> = ["text", "subt", "sbtl", "clcp"]

    /// Segment starts of `track` must be those of the first rendition.
    static func checkAlignment(_ track: PackagedTrack, against reference: PackagedTrack, rendition: Int) throws {
        let count = max(track.segments.count, reference.segments.count)
        for index in 0..<count {
            let mine = index < track.segments.count ? Double(track.segments[index].presentationTime) / Double(track.timescale) : nil
            let theirs = index < reference.segments.count ? Double(reference.segments[index].presentationTime) / Double(reference.timescale) : nil
            if let mine, let theirs, abs(mine - theirs) < 0.0005 { continue }
            let time = Self.seconds(min(mine ?? .infinity, theirs ?? .infinity))
            let detail: String
            if let theirs, mine == nil || theirs < mine! {
                detail = "v0 has a keyframe starting a segment at \(Self.seconds(theirs)) s; this rendition has none there"
                    + (mine.map { " (its next segment starts at \(Self.seconds($0)) s)" } ?? "")
            } else {
                detail = "it has a keyframe starting a segment at \(time) s; v0 has none there"
                    + (theirs.map { " (its next segment starts at \(Self.seconds($0)) s)" } ?? "")
            }
            throw NALUError(.invalidValue, field: "rendition v\(rendition) (\(track.inputPath)) at \(time) s",
                            detail: "keyframes do not align with v0 (\(reference.inputPath)): " + detail + "; --no-align-check packages it anyway")
        }
    }

    static func seconds(_ value: Double) -> String { String(format3(value)) }

    package static func format3(_ value: Double) -> String {
        // Times were checked on input (PackagedTime); what does not fit is shown as it is.
        guard let scaled = CheckedNumber.int64(value * 1000) else { return String(value) }
        let whole = scaled / 1000
        let fraction = abs(scaled % 1000)
        let digits = String(fraction)
        return (scaled < 0 && whole == 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }

    // MARK: Video

    private func packageVideo(_ source: MediaSource, name: String) throws -> PackagedTrack {
        guard let mp4 = source.mp4 else {
            return try packageElementaryVideo(source, name: name)
        }
        let track = mp4.track
        // Parameter sets that change mid-stream go in band (VideoSampleFilter).
        let inBand = try inBandParameterSets(track, path: source.path)
        let entry = inBand == nil ? track.sampleEntryType : (track.codec == .h264 ? .avc3 : .hev1)
        if inBand == nil, entry.allowsInBandParameterSets {
            notes.append("\(source.path): the source's sample entry is \(entry) (parameter sets may be in band); the segments keep it")
        }
        let editList = track.editList
        let offset = try PackagedTime.check(editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0, timescale: track.timescale,
                                            field: "\(source.path) edit list media_time")
        var packaged = try videoTrack(source: source, name: name, codec: track.codec, entry: entry.rawValue,
                                      parameterSets: track.decoderConfiguration.parameterSets,
                                      width: track.width, height: track.height, timescale: track.timescale)
        packaged.presentationOffset = offset
        if inBand != nil {
            // RESOLUTION and @width/@height: the largest pictures.
            packaged.width = track.sampleDescriptions.map(\.width).max() ?? track.width
            packaged.height = track.sampleDescriptions.map(\.height).max() ?? track.height
        }
        if options.segmentType == .fmp4 {
            let header = CMAFBoxes.videoHeader(sampleEntry: entry, record: track.sampleDescription.recordBytes, width: track.width,
                                               height: track.height, timescale: track.timescale, movieTimescale: track.movieTimescale,
                                               editList: editList.isEmpty ? nil : editList,
                                               // Informative: a movie whose other boxes do not parse still packages.
                                               metadata: (try? source.movieMetadata()) ?? nil)
            try folder.write([header], to: packaged.initName ?? name + "_init.mp4")
        }
        let segmenter = FragmentSegmenter(folder: folder, name: name, trackID: 1, timescale: track.timescale, presentationOffset: offset)
        segmenter.partTarget = partTicks(track.timescale)
        let filter = VideoSampleFilter(codec: track.codec, lengthSize: track.lengthSize, policy: options.openGOP, inBandParameterSets: inBand)
        var bytes = MP4SampleReader()
        var iterator = mp4.samples()
        var count = 0
        var first: Int64?
        while let sample = try iterator.next() {
            try checkSize(sample)
            let startsSegment = try startsSegment(sample, first: &first, timescale: track.timescale, segments: segmenter.segments.count + 1,
                                                  path: source.path)
            try filter.push(sample, timing: PackagedTime.timing(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration),
                                                                timescale: track.timescale, name: "\(source.path) video", byteOffset: sample.offset),
                            startsSegment: startsSegment, reader: mp4, bytes: &bytes, into: segmenter)
            count += 1
        }
        try filter.finish(into: segmenter)
        try segmenter.flush()
        notes += Self.openGOPNotes(filter, path: source.path, name: name)
        count -= filter.droppedRASL
        packaged.segments = segmenter.segments
        let ticks = packaged.segments.reduce(Int64(0)) { $0 + $1.duration }
        if ticks > 0 { packaged.frameRate = Double(count) * Double(track.timescale) / Double(ticks) }
        return packaged
    }

    /// Refuses a sample past ``PackagerOptions/maxAccessUnitSize`` before it is read.
    func checkSize(_ sample: MP4Sample) throws {
        guard sample.size <= options.maxAccessUnitSize else {
            throw AccessUnitLimit.error(limit: options.maxAccessUnitSize, at: sample.offset)
        }
    }

    /// Whether `sample` (in decoding order) starts a segment: the first sample, which must be a
    /// sync sample (its decoding time goes to `first`), or a sync sample that ends the open
    /// segment, number `segments` (``due(elapsed:timescale:segments:)``).
    func startsSegment(_ sample: MP4Sample, first: inout Int64?, timescale: UInt32, segments: Int, path: String) throws -> Bool {
        guard let start = first else {
            guard sample.isSync else {
                throw NALUError(.invalidValue, field: path, byteOffset: sample.offset,
                                detail: "the first video sample is not a sync sample: a segment cannot start with it")
            }
            first = sample.dts
            return true
        }
        return sample.isSync && due(elapsed: sample.dts &- start, timescale: timescale, segments: segments)
    }

    /// Whether a sync sample `elapsed` ticks after the first ends the open segment, segment
    /// number `segments` (1-based): `elapsed` reaches `segments` × the segment duration.
    func due(elapsed: Int64, timescale: UInt32, segments: Int) -> Bool {
        Double(elapsed) / Double(timescale) + 1e-9 >= options.segmentDuration.doubleValue * Double(segments)
    }

    private func videoTrack(source: MediaSource, name: String, codec: Codec, entry: String, parameterSets: [[UInt8]],
                            width: Int, height: Int, timescale: UInt32) throws -> PackagedTrack {
        let codecs = try CodecString.video(codec: codec, parameterSets: parameterSets, entry: entry)
        return PackagedTrack(kind: .video, inputPath: source.path, name: name, initName: options.segmentType == .fmp4 ? name + "_init.mp4" : nil,
                             timescale: timescale, codecs: codecs, width: width, height: height)
    }

    private func packageElementaryVideo(_ source: MediaSource, name: String) throws -> PackagedTrack {
        throw NALUError(.unsupported, field: source.path, detail: "\(source.container) input cannot be packaged yet: give an MP4/MOV")
    }

    // MARK: Audio

    /// Copies `reader`'s samples into segments that end where the video's do: a sample goes to
    /// the segment whose time span holds its presentation time (after the track's edit).
    private func packageAudio(_ reader: MP4TrackReader<AnyRandomAccessSource>, movieTimescale: UInt32, inputPath: String, name: String,
                              boundaries: [Double]) throws -> PackagedTrack {
        let track = reader.track
        // QuickTime's `.mp2`/`.mp3` MPEG audio goes as the `mp4a` entry ISO files use (the same frames).
        let quickTime = track.sampleEntries.first.flatMap(MediaSource.isoMPEGAudioEntry)
        guard track.sampleEntries.count == 1, let entry = quickTime ?? track.sampleEntries.first, let codecs = CodecString.audio(sampleEntry: entry) else {
            throw NALUError(.unsupported, field: "\(inputPath) track \(track.trackID)",
                            detail: "audio of sample entry \(track.sampleEntryType?.description ?? "?") cannot be packaged (AAC, AC-3 or MPEG audio, one sample entry)")
        }
        let offset = try PackagedTime.check(track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0, timescale: track.timescale,
                                            field: "\(inputPath) track \(track.trackID) edit list media_time")
        var packaged = PackagedTrack(kind: .audio, inputPath: inputPath, name: name,
                                     initName: options.segmentType == .fmp4 ? name + "_init.mp4" : nil,
                                     timescale: track.timescale, codecs: codecs, channels: CodecString.channels(sampleEntry: entry),
                                     presentationOffset: offset)
        packaged.language = track.language.flatMap { $0 == "und" ? nil : $0 }
        var header = MP4PassthroughTrack(copying: track)
        if let quickTime { header.sampleEntries = [quickTime] }
        try folder.write([CMAFBoxes.passthroughHeader(header, movieTimescale: movieTimescale)],
                              to: name + "_init.mp4")
        let segmenter = FragmentSegmenter(folder: folder, name: name, trackID: 2, timescale: track.timescale, presentationOffset: offset)
        segmenter.partTarget = partTicks(track.timescale)
        // One read per run of adjacent samples (a chunk): an audio track's chunks lie between the
        // video's, so a window from an audio sample would read mostly video bytes (measured: 60 %
        // more CPU than per-sample reads on a 60 s 720p file, Docs/performance.md).
        var segment = 0
        try SampleRuns.forEach(of: reader, check: checkSize) { sample, raw in
            let timing = try PackagedTime.timing(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration),
                                                 timescale: track.timescale, name: "\(inputPath) track \(track.trackID)", byteOffset: sample.offset)
            let target = Self.segment(at: Double(sample.pts - offset) / Double(track.timescale), from: segment, boundaries: boundaries)
            if target != segment {
                try segmenter.flush()
                segment = target
            }
            try segmenter.append(raw, timing: timing, isSync: sample.isSync)
        }
        try segmenter.flush()
        packaged.segments = segmenter.segments
        return packaged
    }
}
