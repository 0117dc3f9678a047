public import NALU
import NALUIO
public import NALURTP

extension RTPRecorder {
    /// Replays the rtpdump file at `path` into the recorder (each packet arriving at its
    /// record's offset), the first `duration` nanoseconds of it (`nil`: all). Records holding
    /// less than their packet are noted.
    /// - Throws: ``NALU/NALUError`` from reading the file or writing the output.
    public func replay(rtpdump path: String, duration: Int64? = nil) throws(NALUError) -> RTPReceptionReport {
        do {
            var reader = try RTPDumpReader(source: try FileSource(path: path))
            let report = try RTPReception.replay(&reader, into: &receiver, duration: duration, handle: handle)
            if report.partialRecords > 0 { note("\(report.partialRecords) rtpdump records hold less than their packet") }
            return report
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Receives from UDP `endpoint` until a limit of `limits` or `shouldStop` (checked at least
    /// every 20 ms).
    public func receive(on endpoint: UDPEndpoint, limits: RTPReceptionLimits, shouldStop: () -> Bool = { false }) throws(NALUError) -> RTPReceptionReport {
        do {
            let socket = try UDPSocket(bindingTo: endpoint)
            return try RTPReception.receive(from: socket, into: &receiver, limits: limits, shouldStop: shouldStop, handle: handle)
        } catch {
            throw NALUError.converting(error, field: "RTP")
        }
    }
}
