
/// One track of an MP4/MOV movie, whatever it carries (video, sound, text, metadata): what a
/// remuxer needs to copy it unchanged (ISO/IEC 14496-12 8.3 `trak`, 8.4 `mdia`, 8.5.2 `stsd`).
public struct MP4Track: Hashable, Sendable {
    /// `tkhd.track_ID`.
    public var trackID: UInt32
    /// `hdlr.handler_type`: `vide`, `soun`, `text`, `subt`, `meta`, ….
    public var handler: FourCC
    /// Ticks per second of the media timeline (`mdhd.timescale`).
    public var timescale: UInt32
    /// `mdhd.duration` in ``timescale`` units (0 in fragmented files).
    public var duration: UInt64
    /// `mdhd.language` as stored: a packed ISO 639-2/T code (three 5-bit letters), or a
    /// QuickTime Macintosh language code below 0x400.
    public var languageCode: UInt16
    /// Each sample entry of `stsd`, whole (box header included), byte for byte: `mp4a` with its
    /// `esds`, `ac-3` with `dac3`, `sowt`, `avc1` with `avcC`, …. Samples refer to them by
    /// 1-based index.
    public var sampleEntries: [[UInt8]]
    /// The edit list (`edts`/`elst`), empty when there is none: `segmentDuration` in the movie
    /// timescale, `mediaTime` in ``timescale``.
    public var editList: [MP4EditListEntry]
    /// `tkhd` flags (1 enabled, 2 in movie, 4 in preview).
    public var trackHeaderFlags: UInt32
    /// `tkhd.alternate_group`.
    public var alternateGroup: Int16
    /// `tkhd.volume`, 8.8 fixed point (0x0100 is full volume; 0 for visual tracks).
    public var volume: UInt16
    /// `tkhd.width` and `height`, 16.16 fixed point.
    public var width: UInt32
    public var height: UInt32
    /// The media information header box of `minf` (`vmhd`, `smhd`, `sthd`, `nmhd`, QuickTime
    /// `gmhd`, …), whole, or `nil` when there is none.
    public var mediaInformationHeader: [UInt8]?
    /// Samples listed in the sample table; fragments add more.
    public var sampleTableCount: Int
    /// Times, display matrix, layer, handler name, language and user data (``MP4TrackMetadata``).
    public var metadata = MP4TrackMetadata()

    public init(trackID: UInt32, handler: FourCC, timescale: UInt32, duration: UInt64, languageCode: UInt16 = 0x55C4,
                sampleEntries: [[UInt8]], editList: [MP4EditListEntry] = [], trackHeaderFlags: UInt32 = 3, alternateGroup: Int16 = 0,
                volume: UInt16 = 0, width: UInt32 = 0, height: UInt32 = 0, mediaInformationHeader: [UInt8]? = nil,
                sampleTableCount: Int = 0) {
        self.trackID = trackID
        self.handler = handler
        self.timescale = timescale
        self.duration = duration
        self.languageCode = languageCode
        self.sampleEntries = sampleEntries
        self.editList = editList
        self.trackHeaderFlags = trackHeaderFlags
        self.alternateGroup = alternateGroup
        self.volume = volume
        self.width = width
        self.height = height
        self.mediaInformationHeader = mediaInformationHeader
        self.sampleTableCount = sampleTableCount
    }

    /// The first sample entry's format (`mp4a`, `sowt`, `avc1`, …).
    public var sampleEntryType: FourCC? {
        guard let entry = sampleEntries.first, entry.count >= 8 else { return nil }
        return FourCC(rawValue: UInt32(entry[4]) << 24 | UInt32(entry[5]) << 16 | UInt32(entry[6]) << 8 | UInt32(entry[7]))
    }

    /// Whether this is a sound track (`soun`).
    public var isAudio: Bool { handler == FourCC("soun") }

    /// The ISO 639-2 language (`"eng"`, `"und"`); a QuickTime Macintosh code (below 0x400) is
    /// named as ffmpeg names it (0 `eng`, 1 `fra`, 2 `ger`, …, 28 `lav`), others are `nil`, as is
    /// QuickTime's unspecified 0x7FFF.
    public var language: String? { Self.language(code: languageCode) }

    /// The ISO 639-2 language of an `mdhd.language` value, as ``language`` reads it.
    public static func language(code languageCode: UInt16) -> String? {
        guard languageCode >= 0x400 else {
            return languageCode < Self.macintoshLanguages.count ? Self.macintoshLanguages[Int(languageCode)] : nil
        }
        let letters = [(languageCode >> 10) & 0x1F, (languageCode >> 5) & 0x1F, languageCode & 0x1F]
        guard letters.allSatisfy({ $0 >= 1 && $0 <= 26 }) else { return nil }
        return String(decoding: letters.map { UInt8($0) + 0x60 }, as: UTF8.self)
    }

    /// `mdhd.language` for an ISO 639-2/T code (ISO/IEC 14496-12 8.4.2.3: each letter's value
    /// less 0x60 in 5 bits), or `nil` for anything but three letters.
    public static func languageCode(_ language: String) -> UInt16? {
        let letters = Array(language.lowercased().utf8)
        guard letters.count == 3, letters.allSatisfy({ (0x61...0x7A).contains($0) }) else { return nil }
        return letters.reduce(UInt16(0)) { $0 << 5 | UInt16($1 - 0x60) }
    }

    /// QuickTime's Macintosh language codes 0–28 as ffmpeg's `mov` demuxer names them
    /// (`nil` where it has none).
    static let macintoshLanguages: [String?] = [
        "eng", "fra", "ger", "ita", "dut", "sve", "spa", "dan", "por", "nor",
        "heb", "jpn", "ara", "fin", "gre", "ice", "mlt", "tur", nil, "chi",
        "urd", "hin", "tha", "kor", "lit", "pol", "hun", "est", "lav",
    ]
}
