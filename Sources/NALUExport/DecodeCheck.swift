public import NALUDecoder

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
    /// missing library, or a failure that is no decoder's, is thrown.
    public func check() throws -> CheckResult {
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
    }
}
