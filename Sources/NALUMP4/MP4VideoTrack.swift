public import NALU

/// The sample entry formats a video track can have for H.264 and H.265 (ISO/IEC 14496-15 5.4
/// and 8.4): `avc1`/`hvc1` keep parameter sets out of band in the decoder configuration record
/// only; `avc3`/`hev1` may also carry them in the samples.
public enum MP4SampleEntryType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case avc1, avc3, hvc1, hev1

    /// The codec the entry describes.
    public var codec: Codec { self == .avc1 || self == .avc3 ? .h264 : .hevc }

    /// Whether parameter sets may appear in the samples (`avc3`, `hev1`).
    public var allowsInBandParameterSets: Bool { self == .avc3 || self == .hev1 }

    /// The box type.
    public var fourCC: FourCC { FourCC(rawValue) }

    /// The type for `codec` with parameter sets out of band (`avc1`, `hvc1`) or in band (`avc3`, `hev1`).
    public init(codec: Codec, inBandParameterSets: Bool) {
        switch codec {
        case .h264: self = inBandParameterSets ? .avc3 : .avc1
        case .hevc: self = inBandParameterSets ? .hev1 : .hvc1
        }
    }

    init?(_ type: FourCC) {
        switch type {
        case .avc1: self = .avc1
        case .avc3: self = .avc3
        case .hvc1: self = .hvc1
        case .hev1: self = .hev1
        default: return nil
        }
    }

    public var description: String { rawValue }
}

/// One entry of a video track's sample description box (ISO/IEC 14496-12 8.5.2): a
/// `VisualSampleEntry` with its `avcC`/`hvcC` (ISO/IEC 14496-15 5.4.2.1, 8.4.1.1).
public struct MP4SampleDescription: Hashable, Sendable {
    /// The entry's format.
    public var type: MP4SampleEntryType
    /// `width` and `height` of the VisualSampleEntry, in pixels.
    public var width: Int
    public var height: Int
    /// The `avcC`/`hvcC` payload as stored.
    public var recordBytes: [UInt8]
    /// The record, parsed.
    public var record: DecoderConfigurationRecord
    /// The entry's `colr` box, if any (12.1.5).
    public var colour: MP4ColourInformation?
    /// The entry's `pasp` box, if any (12.1.4).
    public var pixelAspectRatio: MP4PixelAspectRatio?

    public init(type: MP4SampleEntryType, width: Int, height: Int, recordBytes: [UInt8], record: DecoderConfigurationRecord) {
        self.type = type
        self.width = width
        self.height = height
        self.recordBytes = recordBytes
        self.record = record
    }
}

/// One entry of an edit list (ISO/IEC 14496-12 8.6.6 "Edit List Box"): which part of the media
/// timeline plays, for how long.
public struct MP4EditListEntry: Hashable, Sendable {
    /// Duration of the segment, in the movie's timescale (`mvhd`).
    public var segmentDuration: UInt64
    /// Start of the segment in the media's timescale (`mdhd`); -1 is an empty edit (a gap).
    public var mediaTime: Int64
    /// `media_rate_integer` (1 for normal play, 0 for a dwell).
    public var mediaRateInteger: Int16
    /// `media_rate_fraction`.
    public var mediaRateFraction: Int16

    public init(segmentDuration: UInt64, mediaTime: Int64, mediaRateInteger: Int16 = 1, mediaRateFraction: Int16 = 0) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.mediaRateInteger = mediaRateInteger
        self.mediaRateFraction = mediaRateFraction
    }
}

/// What the file says about itself in its `ftyp` box (ISO/IEC 14496-12 4.3).
public struct MP4FileType: Hashable, Sendable {
    /// `major_brand` (`isom`, `mp42`, `qt  ` …).
    public var majorBrand: FourCC
    /// `minor_version`.
    public var minorVersion: UInt32
    /// `compatible_brands`.
    public var compatibleBrands: [FourCC]

    public init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    /// Whether this is a QuickTime movie (major brand `qt  `).
    public var isQuickTime: Bool { majorBrand == .quickTime }
}

