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
        // One thread: each message belongs to the access unit being decoded when it came. A pass
        // that cannot go on is a finding (the parse's findings stay); a missing library exits 69.
        let decoding = try commandLine(input: options.input) { try InputDecoder(path: options.input, source: source, factory: decoder.factory, threadCount: 1) }
        let result = try decoding.check()
        if let failure = result.unsupported {
            return [DoctorFinding(severity: DoctorCode.decodeUnsupported.defaultSeverity, code: .decodeUnsupported,
                                  message: "not decoded: \(decoder.libraryName) through nalu decodes 8- and 10-bit 4:2:0, 4:2:2 and 4:4:4 only; \(failure.field): \(failure.detail ?? failure.code.rawValue)",
                                  accessUnit: failure.accessUnitIndex, byteOffset: failure.byteOffset,
                                  clause: source.codec == .h264 ? "H.264 7.4.2.1.1" : "H.265 7.4.3.2.1")]
        }
        let problems = result.problems
        guard let first = problems.first else { return [] }
        let clause = source.codec == .h264 ? "H.264 7.3.4 slice_data()" : "H.265 7.3.8.1 slice_segment_data()"
        return [DoctorFinding(severity: DoctorCode.decodeError.defaultSeverity, code: .decodeError,
                              message: "the decoder (\(decoder.libraryName)) reports: \(first.message)",
                              accessUnit: first.accessUnitIndex >= 0 ? first.accessUnitIndex : nil,
                              byteOffset: first.byteOffset >= 0 ? first.byteOffset : nil, clause: clause, count: problems.count)]
    }
}
