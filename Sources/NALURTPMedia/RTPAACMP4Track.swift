import NALU
import NALUMedia
import NALUMP4
import NALURTP

/// Received AAC access units as an MP4 sound track beside the video (`mp4a` with the SDP's
/// AudioSpecificConfig in its `esds`, ISO/IEC 14496-14 5.6), each AU at its own time: a sample
/// lasts until the next AU's RTP time (a gap keeps its length, so no AU after it moves), the last
/// one ``RTPAACPayloadFormat/accessUnitDuration``. At the end its edit list (ISO/IEC 14496-12
/// 8.6.6) places the first AU against the video's first picture: an empty edit when the audio
/// starts later, a `media_time` when it starts earlier.
final class RTPAACMP4Track {
    let format: RTPAACPayloadFormat
    /// The passthrough track the writer is configured with.
    let track: MP4PassthroughTrack
    /// The writer's passthrough track index.
    let index: Int
    private var held: RTPAACAccessUnit?
    private var first: RTPAACAccessUnit?
    private var media: Int64 = 0
    /// AUs written.
    private(set) var written = 0
    /// AUs whose time did not follow the one before (not written).
    private(set) var outOfOrder = 0

    init(description: RTPAACDescription, format: RTPAACPayloadFormat, index: Int) {
        self.format = format
        self.index = index
        let entry = TransportStreamAudioReader.mp4SampleEntry(audioSpecificConfig: description.audioSpecificConfig,
                                                              sampleRate: format.clockRate, channelCount: description.channels)
        track = MP4PassthroughTrack(handler: "soun", timescale: UInt32(format.clockRate), sampleEntries: [entry])
    }

    /// Appends `unit` (the one before it is written once its duration is known).
    func append<Sink: ByteSink>(_ unit: RTPAACAccessUnit, to writer: MP4Writer<Sink>) throws {
        if let held {
            let duration = unit.time - held.time
            guard duration > 0 else {
                outOfOrder += 1
                return
            }
            try write(held, duration: duration, to: writer)
        } else {
            first = unit
        }
        held = unit
    }

    /// Writes the AU held and sets the edit list: the first AU presents `offset` ticks of the
    /// audio clock after the video's first picture (`nil`: unknown, taken as 0).
    func finish<Sink: ByteSink>(writer: MP4Writer<Sink>, offset: Int64?, movieTimescale: UInt32) throws {
        if let held { try write(held, duration: Int64(format.accessUnitDuration), to: writer) }
        held = nil
        guard first != nil else { return }
        let rate = Int64(max(1, format.clockRate))
        let movie = Int64(movieTimescale)
        let offset = offset ?? 0
        var edits: [MP4EditListEntry] = []
        var mediaTime: Int64 = 0
        if offset > 0 {
            edits.append(MP4EditListEntry(segmentDuration: UInt64(CheckedNumber.rescale(offset, from: rate, to: movie) ?? 0), mediaTime: -1))
        } else if offset < 0 {
            mediaTime = min(media, 0 &- offset)
        }
        let presented = CheckedNumber.rescale(media - mediaTime, from: rate, to: movie) ?? 0
        edits.append(MP4EditListEntry(segmentDuration: UInt64(max(0, presented)), mediaTime: mediaTime))
        try writer.setEditList(edits, passthroughTrack: index)
    }

    private func write<Sink: ByteSink>(_ unit: RTPAACAccessUnit, duration: Int64, to writer: MP4Writer<Sink>) throws {
        let ticks = UInt32(clamping: duration)
        try writer.append(unit.bytes, track: index, duration: ticks, compositionOffset: 0, isSync: true, sampleDescription: 1)
        media += Int64(ticks)
        written += 1
    }
}
