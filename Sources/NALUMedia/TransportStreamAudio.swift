public import NALU
public import NALUMP4
public import NALUTS

extension MediaSource {
    /// The audio track an MPEG-TS output carries (ADTS, ``TransportStreamMuxer/addAudio(audioSpecificConfig:)``):
    /// the first `mp4a` sound track of an MP4/MOV input with one sample entry whose `esds` holds an
    /// AudioSpecificConfig ADTS can say (ISO/IEC 13818-7 ADTS, ISO/IEC 14496-3 1.6.2.1), with
    /// that config. `nil` for a raw stream or when there is none.
    public func transportStreamAudioTrack() throws(NALUError) -> (reader: MP4TrackReader<AnyRandomAccessSource>, audioSpecificConfig: [UInt8])? {
        return try NALUError.typed(field: "audio track") {
            guard let movie = try movie() else { return nil }
            for reader in movie.tracks where reader.track.isAudio && reader.track.sampleEntryType == FourCC("mp4a") {
                guard reader.track.sampleEntries.count == 1, let entry = reader.track.sampleEntries.first,
                      let config = try? AudioSpecificConfig.fromSampleEntry(entry),
                      (try? ADTSHeader(audioSpecificConfig: config)) != nil else { continue }
                return (reader, config)
            }
            return nil
        }
    }
}

/// A sound track of an MP4/MOV input that a transport stream output carries, and how
/// (``MediaSource/transportStreamAudioTracks()``).
public struct TransportStreamAudioTrack {
    /// The sound track's reader.
    public let reader: MP4TrackReader<AnyRandomAccessSource>
    /// Its coding, `stream_type` and language in the transport stream.
    public let stream: TransportStreamAudioStream
}

extension MediaSource {
    /// Every sound track of an MP4/MOV input a transport stream carries, in track order: `mp4a`
    /// AAC whose AudioSpecificConfig ADTS can say (stream_type 0x0F), `ac-3` (ATSC AC-3, 0x81),
    /// `mp4a` with objectTypeIndication 0x6B or 0x69 (MPEG-1/2 audio, 0x03/0x04), QuickTime's
    /// `.mp2`/`.mp3` (MPEG audio: 0x04 below 32 kHz, else 0x03, as ffmpeg's muxer chooses); one
    /// sample entry each, the `mdhd` language kept. Empty for other inputs.
    public func transportStreamAudioTracks() throws(NALUError) -> [TransportStreamAudioTrack] {
        return try NALUError.typed(field: "audio track") {
            guard let movie = try movie() else { return [] }
            var tracks: [TransportStreamAudioTrack] = []
            for reader in movie.tracks where reader.track.isAudio && reader.track.sampleEntries.count == 1
                && tracks.count < TransportStreamWriterConfiguration.maxAudioStreams {
                guard let entry = reader.track.sampleEntries.first, let format = Self.transportStreamFormat(entry) else { continue }
                let language = reader.track.language
                tracks.append(TransportStreamAudioTrack(reader: reader, stream: TransportStreamAudioStream(format: format.0, streamType: format.1, language: language)))
            }
            return tracks
        }
    }

    /// How a transport stream carries a sound sample entry's samples, or `nil` when it cannot.
    static func transportStreamFormat(_ entry: [UInt8]) -> (TransportStreamAudioStream.Format, TransportStreamType)? {
        guard entry.count >= 8 else { return nil }
        switch FourCC(rawValue: UInt32(entry[4]) << 24 | UInt32(entry[5]) << 16 | UInt32(entry[6]) << 8 | UInt32(entry[7])) {
        case FourCC("ac-3"):
            return (.ac3, .ac3)
        case FourCC(".mp2"), FourCC(".mp3"):
            // QuickTime MPEG audio has no esds: MPEG-2's lower sampling frequencies (ISO/IEC
            // 13818-3 2.4.2.3: 16, 22.05, 24 kHz) say stream_type 0x04.
            guard let rate = soundSampleRate(entry) else { return nil }
            return (.mpegAudio, rate < 32_000 ? .mpeg2Audio : .mpeg1Audio)
        case FourCC("mp4a"):
            guard let objectType = try? AudioSpecificConfig.objectTypeIndication(sampleEntry: entry) else { return nil }
            if objectType == 0x6B { return (.mpegAudio, .mpeg1Audio) }
            if objectType == 0x69 { return (.mpegAudio, .mpeg2Audio) }
            guard objectType == 0x40, let config = try? AudioSpecificConfig.fromSampleEntry(entry),
                  let header = try? ADTSHeader(audioSpecificConfig: config) else { return nil }
            return (.aac(header), .adtsAAC)
        default:
            return nil
        }
    }
}

