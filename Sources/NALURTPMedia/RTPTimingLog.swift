public import NALU
import NALUIO
import NALURTP

/// A log of when each access unit was sent or received, for latency measurements: one JSON
/// object a line, `{"rtp_timestamp":T,"monotonic_ns":N}` — the access unit's RTP timestamp and
/// the system's monotonic clock (`CLOCK_MONOTONIC`, shared by the processes of one machine) when
/// its last packet was sent, or when it was complete at the receiver. `nalu rtp send --timing`
/// and `nalu rtp receive --timing` write it; the latency of an access unit is the difference of
/// the two lines with its timestamp (`Scripts/bench-rtp.sh`).
///
/// Written through `FileSink` (the rules of every output: exclusive temporary name, committed by
/// ``commit()``).
public final class RTPTimingLog {
    private let sink: FileSink
    private var line: [UInt8] = []

    /// - Throws: the output's ``NALU/NALUError`` (`.io`) for this and every call.
    public init(path: String) throws(NALUError) {
        sink = try FileSink(path: path)
    }

    /// Logs the access unit at `rtpTimestamp`, at the monotonic clock's `nanoseconds` (now when `nil`).
    public func log(rtpTimestamp: UInt32, nanoseconds: Int64? = nil) throws(NALUError) {
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: Array("{\"rtp_timestamp\":\(rtpTimestamp),\"monotonic_ns\":\(nanoseconds ?? MonotonicClock.now())}\n".utf8))
        try sink.write(line)
    }

    /// Commits the file.
    public func commit() throws(NALUError) {
        try sink.commit()
    }
}
