public import NALU
import NALUIO
public import NALURTP

extension RTPRecorder {
    /// Receives from UDP `endpoint` with RTCP on `control` (RFC 3550 6: the sender's reports
    /// read, receiver reports, keyframe requests and a BYE sent; the sender's BYE ends the
    /// reception) until a limit of `limits` or `shouldStop`.
    public func receive(on endpoint: UDPEndpoint, control: RTCPReceiverChannel, limits: RTPReceptionLimits,
                        shouldStop: () -> Bool = { false }) throws(NALUError) -> RTPReceptionReport {
        do {
            let socket = try UDPSocket(bindingTo: endpoint)
            rtcp = control.session
            let report = try RTPReception.receive(from: socket, into: &receiver, limits: limits, control: control, shouldStop: shouldStop,
                                                  handle: handle)
            for text in control.notes { note(text) }
            return report
        } catch {
            throw NALUError.converting(error, field: "RTP")
        }
    }

    /// The RTCP counts of `session` as a phrase.
    static func rtcpSummary(_ session: RTCPReceiverSession) -> String {
        let counts = session.counts
        var text = "RTCP: \(counts.senderReports) sender reports read, \(counts.receiverReports) receiver reports sent, "
            + "\(counts.pictureLossIndications) PLI, \(counts.fullIntraRequests) FIR (\(counts.keyframeRequestsSuppressed) requests within "
            + "\(session.minimumKeyframeRequestInterval / 1_000_000) ms of the previous not sent)"
        if let statistics = session.statistics {
            text += ", A.3: \(statistics.expected) expected, \(statistics.lost) lost, jitter \(statistics.jitter) ticks"
        }
        if counts.malformed > 0 { text += ", \(counts.malformed) unreadable" }
        return text
    }
}

extension RTCPDescription {
    /// The RTCP lines of the SDP file at `path` (at most ``NALURTP/SessionDescription/maxSize`` bytes)
    /// for `video`.
    /// - Throws: ``NALU/NALUError`` from reading the file.
    public init(readingFile path: String, video: RTPVideoDescription) throws(NALUError) {
        self.init(sdp: String(decoding: try FileSource.readWhole(path: path, limit: SessionDescription.maxSize), as: UTF8.self), video: video)
    }
}