extension MediaSource {
    /// The ISO `mp4a` sample entry (ISO/IEC 14496-14: an `esds` with objectTypeIndication 0x6B,
    /// MPEG-1 audio, or 0x69, MPEG-2's lower sampling frequencies, and no DecoderSpecificInfo, as
    /// ffmpeg writes MPEG audio in MP4) for QuickTime's `.mp2`/`.mp3` sound entry `entry`, whose
    /// samples are the same frames; `nil` for any other entry. What a CMAF segment carries
    /// (``NALUPackager``), where `.mp2` is no sample entry.
    package static func isoMPEGAudioEntry(_ entry: [UInt8]) -> [UInt8]? {
        guard entry.count >= 36 else { return nil }
        let type = FourCC(rawValue: UInt32(entry[4]) << 24 | UInt32(entry[5]) << 16 | UInt32(entry[6]) << 8 | UInt32(entry[7]))
        guard type == FourCC(".mp2") || type == FourCC(".mp3"), let rate = soundSampleRate(entry) else { return nil }
        let channels = Int(entry[24]) << 8 | Int(entry[25])
        return TransportStreamAudioReader.mp4SampleEntry(coding: .mpegAudio, audioSpecificConfig: [], sampleRate: rate,
                                                         channelCount: max(1, channels), mpegObjectType: rate < 32_000 ? 0x69 : 0x6B)
    }

    /// The sample rate of a sound sample entry (ISO/IEC 14496-12 12.2.3 AudioSampleEntry, the
    /// QuickTime SoundDescription versions 0–2): the integer part of `samplerate` (16.16 at byte
    /// 32), or version 2's `audioSampleRate` (a 64-bit float at byte 40); `nil` when the entry is
    /// too short or the rate is not a positive whole number below 2^24.
    static func soundSampleRate(_ entry: [UInt8]) -> Int? {
        guard entry.count >= 36 else { return nil }
        let version = Int(entry[16]) << 8 | Int(entry[17])
        if version == 2 {
            guard entry.count >= 48 else { return nil }
            var bits: UInt64 = 0
            for byte in entry[40..<48] { bits = bits << 8 | UInt64(byte) }
            let rate = Double(bitPattern: bits)
            guard let whole = CheckedNumber.int64(rate), whole > 0, whole < 1 << 24 else { return nil }
            return Int(whole)
        }
        let rate = Int(entry[32]) << 8 | Int(entry[33])
        return rate > 0 ? rate : nil
    }
}

extension MP4Track {
    /// Where the track's presentation starts (ISO/IEC 14496-12 8.6.6 `elst`): the leading empty
    /// edits' duration in the movie timescale, and the first non-empty edit's `media_time` in
    /// the track's timescale (0 without an edit list).
    public var presentationStart: (delay: UInt64, mediaTime: Int64) { editListStart(editList) }
}

/// The leading empty edits' duration and the first non-empty edit's `media_time` of `editList`.
public func editListStart(_ editList: [MP4EditListEntry]) -> (delay: UInt64, mediaTime: Int64) {
    var delay: UInt64 = 0
    for edit in editList {
        // Other negative media times are malformed: taken as 0.
        guard edit.mediaTime == -1 else { return (delay, max(0, edit.mediaTime)) }
        let (sum, overflow) = delay.addingReportingOverflow(edit.segmentDuration)
        delay = overflow ? delay : sum
    }
    return (delay, 0)
}

/// Feeds an MP4 AAC track's samples to a ``TransportStreamMuxer`` interleaved with its video:
/// before each access unit, the audio frames presented up to its decoding time go in, so audio
/// and video are never more than one frame apart in the file. Times keep the MP4's A/V offset:
/// a sample's time from the video's first picture is its decode time minus the audio edit's
/// `media_time`, plus the audio's leading empty edits minus the video's (movie timescale).
/// Memory: one sample buffer, reused.
public final class TransportStreamAudioFeeder {
    private let reader: MP4TrackReader<AnyRandomAccessSource>
    private var samples: MP4SampleIterator<AnyRandomAccessSource>
    private var next: MP4Sample?
    private var done = false
    private var buffer: [UInt8] = []
    private let range: Range<Int64>?
    /// Added to a sample's decode time (track timescale) to give its time from the video's start.
    private let shift: Int64
    private let stream: Int
    /// The track read.
    public var track: MP4Track { reader.track }
    /// Frames pushed so far.
    public private(set) var pushedFrames = 0

