public import NALU
import NALUMP4
import NALUMedia
public import NALURTP

/// The AAC stream of an input that ``RTPStreamTransmitter`` sends beside its video (RFC 3640):
/// the first `mp4a` AAC track of an MP4/MOV file, or the ADTS AAC stream of an MPEG-TS file.
/// Each AU comes with its presentation time in ticks of the sampling rate counted from the
/// instant the video's first access unit (in decoding order) presents, as the video's RTP
/// timestamps are: an MP4's edit lists place the two tracks (``NALUMedia/MediaSource/videoTime(alignedWith:)``),
/// a transport stream's PTS do.
public final class RTPAACSendSource {
    /// The AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1): the SDP's `config`.
    public let audioSpecificConfig: [UInt8]
    /// The sampling rate: the RTP clock rate.
    public let sampleRate: Int
    public let channels: Int
    /// How the reader's descriptions of the tracks it does not read begin for this one
    /// (`track 2 (`, `PID 0x101 (`): ``NALUMedia/MediaReader/unreadTracks`` less the audio sent.
    public let trackDescription: String
    private var mp4: (iterator: MP4SampleIterator<AnyRandomAccessSource>, reader: MP4TrackReader<AnyRandomAccessSource>, mediaOrigin: Int64, rtpOrigin: Int64)?
    private var transportStream: (reader: TransportStreamAudioReader, videoFirstPTS: Int64)?
    private var buffer: [UInt8] = []

    /// The AAC stream of the input at `path` whose video's first access unit (decoding order)
    /// has presentation time `videoFirstPTS` in the video's timescale; `nil` when it has none.
    /// - Throws: ``NALU/NALUError`` from opening or reading the input.
    public static func open(path: String, videoFirstPTS: Int64) throws(NALUError) -> RTPAACSendSource? {
        do {
            let source = try MediaSource(path: path)
            if let (reader, config) = try source.transportStreamAudioTrack() {
                return try RTPAACSendSource(mp4: reader, config: config, source: source, videoFirstPTS: videoFirstPTS)
            }
            if let reader = try source.transportStreamAudio(), reader.coding == .aac, !reader.audioSpecificConfig.isEmpty {
                return RTPAACSendSource(transportStream: reader, videoFirstPTS: videoFirstPTS)
            }
            return nil
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    private init(mp4 reader: MP4TrackReader<AnyRandomAccessSource>, config: [UInt8], source: MediaSource, videoFirstPTS: Int64) throws {
        audioSpecificConfig = config
        let track = reader.track
        let parameters = RTPAACPayloadFormat.audioParameters(audioSpecificConfig: config)
        sampleRate = parameters?.sampleRate ?? Int(track.timescale)
        channels = max(1, parameters?.channels ?? 2)
        trackDescription = "track \(track.trackID) ("
        // The audio media time that presents with the video's media time `aligned`, and where
        // the video's first access unit presents against that instant.
        let mediaOrigin = track.editList.first { $0.mediaTime >= 0 }?.mediaTime ?? 0
        let aligned = try source.videoTime(alignedWith: track)
        let videoTimescale = Int64(max(1, source.mp4?.track.timescale ?? 90_000))
        let rtpOrigin = CheckedNumber.rescale(aligned &- videoFirstPTS, from: videoTimescale, to: Int64(sampleRate)) ?? 0
        mp4 = (reader.samples(), reader, mediaOrigin, rtpOrigin)
    }

    private init(transportStream reader: TransportStreamAudioReader, videoFirstPTS: Int64) {
        audioSpecificConfig = reader.audioSpecificConfig
        sampleRate = reader.sampleRate
        channels = max(1, reader.channelCount)
        trackDescription = "PID 0x" + String(reader.pid, radix: 16) + " ("
        transportStream = (reader, videoFirstPTS)
    }

    /// The SDP lines' description of the stream on `port`.
    public func description(port: UInt16, payloadType: UInt8) -> RTPAACDescription {
        RTPAACDescription(port: port, payloadType: payloadType, sampleRate: sampleRate, channels: channels, audioSpecificConfig: audioSpecificConfig)
    }

    /// The next AU and its presentation time (ticks of ``sampleRate`` from the video's first
    /// access unit's; negative before it), or `nil` at the end.
    /// - Throws: ``NALU/NALUError`` from reading the input.
    public func next() throws(NALUError) -> (bytes: [UInt8], time: Int64)? {
        do {
            if var state = mp4 {
                guard let sample = try state.iterator.next() else { return nil }
                mp4 = state
                try state.reader.read(sample, into: &buffer)
                let scale = Int64(max(1, state.reader.track.timescale))
                let media = CheckedNumber.rescale(sample.pts &- state.mediaOrigin, from: scale, to: Int64(sampleRate)) ?? 0
                return (buffer, state.rtpOrigin &+ media)
            }
            if let (reader, videoFirstPTS) = transportStream {
                guard let frame = try reader.next() else { return nil }
                return (frame.frame, CheckedNumber.rescale(frame.pts &- videoFirstPTS, from: 90_000, to: Int64(sampleRate)) ?? 0)
            }
            return nil
        } catch {
            throw NALUError.converting(error, field: "audio " + trackDescription)
        }
    }
}
