public import NALU
import NALUMedia

/// What the media segments hold.
public enum SegmentType: String, Sendable, CaseIterable {
    /// CMAF fragmented MP4 (ISO/IEC 23000-19): an init segment and `.m4s` media segments.
    case fmp4
    /// MPEG-2 transport stream segments (ISO/IEC 13818-1), `.ts`, for classic HLS.
    case ts
}

/// How a ``Packager`` cuts and describes a presentation.
public struct PackagerOptions: Sendable {
    /// The target duration of a segment in seconds: a segment is cut at the first keyframe at or
    /// after each multiple of it (counted from the first sample), never elsewhere.
    public var segmentDuration: Rational
    public var segmentType: SegmentType
    /// Write HLS playlists (RFC 8216): one media playlist per track and a multivariant playlist.
    public var hls: Bool
    /// Write a static DASH MPD (ISO/IEC 23009-1) over the same segments (fMP4 only).
    public var dash: Bool
    /// Check that the renditions' segments start at the same times (their keyframes align).
    public var checksAlignment: Bool
    /// Package no audio (else each audio track of the first input becomes an audio rendition).
    public var dropsAudio: Bool
    /// Leave subtitle and closed-caption tracks out (`text`, `sbtl`, `subt`, `clcp`; a package has
    /// no WebVTT renditions): without it they are listed in ``PackageSummary/notCarried``.
    public var dropsSubtitles = false
    /// Leave timecode tracks out (`tmcd`): without it they are listed in ``PackageSummary/notCarried``.
    public var dropsTimecode = false
    /// Low-latency HLS: the part target in seconds (`EXT-X-PART-INF:PART-TARGET`); each segment
    /// is also cut into parts no longer than it (fMP4 only). `nil`: no parts.
    public var partDuration: Rational? = nil
    /// One media file per track (`v0.mp4`, `a0.mp4`, or `.ts`) addressed by byte ranges (HLS
    /// `EXT-X-BYTERANGE`, DASH `SegmentBase` with a `sidx`) instead of a file per segment.
    public var singleFile = false
    /// Live (``LivePackager``): playlists list the last this many segments (a sliding window);
    /// older segments are deleted.
    public var window = 6
    /// The frame rate a raw (Annex-B or length-prefixed) input is timed at (`--fps`); `nil`: its
    /// SPS VUI timing. Inputs with times of their own (MP4/MOV, MPEG-TS) keep them.
    public var frameRate: Rational? = nil
    /// What becomes of an H.265 CRA picture with RASL pictures that starts a segment (`--open-gop`).
    public var openGOP: OpenGOPPolicy = .keep
    /// Bytes of one access unit (and one NAL unit) held in memory at most (`--max-access-unit-size`,
    /// ``NALU/AccessUnitLimit``): past it, raw, MPEG-TS, MP4 and live inputs stop with
    /// ``NALU/NALUError/Code/tooLarge`` naming the access unit.
    public var maxAccessUnitSize = AccessUnitLimit.defaultMaxBytes
    /// Other files the run reads (an `--extradata` record): like the inputs, no package file
    /// may replace them.
    public var otherInputs: [String] = []

    public init(segmentDuration: Rational = Rational(4, 1), segmentType: SegmentType = .fmp4, hls: Bool = true, dash: Bool = false,
                checksAlignment: Bool = true, dropsAudio: Bool = false) {
        self.segmentDuration = segmentDuration
        self.segmentType = segmentType
        self.hls = hls
        self.dash = dash
        self.checksAlignment = checksAlignment
        self.dropsAudio = dropsAudio
    }
}

/// One media segment written.
public struct PackagedSegment: Hashable, Sendable {
    /// The file name, relative to the output folder.
    public var name: String
    /// Decoding time of its first sample (`tfdt`), in the track's timescale.
    public var decodeTime: Int64
    /// Presentation time of its first sample (on the presentation timeline: after the track's
    /// edit), in the track's timescale.
    public var presentationTime: Int64
    /// The sum of its samples' durations, in the track's timescale.
    public var duration: Int64
    /// Bytes of the file.
    public var bytes: Int64
    /// Samples in it.
    public var samples: Int
    /// Whether its first sample is a sync sample.
    public var startsWithSyncSample: Bool
    /// Its LL-HLS parts, in order (empty without ``PackagerOptions/partDuration``).
    public var parts: [PackagedPart] = []
    /// With ``PackagerOptions/singleFile``: where it starts in the track's media file (``name``).
    public var byteOffset: Int64? = nil
    /// Live: how many parameter-set changes came before it (each starts a new init segment: an
    /// HLS discontinuity, a DASH period); 0 for the stream's first.
    public var period = 0
    /// Its init segment when it is not the track's ``PackagedTrack/initName`` (after a
    /// parameter-set change in a live stream).
    public var initName: String? = nil
}