    /// - Parameters:
    ///   - videoDelay: the video's leading empty edits (movie timescale).
    ///   - decodeTimes: the decoding times (track timescale) to carry, `nil` for all; the range's
    ///     start is then the video's start.
    ///   - origin: the decode time (track timescale) presented with the video's first picture,
    ///     when the caller knows it (a cut); it replaces the edit lists' offset.
    ///   - stream: the muxer's audio stream the frames go to (``NALUTS/TransportStreamMuxer/addAudio(_:)``).
    public init(reader: MP4TrackReader<AnyRandomAccessSource>, movieTimescale: UInt32, videoDelay: UInt64,
                decodeTimes: Range<Int64>? = nil, origin: Int64? = nil, stream: Int = 0) {
        self.reader = reader
        self.stream = stream
        samples = reader.samples()
        range = decodeTimes
        let start = reader.track.presentationStart
        let scale = Int64(reader.track.timescale)
        let movie = Int64(max(1, movieTimescale))
        // (audioDelay − videoDelay) in the track's timescale; delays beyond 2^31 movie ticks are clamped.
        let audioDelay = Int64(min(start.delay, UInt64(Int32.max)))
        let videoDelay = Int64(min(videoDelay, UInt64(Int32.max)))
        let delay = (audioDelay - videoDelay) * scale / movie
        // Wrapping arithmetic: a malformed file's times give wrong times, never a trap.
        shift = origin.map { 0 &- $0 } ?? decodeTimes.map { 0 &- $0.lowerBound } ?? (delay &- start.mediaTime)
    }

    /// Wires the feeder to `muxer`: its ``TransportStreamMuxer/willWriteVideo`` (which keeps the
    /// feeder) pushes the due frames, after the feeders already there.
    public func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.alsoBeforeVideo { [unowned muxer] (time) throws(NALUError) in try self.push(upTo: time, muxer: muxer) }
    }

    /// Pushes the frames whose time is at or before `time` (90 kHz from the video's start), or
    /// all that are left for `nil`.
    public func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws(NALUError) {
        try NALUError.typed(field: "audio track") {
            let scale = Int64(reader.track.timescale)
            while let sample = try peek() {
                let (sampleTime, overflow) = sample.dts.addingReportingOverflow(shift)
                guard !overflow else { throw NALUError(.doesNotFit, field: "audio decode time", detail: "\(sample.dts)") }
                if let time {
                    // sampleTime / scale > time / 90000: not due yet.
                    let left = sampleTime.multipliedFullWidth(by: 90_000)
                    let right = time.multipliedFullWidth(by: scale)
                    if left.high > right.high || (left.high == right.high && left.low > right.low) { return }
                }
                try reader.read(sample, into: &buffer)
                try buffer.withBytes { (bytes) throws(NALUError) in try muxer.pushAudio(bytes, time: sampleTime, timescale: scale, stream: stream) }
                pushedFrames += 1
                next = nil
            }
        }
    }

    private func peek() throws(NALUError) -> MP4Sample? {
        if let next { return next }
        guard !done else { return nil }
        while let sample = try samples.next() {
            if let range {
                if sample.dts >= range.upperBound { break }
                if sample.dts < range.lowerBound { continue }
            }
            next = sample
            return sample
        }
        done = true
        return nil
    }
}

extension TransportStreamAudioReader {
    /// The MP4 sample entry for this stream (ISO/IEC 14496-12 12.2.3 AudioSampleEntry):
    /// - AAC: `mp4a` with an `esds` (ISO/IEC 14496-14 5.6: an ES_Descriptor, a
    ///   DecoderConfigDescriptor for objectTypeIndication 0x40 (MPEG-4 audio) holding the
    ///   AudioSpecificConfig, and the SLConfigDescriptor ISO/IEC 14496-14 requires);
    /// - AC-3: `ac-3` with a `dac3` (ETSI TS 102 366 F.3, F.4) from the first sync frame;
    /// - MPEG audio: `mp4a` whose `esds` has objectTypeIndication 0x6B (ISO/IEC 11172-3) or
    ///   0x69 (13818-3) and no DecoderSpecificInfo, as ffmpeg writes it.
    public var mp4SampleEntry: [UInt8] {
        Self.mp4SampleEntry(coding: coding, audioSpecificConfig: audioSpecificConfig, sampleRate: sampleRate, channelCount: channelCount,
                            ac3SpecificBox: ac3?.specificBox ?? [], mpegObjectType: mpegAudio?.objectTypeIndication ?? 0x6B)
    }

