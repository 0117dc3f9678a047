import NALUExport
import NALUDoctor

/// `nalu doctor --decode` (issue 33): decodes every picture and turns the decoder's errors into
/// `decode-error` findings (``NALUExport/InputDecoder/CheckResult/findings(codec:libraryName:)``).
enum DecodeCheck {
    /// The findings of a decoding pass over `options`' input.
    static func run(_ options: InputOptions, decoder: DecoderName) throws -> [DoctorFinding] {
        let source = try options.openSource()
        // One thread: each message belongs to the access unit being decoded when it came. A pass
        // that cannot go on is a finding (the parse's findings stay); a missing library exits 69.
        let decoding = try commandLine(input: options.input) { try InputDecoder(path: options.input, source: source, factory: decoder.factory, threadCount: 1) }
        return try decoding.check().findings(codec: source.codec, libraryName: decoder.libraryName)
    }
}
