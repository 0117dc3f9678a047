public import NALUDecoder
public import NALU
public import NALUDoctor

extension InputDecoder {
    /// What decoding every picture found (`nalu doctor --decode`, issue 33).
    public struct CheckResult: Sendable {
        /// The decoder's problems in access unit order (a rejected access unit, a damaged NAL
        /// unit, decoding stopped), then what was lost, unplaced (index and offset −1).
        public var problems: [DecoderSession.Problem] = []
        /// The stream's format the decoder does not take (bit depth, chroma format): nothing was
        /// decoded, and ``problems`` is empty.
        public var unsupported: DecoderError?
    }

    /// Decodes every picture and gathers what the decoder reported. A decoding pass that cannot
    /// go on is a problem, not an error (the parse's findings stay, issue 40 item 12); only a
    /// missing library, or a failure that is no decoder's, is thrown, as an ``ExportError``
    /// carrying it whole (``ExportError/stageError``).
    public func check() throws(ExportError) -> CheckResult {
        do {
            var result = CheckResult()
            var thrown: [DecoderSession.Problem] = []
            do {
                try run(problem: { error in
                    thrown.append(DecoderSession.Problem(accessUnitIndex: error.accessUnitIndex ?? -1, byteOffset: error.byteOffset ?? -1,
                                                         message: error.detail ?? error.description))
                }) { _ in true }
            } catch {
                guard let failure, failure.code != .libraryUnavailable else { throw error }
                if failure.code == .unsupported {
                    result.unsupported = failure
                    return result
                }
                thrown.append(DecoderSession.Problem(accessUnitIndex: failure.accessUnitIndex ?? -1, byteOffset: failure.byteOffset ?? -1,
                                                     message: "decoding stopped: \(failure)"))
            }
            result.problems = (session.problems + thrown).sorted { $0.accessUnitIndex < $1.accessUnitIndex }
            if let loss = lossSummary { result.problems.append(DecoderSession.Problem(accessUnitIndex: -1, byteOffset: -1, message: loss)) }
            return result
        } catch {
            throw ExportError(stage: error)
        }
    }
}

extension InputDecoder.CheckResult {
    /// The doctor's findings of this decoding pass (`nalu doctor --decode`): a `decode-unsupported`
    /// finding for a format `libraryName` through nalu does not decode, else one `decode-error`
    /// finding (the first problem, with the count) when the decoder reported any, else none.
    /// The clause is the slice data's (ITU-T H.264 7.3.4, H.265 7.3.8.1), or the SPS's format
    /// fields for an unsupported stream.
    public func findings(codec: Codec, libraryName: String) -> [DoctorFinding] {
        if let failure = unsupported {
            return [DoctorFinding(severity: DoctorCode.decodeUnsupported.defaultSeverity, code: .decodeUnsupported,
                                  message: "not decoded: \(libraryName) through nalu decodes 8- and 10-bit 4:2:0, 4:2:2 and 4:4:4 only; \(failure.field): \(failure.detail ?? failure.code.rawValue)",
                                  accessUnit: failure.accessUnitIndex, byteOffset: failure.byteOffset,
                                  clause: codec == .h264 ? "H.264 7.4.2.1.1" : "H.265 7.4.3.2.1")]
        }
        guard let first = problems.first else { return [] }
        let clause = codec == .h264 ? "H.264 7.3.4 slice_data()" : "H.265 7.3.8.1 slice_segment_data()"
        return [DoctorFinding(severity: DoctorCode.decodeError.defaultSeverity, code: .decodeError,
                              message: "the decoder (\(libraryName)) reports: \(first.message)",
                              accessUnit: first.accessUnitIndex >= 0 ? first.accessUnitIndex : nil,
                              byteOffset: first.byteOffset >= 0 ? first.byteOffset : nil, clause: clause, count: problems.count)]
    }
}