    /// The sample entry of ``mp4SampleEntry`` from its parts (the live packager's AAC: its
    /// AudioSpecificConfig, sample rate and channel count).
    package static func mp4SampleEntry(coding: Coding = .aac, audioSpecificConfig: [UInt8], sampleRate: Int, channelCount: Int,
                               ac3SpecificBox: [UInt8] = [], mpegObjectType: UInt8 = 0x6B) -> [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            // sizeOfInstance in four 7-bit bytes, as ffmpeg writes it.
            let size = body.count
            return [tag, UInt8(0x80 | (size >> 21) & 0x7F), UInt8(0x80 | (size >> 14) & 0x7F), UInt8(0x80 | (size >> 7) & 0x7F), UInt8(size & 0x7F)] + body
        }
        func esds(objectType: UInt8, specific: [UInt8]) -> [UInt8] {
            // objectTypeIndication, streamType 5 (audio) << 2 | 1, bufferSizeDB 0, max and avg bitrate 0 (unknown).
            let config = descriptor(0x04, [objectType, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + specific)
            let es = descriptor(0x03, [0, 0, 0] + config + descriptor(0x06, [0x02]))
            return box("esds", [0, 0, 0, 0] + es)
        }
        let rate = UInt32(min(sampleRate, 0xFFFF)) << 16
        var fields: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]  // reserved, data_reference_index 1
        fields += [0, 0, 0, 0, 0, 0, 0, 0]  // reserved (version 0)
        fields += [UInt8(channelCount >> 8), UInt8(channelCount & 0xFF), 0, 16, 0, 0, 0, 0]  // channelcount, samplesize 16
        fields += [UInt8(rate >> 24), UInt8((rate >> 16) & 0xFF), 0, 0]
        switch coding {
        case .aac:
            return box("mp4a", fields + esds(objectType: 0x40, specific: descriptor(0x05, audioSpecificConfig)))
        case .ac3:
            return box("ac-3", fields + ac3SpecificBox)
        case .mpegAudio:
            return box("mp4a", fields + esds(objectType: mpegObjectType, specific: []))
        }
    }

    /// How a transport stream output carries this stream: the same coding, `stream_type`
    /// (an AC-3 stream keeps ATSC's 0x81 or DVB's 0x06) and language.
    /// - Throws: ``NALU/NALUError`` for an AAC stream whose AudioSpecificConfig ADTS cannot say
    ///   (none: the reader made it from an ADTS header).
    public func transportStreamStream() throws(NALUError) -> TransportStreamAudioStream {
        return try NALUError.typed(field: "audio stream") {
            let type = TransportStreamType(rawValue: stream.streamType) ?? .adtsAAC
            switch coding {
            case .aac:
                return .aac(try ADTSHeader(audioSpecificConfig: audioSpecificConfig), language: stream.language)
            case .ac3:
                return TransportStreamAudioStream(format: .ac3, streamType: type == .privatePES ? .privatePES : .ac3, language: stream.language)
            case .mpegAudio:
                return TransportStreamAudioStream(format: .mpegAudio, streamType: type == .mpeg2Audio ? .mpeg2Audio : .mpeg1Audio, language: stream.language)
            }
        }
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = payload.count + 8
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }

    /// The sound track an MP4 output gets for this stream (its edit list set at the end by
    /// ``TransportStreamAudioMP4Feeder``).
    public var mp4Track: MP4PassthroughTrack {
        var track = MP4PassthroughTrack(handler: "soun", timescale: UInt32(sampleRate), sampleEntries: [mp4SampleEntry])
        if let language = stream.language, let code = MP4Track.languageCode(language) { track.languageCode = code }
        return track
    }

    /// ``mp4Track`` with the edit list its first frame implies against `origin` (the PTS of the
    /// video's first picture) in a movie of `movieTimescale`, the segment's duration left 0 (the
    /// rest of the media): what a fragmented MP4, whose `moov` comes first, keeps; the feeder
    /// replaces it with the exact one in the other layouts.
    public func mp4Track(origin: Int64, movieTimescale: UInt32 = TransportStreamAudioMP4Feeder.movieTimescale) -> MP4PassthroughTrack {
        var track = mp4Track
        let offset = firstPTS &- origin
        if offset > 0 {
            track.editList = [MP4EditListEntry(segmentDuration: UInt64(offset) &* UInt64(movieTimescale) / 90_000, mediaTime: -1),
                              MP4EditListEntry(segmentDuration: 0, mediaTime: 0)]
        } else if offset < 0 {
            track.editList = [MP4EditListEntry(segmentDuration: 0, mediaTime: (0 &- offset) &* Int64(max(1, sampleRate)) / 90_000)]
        }
        return track
    }
}