/// The video track an ``MP4VideoTrackReader`` reads: its codec, timing and decoder configuration.
public struct MP4VideoTrack: Hashable, Sendable {
    /// `track_ID` from `tkhd`.
    public var trackID: UInt32
    /// The first sample entry: the track's format.
    public var sampleDescription: MP4SampleDescription
    /// Further sample entries (rare: a format change mid-track).
    public var additionalSampleDescriptions: [MP4SampleDescription]
    /// Ticks per second of the media timeline (`mdhd.timescale`).
    public var timescale: UInt32
    /// Media duration in ``timescale`` units (`mdhd.duration`; 0 for fragmented files, whose
    /// samples live in the fragments).
    public var duration: UInt64
    /// Ticks per second of the movie timeline (`mvhd.timescale`), the unit of edit durations.
    public var movieTimescale: UInt32
    /// Movie duration in ``movieTimescale`` units (`mvhd.duration`), or `mehd`'s
    /// `fragment_duration` for fragmented files that have one.
    public var movieDuration: UInt64
    /// The edit list (`edts`/`elst`), empty when there is none. Noted, not applied: samples
    /// keep their media times.
    public var editList: [MP4EditListEntry]
    /// Samples listed in the sample table (`stsz`/`stz2`); fragments add more.
    public var sampleTableCount: Int
    /// Whether the movie has an `mvex` box: samples follow in movie fragments.
    public var isFragmented: Bool

    /// Every sample entry; samples refer to them by 1-based index.
    public var sampleDescriptions: [MP4SampleDescription] { [sampleDescription] + additionalSampleDescriptions }
    /// The format of the first sample entry.
    public var sampleEntryType: MP4SampleEntryType { sampleDescription.type }
    /// The track's codec.
    public var codec: Codec { sampleEntryType.codec }
    /// The first sample entry's decoder configuration record.
    public var decoderConfiguration: DecoderConfigurationRecord { sampleDescription.record }
    /// Bytes per NAL unit length in the samples.
    public var lengthSize: Int { decoderConfiguration.lengthSize }
    /// Width and height of the first sample entry.
    public var width: Int { sampleDescription.width }
    public var height: Int { sampleDescription.height }

    public init(trackID: UInt32, sampleDescription: MP4SampleDescription, additionalSampleDescriptions: [MP4SampleDescription] = [],
                timescale: UInt32, duration: UInt64, movieTimescale: UInt32, movieDuration: UInt64,
                editList: [MP4EditListEntry], sampleTableCount: Int, isFragmented: Bool) {
        self.trackID = trackID
        self.sampleDescription = sampleDescription
        self.additionalSampleDescriptions = additionalSampleDescriptions
        self.timescale = timescale
        self.duration = duration
        self.movieTimescale = movieTimescale
        self.movieDuration = movieDuration
        self.editList = editList
        self.sampleTableCount = sampleTableCount
        self.isFragmented = isFragmented
    }
}

/// One sample of a track in decoding order: an access unit of the video track, an audio frame
/// (or, QuickTime PCM, one PCM frame), a subtitle.
public struct MP4Sample: Hashable, Sendable {
    /// Position in decoding order, from 0 (fragments continue the count).
    public var index: Int
    /// Offset of the sample's first byte in the file.
    public var offset: Int64
    /// Size in bytes.
    public var size: Int
    /// Decoding time in the track's timescale.
    public var dts: Int64
    /// Composition (presentation) time in the track's timescale: `dts` plus the composition
    /// offset (`ctts` or `trun`), before any edit list.
    public var pts: Int64
    /// Duration in the track's timescale.
    public var duration: UInt32
    /// Whether it is a sync sample (`stss`, or not `sample_is_non_sync_sample` in a fragment).
    public var isSync: Bool
    /// 1-based index of its sample description.
    public var sampleDescriptionIndex: Int

    public init(index: Int, offset: Int64, size: Int, dts: Int64, pts: Int64, duration: UInt32, isSync: Bool,
                sampleDescriptionIndex: Int = 1) {
        self.index = index
        self.offset = offset
        self.size = size
        self.dts = dts
        self.pts = pts
        self.duration = duration
        self.isSync = isSync
        self.sampleDescriptionIndex = sampleDescriptionIndex
    }

    /// `pts - dts`.
    public var compositionOffset: Int64 { pts - dts }
}
