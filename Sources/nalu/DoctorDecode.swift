import NALU
import NALUDecoder
import NALUExport
import NALUMedia
import NALUDoctor

/// `nalu doctor --decode` (issue 33): decodes every picture and turns the decoder's errors into
/// `decode-error` findings, with the access unit, its byte offset and the decoder's words.
enum DecodeCheck {
    /// The findings of a decoding pass over `options`' input: one `decode-error` (the first,
    /// counted) when the decoder reported any error.
    static func run(_ options: InputOptions, decoder: DecoderName) throws -> [DoctorFinding] {
        let source = try options.openSource()
        // One thread: each message belongs to the access unit being decoded when it came.
        let decoding = try InputDecoder.opening(path: options.input, source: source, decoder: decoder, threadCount: 1)
        var thrown: [DecoderSession.Problem] = []
        do {
            try decoding.run(problem: { error in
                thrown.append(DecoderSession.Problem(accessUnitIndex: error.accessUnitIndex ?? -1, byteOffset: error.byteOffset ?? -1,
                                                     message: error.detail ?? error.description))
            }) { _ in true }
        } catch {
            // A decoding pass that cannot go on is a finding; the parse's findings stay
            // (issue 40 item 12). A missing library is no finding about the stream: exit 69.
            guard let failure = decoding.failure, failure.code != .libraryUnavailable else { throw error }
            if failure.code == .unsupported {
                return [DoctorFinding(severity: DoctorCode.decodeUnsupported.defaultSeverity, code: .decodeUnsupported,
                                      message: "not decoded: \(decoder.libraryName) through nalu decodes 8- and 10-bit 4:2:0, 4:2:2 and 4:4:4 only; \(failure.field): \(failure.detail ?? failure.code.rawValue)",
                                      accessUnit: failure.accessUnitIndex, byteOffset: failure.byteOffset,
                                      clause: source.codec == .h264 ? "H.264 7.4.2.1.1" : "H.265 7.4.3.2.1")]
            }
            thrown.append(DecoderSession.Problem(accessUnitIndex: failure.accessUnitIndex ?? -1, byteOffset: failure.byteOffset ?? -1,
                                                 message: "decoding stopped: \(failure)"))
        }
        var problems = (decoding.session.problems + thrown).sorted { $0.accessUnitIndex < $1.accessUnitIndex }
        if let loss = decoding.lossSummary {
            problems.append(DecoderSession.Problem(accessUnitIndex: -1, byteOffset: -1, message: loss))
        }
        guard let first = problems.first else { return [] }
        let clause = source.codec == .h264 ? "H.264 7.3.4 slice_data()" : "H.265 7.3.8.1 slice_segment_data()"
        return [DoctorFinding(severity: DoctorCode.decodeError.defaultSeverity, code: .decodeError,
                              message: "the decoder (\(decoder.libraryName)) reports: \(first.message)",
                              accessUnit: first.accessUnitIndex >= 0 ? first.accessUnitIndex : nil,
                              byteOffset: first.byteOffset >= 0 ? first.byteOffset : nil, clause: clause, count: problems.count)]
    }
}

extension DecoderName {
    /// The library's name in messages.
    var libraryName: String {
        switch self {
        case .avcodec: "libavcodec"
        case .de265: "libde265"
        }
    }
}
