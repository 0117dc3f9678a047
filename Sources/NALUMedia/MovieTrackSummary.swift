public import NALU
public import NALUMP4

/// One track of an MP4/MOV movie as `nalu info` lists it (issue 41 item 16): what it carries,
/// its language and, by kind, the audio's rate and channels or a timecode's start, read from its
/// sample entry (ISO/IEC 14496-12 12.2.3 AudioSampleEntry, QuickTime sound sample description
/// versions 0–2, QuickTime `tmcd`).
public struct MovieTrackSummary: Hashable, Sendable {
    /// `tkhd.track_ID`.
    public var trackID: UInt32
    /// `hdlr.handler_type`: `vide`, `soun`, `sbtl`, `text`, `subt`, `tmcd`, `meta`, ….
    public var handler: String
    /// What the track is: `video`, `audio`, `subtitle`, `timecode` or `data`.
    public var kind: String
    /// The first sample entry's type (`avc1`, `mp4a`, `tx3g`, `tmcd`, …).
    public var sampleEntry: String?
    /// The codec as ffprobe names it (`h264`, `aac`, `ac3`, `mov_text`, …), or the entry type.
    public var codec: String?
    /// ISO 639-2/T language (`mdhd`), `nil` when unspecified.
    public var language: String?
    /// `mdhd.timescale`, and the track's media duration in seconds (its samples' when the
    /// header has none), `nil` when unknown.
    public var timescale: UInt32
    public var durationSeconds: Double?
    /// Samples in the sample table and fragments.
    public var samples: Int
    /// Audio: samples per second and channels from the sample entry.
    public var sampleRate: Int?
    public var channels: Int?
    /// Timecode: the first sample's label (`01:00:00;00`) and whether it counts drop-frame.
    public var timecodeStart: String?
    public var dropFrame: Bool?

    /// Every track of `movie`, in file order. A track whose samples do not read is listed with
    /// what its header says; this list is informative, errors do not stop it.
    public static func list(_ movie: MP4MovieReader<some RandomAccessByteSource>) -> [MovieTrackSummary] {
        movie.tracks.map { reader in
            let track = reader.track
            let entry = track.sampleEntryType.map { $0.description.trimmingSpaces }
            var summary = MovieTrackSummary(trackID: track.trackID, handler: track.handler.description.trimmingSpaces,
                                            kind: kind(track), sampleEntry: entry, codec: entry.map(codecName),
                                            language: track.language, timescale: track.timescale, durationSeconds: nil, samples: 0)
            var count = 0
            var end: Int64 = 0
            var first: MP4Sample?
            var iterator = reader.samples()
            // A bounded walk: the count and the end of the last sample.
            while let sample = try? iterator.next() {
                if first == nil { first = sample }
                count += 1
                end = max(end, sample.dts &+ Int64(sample.duration))
            }
            summary.samples = count
            let duration = track.duration > 0 ? Double(track.duration) : Double(end)
            if track.timescale > 0 { summary.durationSeconds = duration / Double(track.timescale) }
            if track.isAudio, let bytes = track.sampleEntries.first {
                (summary.sampleRate, summary.channels) = audioFormat(bytes)
                if summary.sampleRate == nil, track.timescale > 0 { summary.sampleRate = Int(track.timescale) }
            }
            if track.handler == FourCC("tmcd"), let first, let bytes = track.sampleEntries.first,
               let timecode = try? MP4TimecodeEntry(sampleEntry: bytes) {
                var buffer: [UInt8] = []
                if (try? reader.read(first, into: &buffer)) != nil, let frame = MP4TimecodeSample.frame(buffer) {
                    summary.timecodeStart = timecode.label(frame: frame)
                    summary.dropFrame = timecode.isDropFrame
                }
            }
            return summary
        }
    }

    static func kind(_ track: MP4Track) -> String {
        switch track.handler.description {
        case "vide": "video"
        case "soun": "audio"
        case "sbtl", "subt", "text", "clcp": "subtitle"
        case "tmcd": "timecode"
        default: "data"
        }
    }

    static func codecName(_ entry: String) -> String {
        switch entry {
        case "avc1", "avc3": "h264"
        case "hvc1", "hev1": "hevc"
        case "mp4a": "aac"
        case "ac-3": "ac3"
        case "ec-3": "eac3"
        case ".mp3": "mp3"
        case "Opus": "opus"
        case "fLaC": "flac"
        case "alac": "alac"
        case "sowt", "twos", "lpcm", "in24", "in32", "fl32", "fl64", "raw": "pcm"
        case "tx3g": "mov_text"
        case "text": "mov_text"
        case "wvtt": "webvtt"
        case "stpp": "ttml"
        case "c608": "eia_608"
        case "tmcd": "timecode"
        default: entry
        }
    }