/// One LL-HLS part (RFC 8216bis 4.4.4.9, `EXT-X-PART`): a CMAF chunk of a segment, in its own file.
public struct PackagedPart: Hashable, Sendable {
    /// The file name, relative to the output folder.
    public var name: String
    /// The sum of its samples' durations, in the track's timescale.
    public var duration: Int64
    /// Bytes of the file.
    public var bytes: Int64
    /// Whether its first sample is a sync sample (`INDEPENDENT=YES`).
    public var independent: Bool
    /// With ``PackagerOptions/singleFile``: where it starts in the track's media file (``name``).
    public var byteOffset: Int64? = nil
}

/// One track of the package: a video rendition or the audio rendition.
public struct PackagedTrack: Hashable, Sendable {
    public enum Kind: String, Sendable { case video, audio }
    public var kind: Kind
    /// The input it came from.
    public var inputPath: String
    /// The prefix of its files ("v0", "a0").
    public var name: String
    /// The init segment's file name (fMP4), or `nil` (TS).
    public var initName: String?
    public var timescale: UInt32
    /// The RFC 6381 codec string (`avc1.64001f`, `hvc1.2.4.L120.B0`, `mp4a.40.2`).
    public var codecs: String
    public var width: Int = 0
    public var height: Int = 0
    /// Average frames per second (video).
    public var frameRate: Double?
    /// Audio channels, when the sample entry says.
    public var channels: Int?
    /// The ISO 639-2 language of an audio rendition (`mdhd`), `nil` when undetermined: HLS
    /// `LANGUAGE`, DASH `AdaptationSet@lang`.
    public var language: String? = nil
    /// The media time the presentation starts at (the edit list's `media_time`; DASH
    /// `presentationTimeOffset`).
    public var presentationOffset: Int64 = 0
    public var segments: [PackagedSegment] = []
    /// The LL-HLS part target in seconds, when the segments have parts.
    public var partTarget: Double? = nil
    /// With ``PackagerOptions/singleFile``: the init segment's bytes at the start of the media
    /// file (HLS `EXT-X-MAP` `BYTERANGE`, DASH `Initialization@range`).
    public var initBytes: Int64? = nil
    /// With ``PackagerOptions/singleFile`` (fMP4): where the segment index (`sidx`) starts in the
    /// media file (DASH `SegmentBase@indexRange`).
    public var indexOffset: Int64? = nil
    /// Bytes of that segment index.
    public var indexSize: Int64 = 0

    /// Bits per second of the busiest segment (HLS `BANDWIDTH`), rounded up.
    public var peakBandwidth: Int {
        var peak = 0.0
        for segment in segments where segment.duration > 0 {
            peak = max(peak, Double(segment.bytes) * 8 * Double(timescale) / Double(segment.duration))
        }
        return CheckedNumber.int(peak.rounded(.up)) ?? Int.max
    }

    /// Bits per second over all segments (HLS `AVERAGE-BANDWIDTH`), rounded up.
    public var averageBandwidth: Int {
        let bytes = segments.reduce(Int64(0)) { $0 + $1.bytes }
        let ticks = segments.reduce(Int64(0)) { $0 + $1.duration }
        guard ticks > 0 else { return 0 }
        return CheckedNumber.int((Double(bytes) * 8 * Double(timescale) / Double(ticks)).rounded(.up)) ?? Int.max
    }

    /// Seconds of all segments.
    public var duration: Double {
        Double(segments.reduce(Int64(0)) { $0 + $1.duration }) / Double(max(timescale, 1))
    }
}