/// Appends a transport stream's AAC frames (``TransportStreamAudioReader``) to an
/// ``MP4Writer``'s passthrough track, interleaved with the video by time (about half a second
/// ahead, as ``MP4PassthroughInterleaver``), each frame 1024 samples, or up to the next frame's
/// PTS across a gap; at the end it sets the
/// track's edit list (ISO/IEC 14496-12 8.6.6) so the audio keeps its place against the video:
/// an empty edit when the audio starts after the video's first picture, a `media_time` when it
/// starts before (in the movie timescale ``movieTimescale``, 90 kHz).
public final class TransportStreamAudioMP4Feeder {
    /// The movie timescale the edit list is written in by default: the transport stream's.
    public static let movieTimescale: UInt32 = 90_000
    private let movieScale: UInt64
    private let reader: TransportStreamAudioReader
    private let track: Int
    /// PTS (90 kHz) presented with the video's first picture, and the PTS range kept.
    private let origin: Int64
    private let range: Range<Int64>?
    /// The presented duration of the video (movie timescale), when the audio is cut to it.
    private let presentedDuration: UInt64?
    private var next: (frame: [UInt8], pts: Int64)?
    private var done = false
    private var firstPTS: Int64?
    private var time: Int64 = 0
    /// Frames appended so far.
    public private(set) var appended = 0

    /// - Parameters:
    ///   - origin: the PTS the video's first shown picture has (``MediaSource/transportStreamVideoStart``).
    ///   - range: PTS (90 kHz) of the frames to keep: frames ending after its start and starting
    ///     before its end; `nil` keeps all.
    ///   - presentedDuration: the audio's edit lasts at most this (movie timescale).
    ///   - movieTimescale: the movie's timescale, which the edit list's durations are in.
    public init(reader: TransportStreamAudioReader, track: Int = 0, origin: Int64, range: Range<Int64>? = nil, presentedDuration: UInt64? = nil,
                movieTimescale: UInt32 = TransportStreamAudioMP4Feeder.movieTimescale) {
        movieScale = UInt64(max(1, movieTimescale))
        self.reader = reader
        self.track = track
        self.origin = origin
        self.range = range
        self.presentedDuration = presentedDuration
    }

    private var frameTicks: Int64 { Int64(reader.samplesPerFrame) * 90_000 / Int64(max(1, reader.sampleRate)) }

    /// The frame after ``next`` (read ahead to time ``next``'s duration), once read.
    private var following: (frame: [UInt8], pts: Int64)?
    private var readFollowing = false

    private func peek() throws -> (frame: [UInt8], pts: Int64)? {
        if let next { return next }
        if readFollowing {
            readFollowing = false
            next = following
            following = nil
            return next
        }
        next = try fetch()
        return next
    }

    /// The next frame in the range from the reader, or `nil` at its end.
    private func fetch() throws(NALUError) -> (frame: [UInt8], pts: Int64)? {
        guard !done else { return nil }
        while let frame = try reader.next() {
            if let range {
                if frame.pts >= range.upperBound { break }
                if frame.pts &+ frameTicks <= range.lowerBound { continue }
            }
            return frame
        }
        done = true
        return nil
    }

    /// How many samples `frame` lasts: until the next frame's PTS (a gap in the stream makes it
    /// longer, so every frame keeps its own time, never one counted from the first), a frame's
    /// worth (1024 for AAC, ISO/IEC 14496-3 4.5.1; ``TransportStreamAudioReader/samplesPerFrame``)
    /// when the next is that far within 90 kHz rounding, or for the last frame.
    private func duration(of frame: (frame: [UInt8], pts: Int64), rate: Int64) throws(NALUError) -> Int64 {
        if !readFollowing {
            following = try fetch()
            readFollowing = true
        }
        let whole = Int64(reader.samplesPerFrame)
        guard let following, let samples = CheckedNumber.rescale(following.pts &- frame.pts, from: 90_000, to: rate) else { return whole }
        if abs(samples &- whole) <= 64 { return whole }
        return min(max(1, samples), Int64(UInt32.max))
    }

