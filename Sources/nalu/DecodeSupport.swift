public import ArgumentParser
import NALUDecoder
import NALUExport

/// `--decoder avcodec|de265` (issue 33): which library decodes.
typealias DecoderName = DecoderLibrary

extension DecoderLibrary: ExpressibleByArgument {}

extension DecoderError {
    /// The command line's form: a missing library exits 69 with the package to install (as
    /// encoders do), bad data 65, an unsupported stream 65 too (nothing decodable).
    func cliError(input: String) -> CLIError {
        switch code {
        case .libraryUnavailable:
            let (reason, fix) = DecoderLibrary.explanation(self)
            return CLIError(field, reason, hint: fix, status: ExitStatus.unavailable)
        case .unsupported where field == "codec":
            return CLIError.usage("--decoder", detail ?? description, hint: "--decoder avcodec decodes H.264 and H.265")
        default:
            return CLIError(input == "-" ? "standard input" : input, description, status: ExitStatus.dataError)
        }
    }
}