    /// A sound sample entry's rate and channels: version 0 and 1 (and ISO) `channelcount` at 24
    /// and `samplerate` 16.16 at 32; QuickTime version 2 `audioSampleRate` (64-bit float) at 40
    /// and `numAudioChannels` at 48.
    static func audioFormat(_ bytes: [UInt8]) -> (Int?, Int?) {
        func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func u32(_ at: Int) -> UInt32 { UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]) }
        guard bytes.count >= 36 else { return (nil, nil) }
        if u16(16) == 2, bytes.count >= 52 {
            let bits = UInt64(u32(40)) << 32 | UInt64(u32(44))
            let rate = CheckedNumber.int(Double(bitPattern: bits)).flatMap { $0 > 0 ? $0 : nil }
            return (rate, Int(u32(48)))
        }
        let rate = Int(u32(32) >> 16)
        return (rate > 0 ? rate : nil, u16(24))
    }
}

extension MediaSource {
    /// Every track of an MP4/MOV input (``MovieTrackSummary``), `nil` for another input.
    public func trackSummaries() throws(NALUError) -> [MovieTrackSummary]? {
        return try NALUError.typed(field: "moov") {
            guard let movie = try movie() else { return nil }
            return MovieTrackSummary.list(movie)
        }
    }
}

extension MP4MovieMetadata {
    /// The movie's location as ISO 6709 text (`+48.8584+002.2945/`), as ffprobe's `location`
    /// tag shows it: `udta`'s QuickTime `©xyz` (a 16-bit length, a 16-bit language, the text),
    /// else `meta`'s `com.apple.quicktime.location.ISO6709` key; `nil` when neither is there.
    public var location: String? {
        if let udta = userData, let text = Self.userDataLocation(udta) { return text }
        if let meta, let text = Self.metaLocation(meta) { return text }
        return nil
    }

    /// `©xyz` among the children of a whole `udta` box.
    static func userDataLocation(_ box: [UInt8]) -> String? {
        var offset = 8
        while offset + 8 <= box.count {
            let size = Int(box[offset]) << 24 | Int(box[offset + 1]) << 16 | Int(box[offset + 2]) << 8 | Int(box[offset + 3])
            guard size >= 8, offset + size <= box.count else { return nil }
            if box[offset + 4] == 0xA9, box[offset + 5] == 0x78, box[offset + 6] == 0x79, box[offset + 7] == 0x7A, size >= 12 {
                let length = Int(box[offset + 8]) << 8 | Int(box[offset + 9])
                let start = offset + 12
                guard start + length <= offset + size else { return nil }
                return String(decoding: box[start..<(start + length)], as: UTF8.self)
            }
            offset += size
        }
        return nil
    }

    /// The value of the `com.apple.quicktime.location.ISO6709` key of a whole `meta` box
    /// (`keys` names it, `ilst` item of the same index holds a `data` box): found by searching
    /// for the key's name and the `data` atom that follows in the item list, bounded by the box.
    static func metaLocation(_ box: [UInt8]) -> String? {
        let key = Array("com.apple.quicktime.location.ISO6709".utf8)
        // Find the key's index among keys (1-based).
        guard let keys = firstChild(box, type: "keys", from: 12) ?? firstChild(box, type: "keys", from: 8) else { return nil }
        var offset = keys.lowerBound + 16
        var index = 0
        var found: Int?
        while offset + 8 <= keys.upperBound {
            let size = readU32(box, offset)
            guard size >= 8, offset + size <= keys.upperBound else { break }
            index += 1
            if Array(box[(offset + 8)..<(offset + size)]) == key { found = index; break }
            offset += size
        }
        guard let found,
              let list = firstChild(box, type: "ilst", from: 12) ?? firstChild(box, type: "ilst", from: 8) else { return nil }
        offset = list.lowerBound + 8
        while offset + 8 <= list.upperBound {
            let size = readU32(box, offset)
            guard size >= 8, offset + size <= list.upperBound else { return nil }
            if readU32(box, offset + 4) == found, let data = firstChild(box, type: "data", from: offset + 8, end: offset + size),
               data.upperBound - data.lowerBound >= 16 {
                return String(decoding: box[(data.lowerBound + 16)..<data.upperBound], as: UTF8.self)
            }
            offset += size
        }
        return nil
    }

    private static func readU32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// The byte range of the first child box of `type` among the boxes from `from` to `end`.
    private static func firstChild(_ bytes: [UInt8], type: String, from: Int, end: Int? = nil) -> Range<Int>? {
        let limit = min(end ?? bytes.count, bytes.count)
        let name = Array(type.utf8)
        var offset = from
        while offset + 8 <= limit {
            let size = readU32(bytes, offset)
            guard size >= 8, offset + size <= limit else { return nil }
            if Array(bytes[(offset + 4)..<(offset + 8)]) == name { return offset..<(offset + size) }
            offset += size
        }
        return nil
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
