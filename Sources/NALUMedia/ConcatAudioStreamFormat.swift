import NALU
import NALUMP4
public import NALUTS

/// What a joined audio stream of a ``ConcatTransportStreamAudio`` is, as its first input has it
/// (a transport stream's audio stream, ``TransportStreamAudioReader``, or an MP4/MOV sound track),
/// and what every other input's k-th stream must agree with: the coding, sample rate and channel
/// count (for AAC the ADTS fields of the AudioSpecificConfig: ISO/IEC 14496-3 1.6.2.1 audio object
/// type, sampling frequency index, channel configuration).
public struct ConcatAudioStreamFormat: Sendable {
    /// How the stream is coded (AAC, AC-3, MPEG audio).
    public let coding: TransportStreamAudioReader.Coding
    /// Samples per second (AAC: the AudioSpecificConfig's sampling frequency).
    public let sampleRate: Int
    /// Channels (AAC: from the channel configuration).
    public let channelCount: Int
    /// Audio samples per channel in one frame (1024 AAC, 1536 AC-3, 1152 or 576 MPEG audio).
    public let samplesPerFrame: Int
    /// The ISO 639-2 language, where the input names one.
    public let language: String?
    /// AAC: the header every frame of the stream would carry in ADTS.
    let adts: ADTSHeader?
    /// The sample entry an MP4 output's sound track gets (ISO/IEC 14496-12 12.2.3).
    public let mp4SampleEntry: [UInt8]
    /// How a transport stream output carries it.
    public let transportStreamStream: TransportStreamAudioStream

    /// A transport stream's audio stream.
    init(_ reader: TransportStreamAudioReader) throws(NALUError) {
        coding = reader.coding
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
        samplesPerFrame = reader.samplesPerFrame
        language = reader.stream.language
        adts = reader.coding == .aac ? try ADTSHeader(audioSpecificConfig: reader.audioSpecificConfig) : nil
        mp4SampleEntry = reader.mp4SampleEntry
        transportStreamStream = try reader.transportStreamStream()
    }

    /// An MP4/MOV sound track with one sample entry, or `nil` when a transport stream cannot
    /// carry it (neither AAC that ADTS can say, nor AC-3, nor MPEG audio) or it has no rate.
    init?(_ track: MP4Track, firstSampleDuration: UInt32?) {
        guard track.sampleEntries.count == 1, let entry = track.sampleEntries.first,
              let (format, streamType) = MediaSource.transportStreamFormat(entry) else { return nil }
        let language = track.language
        var channels = entry.count >= 26 ? Int(entry[24]) << 8 | Int(entry[25]) : 0
        var rate = MediaSource.soundSampleRate(entry) ?? 0
        var header: ADTSHeader?
        switch format {
        case .aac(let adts):
            coding = .aac
            header = adts
            rate = adts.samplingFrequency
            if adts.channelConfiguration > 0 { channels = adts.channelConfiguration == 7 ? 8 : adts.channelConfiguration }
            samplesPerFrame = 1024
        case .ac3:
            coding = .ac3
            samplesPerFrame = 1536
        case .mpegAudio:
            coding = .mpegAudio
            // Its samples' own duration (1152 for Layers II and MPEG-1 III, 576 for MPEG-2 III).
            let scaled = firstSampleDuration.map { Int(Int64($0) * Int64(max(1, rate)) / Int64(max(1, track.timescale))) }
            samplesPerFrame = scaled.flatMap { $0 > 0 && $0 <= 4608 ? $0 : nil } ?? 1152
        }
        guard rate > 0, channels > 0 else { return nil }
        sampleRate = rate
        channelCount = channels
        self.language = language
        adts = header
        mp4SampleEntry = entry
        transportStreamStream = TransportStreamAudioStream(format: format, streamType: streamType, language: language)
    }

    /// What differs from `other` that a decoder needs alike, or `nil` when nothing does.
    func difference(from other: ConcatAudioStreamFormat) -> String? {
        if coding != other.coding { return "coding" }
        if sampleRate != other.sampleRate { return "sample rate" }
        if channelCount != other.channelCount { return "channel count" }
        if let adts, let theirs = other.adts, adts.audioObjectType != theirs.audioObjectType { return "AAC object type" }
        return nil
    }

    /// The description a reason names: `AAC, 48000 Hz, 2 channels`.
    var summary: String { "\(coding), \(sampleRate) Hz, \(channelCount) channels" }

    /// The sound track an MP4 output gets, its edit list placing its first frame at `firstTime`
    /// (90 kHz from the video's presentation start) in a movie of `movieTimescale`, the edit's
    /// duration 0 (the rest of the media): what a fragmented MP4, whose `moov` goes first, keeps;
    /// ``ConcatTransportStreamInputMP4Feeder`` sets the exact one at the end in the other layouts.
    func mp4Track(firstTime: Int64, movieTimescale: UInt32) -> MP4PassthroughTrack {
        var track = MP4PassthroughTrack(handler: "soun", timescale: UInt32(sampleRate), sampleEntries: [mp4SampleEntry])
        if let language, let code = MP4Track.languageCode(language) { track.languageCode = code }
        if firstTime > 0 {
            let delay = CheckedNumber.rescale(firstTime, from: 90_000, to: Int64(movieTimescale)) ?? 0
            track.editList = [MP4EditListEntry(segmentDuration: UInt64(max(0, delay)), mediaTime: -1),
                              MP4EditListEntry(segmentDuration: 0, mediaTime: 0)]
        } else if firstTime < 0 {
            let media = CheckedNumber.rescale(0 &- firstTime, from: 90_000, to: Int64(max(1, sampleRate))) ?? 0
            track.editList = [MP4EditListEntry(segmentDuration: 0, mediaTime: media)]
        }
        return track
    }
}
