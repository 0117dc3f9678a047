public import NALU

/// A track or stream of an input other than the video read: an MP4/MOV track (audio,
/// subtitles, timecode, another video track) or a transport stream's ADTS AAC stream.
public struct MediaReaderTrack: Hashable, Sendable, CustomStringConvertible {
    /// The MP4 `tkhd` track_ID, or the transport stream PID.
    public var trackID: UInt32
    /// The MP4 `hdlr` handler_type (`soun`, `text`, `subt`, `tmcd`, `vide`, `meta`, …); `soun`
    /// for a transport stream's audio.
    public var handler: String
    /// Ticks per second of its samples' times.
    public var timescale: UInt32
    /// The MP4 sample entries, whole (ISO/IEC 14496-12 8.5.2), as the file has them; empty for
    /// a transport stream.
    public var sampleEntries: [[UInt8]]
    /// The AudioSpecificConfig of a transport stream's ADTS audio (ISO/IEC 14496-3 1.6.2.1);
    /// `nil` otherwise (an MP4 track's is in its sample entry's `esds`).
    public var audioSpecificConfig: [UInt8]?

    public init(trackID: UInt32, handler: String, timescale: UInt32, sampleEntries: [[UInt8]] = [], audioSpecificConfig: [UInt8]? = nil) {
        self.trackID = trackID
        self.handler = handler
        self.timescale = timescale
        self.sampleEntries = sampleEntries
        self.audioSpecificConfig = audioSpecificConfig
    }

    /// "track 2 (soun)".
    public var description: String { "track \(trackID) (\(handler))" }
}

/// One sample of a track other than the video (``MediaReaderTrack``): its bytes as the
/// container holds them (an MP4 sample; a raw AAC frame without its ADTS header for a
/// transport stream) and its times in the track's timescale.
public struct MediaTrackSample: Hashable, Sendable {
    /// The track's ``MediaReaderTrack/trackID``.
    public var trackID: UInt32
    /// Decoding-order index in its track, from 0.
    public var index: Int
    /// Decoding and presentation time and duration in the track's timescale, before any edit
    /// list (``NALU/SampleTiming``); for a transport stream's AAC, the PES packet's PTS for its
    /// first frame, then 1024 samples per frame, unwrapped across 2^33 (90 kHz).
    public var timing: SampleTiming
    /// Whether it is a sync sample (MP4 `stss` or fragment flags; every AAC frame is).
    public var isSync: Bool
    /// Offset of its first byte in the file (MP4), or `nil`.
    public var byteOffset: Int64?
    /// The bytes.
    public var bytes: [UInt8]

    public init(trackID: UInt32, index: Int, timing: SampleTiming, isSync: Bool = true, byteOffset: Int64? = nil, bytes: [UInt8]) {
        self.trackID = trackID
        self.index = index
        self.timing = timing
        self.isSync = isSync
        self.byteOffset = byteOffset
        self.bytes = bytes
    }
}

/// What a ``MediaReader`` yields, in decoding order, the tracks interleaved by time.
public enum MediaReaderItem: Hashable, Sendable {
    /// A complete coded access unit of the video, as decoders take it.
    case accessUnit(CodedAccessUnit)
    /// A sample of another track (audio, subtitles, timecode, …).
    case sample(MediaTrackSample)
    /// A damaged NAL unit left out (reading went on): never silent.
    case damaged(DamagedNALUnit)

    /// The access unit, if this is one.
    public var accessUnit: CodedAccessUnit? {
        if case .accessUnit(let unit) = self { return unit }
        return nil
    }

    /// The other track's sample, if this is one.
    public var sample: MediaTrackSample? {
        if case .sample(let sample) = self { return sample }
        return nil
    }

    /// The damaged unit, if this is one.
    public var damaged: DamagedNALUnit? {
        if case .damaged(let damaged) = self { return damaged }
        return nil
    }
}
