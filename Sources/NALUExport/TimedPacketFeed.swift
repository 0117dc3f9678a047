import NALU
import NALUEncoder

/// Encoded packets on their way into a source-timed muxer (``TimedMP4Output``,
/// ``TimedTransportStreamOutput``): each packet's NAL units are pushed at their offsets in the
/// Annex-B stream the packets make, and its times are kept by offset until the muxer's access
/// unit assembler completes the access unit starting there and looks them up: a class, since
/// that lookup comes back from inside ``feed(_:timescale:push:)``.
final class TimedPacketFeed {
    private var pending: [(start: Int64, timing: SampleTiming)] = []
    private var nextOffset: Int64 = 0
    private var lastPTS: Int64?
    /// A packet's duration: the step to the next presentation time, known when the next packet
    /// arrives, so the previous step stands in for it (1 tick before there is one).
    private var lastDuration: Int64 = 1

    /// Notes `packet`'s times in ticks of `timescale` (none when `nil`: the muxer synthesises
    /// them), then pushes its NAL units.
    func feed(_ packet: EncodedPacket, timescale: UInt32?, push: (NALUnitView) throws -> Void) throws {
        let start = nextOffset
        if let timescale {
            if let lastPTS, packet.pts > lastPTS { lastDuration = packet.pts - lastPTS }
            lastPTS = packet.pts
            pending.append((start, SampleTiming(decode: packet.dts, presentation: packet.pts, duration: lastDuration, timescale: timescale)))
        }
        try packet.bytes.withUnsafeBytes { bytes in
            try AnnexB.forEachNALUnit(in: bytes) { range in
                try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: bytes[range]), offset: start + Int64(range.lowerBound), prefixLength: 3,
                                            push)
            }
        }
        // Apart from the next packet's start code, so no access unit spans two packets' offsets.
        nextOffset = start + Int64(packet.bytes.count) + 16
    }

    /// The timing of the last packet starting at or before `offset`; older ones are done.
    func timing(at offset: Int64) -> SampleTiming? {
        guard let index = pending.lastIndex(where: { $0.start <= offset }) else { return nil }
        let timing = pending[index].timing
        pending.removeFirst(index)
        return timing
    }
}
