import NALU
import NALUIO
import NALURTP
import NALUTS

/// Received access units and AAC AUs into MPEG-TS (ISO/IEC 13818-1) through
/// `TransportStreamMuxer`: every access unit one PES packet at its own times (the RTP
/// timestamps, ``NALURTP/RTPDecodeTimes``'s decoding times), the AAC as ADTS at its time
/// against the first picture; parameter sets in band before each keyframe. The bytes go to
/// `sink` (a ``NALUIO/FileSink``, or the pipe into a live packager).
final class RTPTransportStreamWriter<Sink: ByteSink> {
    let muxer: TransportStreamMuxer<Sink>
    private var pending: [(start: Int64, timing: SampleTiming)] = []
    private var nextOffset: Int64 = 0
    private var lastPTS: Int64?
    private var lastDuration: Int64 = 1
    /// AAC AUs pushed.
    private(set) var audioFrames = 0

    /// - Parameters:
    ///   - timestamped: 192-byte packets with arrival time stamps (M2TS).
    ///   - audioSpecificConfig: the AAC stream's, when there is one.
    init(sink: Sink, codec: Codec, timestamped: Bool, audioSpecificConfig: [UInt8]?) throws {
        var options = TransportStreamMuxerOptions()
        options.writer.timestampedPackets = timestamped
        muxer = try TransportStreamMuxer(codec: codec, sink: sink, options: options)
        // Time 0 of the audio is the first access unit's presentation.
        try muxer.useSourceTiming(timescale: 90_000, presentationOrigin: nil, lookup: { [weak self] offset in self?.timing(at: offset) })
        if let audioSpecificConfig { _ = try muxer.addAudio(audioSpecificConfig: audioSpecificConfig) }
    }

    /// Writes one access unit's NAL units (`nalUnits`: with the SDP's parameter sets before
    /// the first when it lacks them) at `unit`'s times.
    func write(_ nalUnits: [[UInt8]], pts: Int64, dts: Int64) throws {
        let start = nextOffset
        if let lastPTS, pts > lastPTS { lastDuration = pts - lastPTS }
        lastPTS = pts
        pending.append((start, SampleTiming(decode: dts, presentation: pts, duration: lastDuration, timescale: 90_000)))
        var offset = start
        for unit in nalUnits {
            try NALUnitView.withNALUnit(unit, offset: offset + 4, prefixLength: 4) { try muxer.push($0) }
            offset += 4 + Int64(unit.count)
        }
        // Apart from the next access unit's, so no access unit spans two units' offsets.
        nextOffset = offset + 16
    }

    /// Writes one AAC AU presented `time` ticks of `rate` after the first picture (negative: before).
    func writeAudio(_ bytes: [UInt8], time: Int64, rate: Int) throws {
        try bytes.withUnsafeBytes { try muxer.pushAudio($0, time: time, timescale: Int64(max(1, rate))) }
        audioFrames += 1
    }

    func finish() throws {
        try muxer.finish()
    }

    /// The timing of the last access unit starting at or before `offset`; older ones are done.
    private func timing(at offset: Int64) -> SampleTiming? {
        guard let index = pending.lastIndex(where: { $0.start <= offset }) else { return nil }
        let timing = pending[index].timing
        pending.removeFirst(index)
        return timing
    }
}