    /// Appends the frames due before a video sample decoding at `decodeTime` / `timescale` s
    /// (half a second ahead); `nil` appends the rest and sets the edit list.
    public func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws(NALUError) {
        try NALUError.typed(field: "audio stream") {
            let rate = Int64(max(1, reader.sampleRate))
            while let frame = try peek() {
                if let decodeTime {
                    // time / rate ≥ decodeTime / timescale + 1/2: later.
                    let left = time.multipliedFullWidth(by: 2 * Int64(timescale))
                    let right = (decodeTime &* 2 &+ Int64(timescale)).multipliedFullWidth(by: rate)
                    if left.high > right.high || (left.high == right.high && left.low >= right.low) { return }
                }
                if firstPTS == nil { firstPTS = frame.pts }
                let samples = try duration(of: frame, rate: rate)
                try writer.append(frame.frame, track: track, duration: UInt32(samples), compositionOffset: 0, isSync: true, sampleDescription: 1)
                time &+= samples
                appended += 1
                next = nil
            }
            guard decodeTime == nil, let firstPTS else { return }
            // Where the first frame presents against the video's first picture, 90 kHz.
            let offset = firstPTS &- origin
            let media = UInt64(max(0, time))
            var edits: [MP4EditListEntry] = []
            var mediaTime: Int64 = 0
            var presented = media &* movieScale / UInt64(rate)
            let delay = UInt64(max(0, offset)) &* movieScale / 90_000
            if offset > 0 {
                edits.append(MP4EditListEntry(segmentDuration: delay, mediaTime: -1))
            } else if offset < 0 {
                mediaTime = min(Int64(media), (0 &- offset) &* rate / 90_000)
                presented = (media &- UInt64(mediaTime)) &* movieScale / UInt64(rate)
            }
            if let presentedDuration {
                presented = min(presented, presentedDuration > delay ? presentedDuration - delay : 0)
            }
            edits.append(MP4EditListEntry(segmentDuration: presented, mediaTime: mediaTime))
            try writer.setEditList(edits, passthroughTrack: track)
        }
    }
}

/// Pushes a transport stream's AAC frames (``TransportStreamAudioReader``) into a
/// ``TransportStreamMuxer`` as ADTS, interleaved with the video, each frame at its own PTS less
/// `origin` (the PTS of the input video's first picture), so the A/V offset stays as it was.
public final class TransportStreamToTransportStreamAudioFeeder {
    private let reader: TransportStreamAudioReader
    private let origin: Int64
    private let range: Range<Int64>?
    private let stream: Int
    private var next: (frame: [UInt8], pts: Int64)?
    private var done = false
    /// Frames pushed so far.
    public private(set) var pushedFrames = 0
    /// The reader's stream.
    public var source: TransportStreamAudioReader { reader }

    /// - Parameter stream: the muxer's audio stream the frames go to
    ///   (``NALUTS/TransportStreamMuxer/addAudio(_:)``).
    public init(reader: TransportStreamAudioReader, origin: Int64, range: Range<Int64>? = nil, stream: Int = 0) {
        self.reader = reader
        self.origin = origin
        self.range = range
        self.stream = stream
    }

    /// Wires the feeder to `muxer` beside the feeders already there
    /// (``NALUTS/TransportStreamMuxer/alsoBeforeVideo(_:)``).
    public func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.alsoBeforeVideo { [unowned muxer] (time) throws(NALUError) in try self.push(upTo: time, muxer: muxer) }
    }

    private func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws(NALUError) {
        let ticks = Int64(reader.samplesPerFrame) * 90_000 / Int64(max(1, reader.sampleRate))
        while true {
            if next == nil && !done {
                while let frame = try reader.next() {
                    if let range {
                        if frame.pts >= range.upperBound { break }
                        if frame.pts &+ ticks <= range.lowerBound { continue }
                    }
                    next = frame
                    break
                }
                if next == nil { done = true }
            }
            guard let frame = next else { return }
            let at = frame.pts &- origin
            if let time, at > time { return }
            try frame.frame.withBytes { (bytes) throws(NALUError) in try muxer.pushAudio(bytes, time: at, timescale: 90_000, stream: stream) }
            pushedFrames += 1
            next = nil
        }
    }
}