/// What a ``Packager`` wrote.
public struct PackageSummary: Sendable {
    /// The video renditions, in input order.
    public var video: [PackagedTrack]
    /// The first audio rendition, if any.
    public var audio: PackagedTrack? { audioRenditions.first }
    /// Every audio rendition (`a0`, `a1`, …: one per audio track of the first input), in track order.
    public var audioRenditions: [PackagedTrack]
    /// The input tracks not packaged (subtitles, timecode, data: "in.mov track 3 (text, tx3g)"),
    /// which the caller reports (``PackagerOptions/dropsSubtitles`` and
    /// ``PackagerOptions/dropsTimecode`` leave theirs out on purpose: not listed).
    public var notCarried: [String] = []
    /// Transport stream inputs whose other programs were not read (no
    /// ``NALUMedia/MediaSourceOptions/pid`` chose the program: the first program's video and
    /// audio were packaged), in input order, which the caller reports: nothing is left out
    /// silently.
    public var programsNotRead: [ProgramsNotRead] = []

    /// The other programs of one transport stream input, not read.
    public struct ProgramsNotRead: Sendable, Hashable {
        /// The input's path, as given.
        public var input: String
        /// Each program left out: `program 2 (PMT PID 0x1001)`.
        public var programs: [String]

        /// The programs of `input` not read.
        public init(input: String, programs: [String]) {
            self.input = input
            self.programs = programs
        }
    }

    /// A summary of what was written.
    public init(video: [PackagedTrack], audio: [PackagedTrack], manifests: [String], notes: [String], notCarried: [String] = []) {
        self.video = video
        audioRenditions = audio
        self.manifests = manifests
        self.notes = notes
        self.notCarried = notCarried
    }

    /// One audio rendition or none.
    public init(video: [PackagedTrack], audio: PackagedTrack?, manifests: [String], notes: [String]) {
        self.init(video: video, audio: audio.map { [$0] } ?? [], manifests: manifests, notes: notes)
    }
    /// Files written besides segments (playlists, manifest), relative to the folder.
    public var manifests: [String]
    /// Things the user should know although nothing failed.
    public var notes: [String]
}

extension PackagerOptions {
    /// Refuses options that do not go together (what `nalu package` refuses before reading): a
    /// segment duration outside 0.1…3600 s, DASH or parts with MPEG-TS segments, parts longer
    /// than a segment or shorter than 50 ms, single files or MPEG-TS segments when `live`, a
    /// live window outside 1…10000 segments, an access unit limit outside 64 KiB…1 GiB.
    /// - Parameter live: whether ``LivePackager`` packages (else ``Packager``).
    /// - Throws: ``NALU/NALUError/Code/invalidValue``, the field naming the option concerned and
    ///   the detail the whole sentence, in the command line's option names.
    public func validate(live: Bool) throws(NALUError) {
        func refuse(_ field: String, _ sentence: String) -> NALUError { NALUError(.invalidValue, field: field, detail: sentence) }
        func seconds(_ value: Rational) -> Double { value.denominator > 0 ? Double(value.numerator) / Double(value.denominator) : .nan }
        let segment = seconds(segmentDuration)
        guard segment >= 0.1, segment <= 3600 else {
            throw refuse("--segment-duration", "--segment-duration must be between 0.1 and 3600 seconds.")
        }
        if segmentType == .ts && dash { throw refuse("--dash", "--dash needs fmp4 segments (--segment-type fmp4).") }
        if let partDuration {
            guard seconds(partDuration) >= 0.05, seconds(partDuration) <= segment else {
                throw refuse("--part-duration", "--part-duration must be between 0.05 s and --segment-duration.")
            }
            if segmentType == .ts { throw refuse("--part-duration", "--part-duration needs fmp4 segments (--segment-type fmp4).") }
        }
        if live {
            if singleFile { throw refuse("--single-file", "--single-file goes with files, not --live.") }
            if segmentType == .ts { throw refuse("--live", "--live writes fmp4 segments (--segment-type fmp4).") }
            guard window >= 1 && window <= 10_000 else { throw refuse("--window", "--window must be between 1 and 10000 segments.") }
        }
        if maxAccessUnitSize < 1 << 16 || maxAccessUnitSize > 1 << 30 {
            throw refuse("--max-access-unit-size", "--max-access-unit-size must be between 65536 and 1073741824 bytes.")
        }
    }
}
