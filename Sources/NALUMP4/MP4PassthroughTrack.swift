/// A track an ``MP4Writer`` writes beside its video track, its samples copied unchanged: audio
/// (`mp4a` with its `esds`, `ac-3`, `sowt`, …), subtitles, metadata (ISO/IEC 14496-12 8.3
/// `trak`). The writer builds the sample tables (or fragments) from what each sample says; the
/// sample entries are written byte for byte.
public struct MP4PassthroughTrack: Hashable, Sendable {
    /// `hdlr.handler_type`: `soun`, `text`, `subt`, `meta`, ….
    public var handler: FourCC
    /// Ticks per second of the media timeline (`mdhd.timescale`).
    public var timescale: UInt32
    /// The `stsd` entries, each a whole box (header included); samples name them by 1-based index.
    public var sampleEntries: [[UInt8]]
    /// `mdhd.language` as stored (packed ISO 639-2/T; 0x55C4 is "und").
    public var languageCode: UInt16
    /// Written verbatim as the track's `elst` when non-nil: `segmentDuration` in the movie
    /// timescale, `mediaTime` in ``timescale``. `nil`: no edit list (the media starts at 0).
    public var editList: [MP4EditListEntry]?
    /// `tkhd` flags (1 enabled, 2 in movie).
    public var trackHeaderFlags: UInt32
    /// `tkhd.alternate_group`.
    public var alternateGroup: Int16
    /// `tkhd.volume`, 8.8 fixed point (0x0100 full).
    public var volume: UInt16
    /// `tkhd.width` and `height`, 16.16 fixed point.
    public var width: UInt32
    public var height: UInt32
    /// The `minf` media information header box, whole (`smhd`, `nmhd`, `sthd`, …); `nil`
    /// writes `smhd` for sound, `vmhd` for video, `nmhd` otherwise.
    public var mediaInformationHeader: [UInt8]?
    /// Times, matrix, layer, handler name and `udta` copied from the input (``MP4TrackMetadata``);
    /// `nil` writes zero times, the identity matrix and the default handler name.
    public var metadata: MP4TrackMetadata?

    public init(handler: FourCC, timescale: UInt32, sampleEntries: [[UInt8]], languageCode: UInt16 = 0x55C4,
                editList: [MP4EditListEntry]? = nil, trackHeaderFlags: UInt32 = 3, alternateGroup: Int16 = 0,
                volume: UInt16 = 0x0100, width: UInt32 = 0, height: UInt32 = 0, mediaInformationHeader: [UInt8]? = nil) {
        self.handler = handler
        self.timescale = timescale
        self.sampleEntries = sampleEntries
        self.languageCode = languageCode
        self.editList = editList
        self.trackHeaderFlags = trackHeaderFlags
        self.alternateGroup = alternateGroup
        self.volume = volume
        self.width = width
        self.height = height
        self.mediaInformationHeader = mediaInformationHeader
    }

    /// A copy of `track` as read (``MP4TrackReader``): its handler, timescale, entries,
    /// language, header fields, media information header, metadata (times, matrix, handler
    /// name, `udta`), and its edit list (`nil` when it has
    /// none). The edit list's durations are in the input's movie timescale: write with that
    /// ``MP4WriterConfiguration/movieTimescale`` to keep them exact.
    public init(copying track: MP4Track) {
        self.init(handler: track.handler, timescale: track.timescale, sampleEntries: track.sampleEntries,
                  languageCode: track.languageCode, editList: track.editList.isEmpty ? nil : track.editList,
                  trackHeaderFlags: track.trackHeaderFlags, alternateGroup: track.alternateGroup, volume: track.volume,
                  width: track.width, height: track.height, mediaInformationHeader: track.mediaInformationHeader)
        metadata = track.metadata
    }
}

/// Exact conversions between timescales.
enum MP4Timescale {
    /// `value · to / from`, rounded up, or `nil` when the result passes 64 bits or `from` is 0.
    static func convert(_ value: UInt64, from: UInt32, to: UInt32) -> UInt64? {
        guard from > 0 else { return nil }
        let product = value.multipliedFullWidth(by: UInt64(to))
        let divisor = UInt64(from)
        guard product.high < divisor else { return nil }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        if remainder == 0 { return quotient }
        return quotient == .max ? nil : quotient + 1
    }
}
