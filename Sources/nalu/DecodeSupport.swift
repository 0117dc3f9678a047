import ArgumentParser
import NALU
import NALUAVCodec
import NALUDe265
import NALUDecoder
import NALUEncoder
import NALUExport
import NALUMedia

/// `--decoder avcodec|de265` (issue 33): which library decodes.
enum DecoderName: String, ExpressibleByArgument, CaseIterable {
    /// libavcodec: H.264 and H.265 (the default).
    case avcodec
    /// libde265: H.265 only, LGPL.
    case de265

    var factory: any DecoderBackendFactory {
        switch self {
        case .avcodec: AVCodecDecoderFactory()
        case .de265: De265DecoderFactory()
        }
    }
}

extension DecoderError {
    /// The command line's form: a missing library exits 69 with the package to install (as
    /// encoders do), bad data 65, an unsupported stream 65 too (nothing decodable).
    func cliError(input: String) -> CLIError {
        switch code {
        case .libraryUnavailable:
            let detail = self.detail ?? code.rawValue
            if let range = detail.firstRange(of: "; install ") {
                return CLIError(field, String(detail[..<range.lowerBound]), hint: "install " + detail[range.upperBound...],
                                status: ExitStatus.unavailable)
            }
            return CLIError(field, detail, status: ExitStatus.unavailable)
        case .unsupported where field == "codec":
            return CLIError.usage("--decoder", detail ?? description, hint: "--decoder avcodec decodes H.264 and H.265")
        default:
            return CLIError(input == "-" ? "standard input" : input, description, status: ExitStatus.dataError)
        }
    }
}

extension InputDecoder {
    /// Opens a decoder of `decoder`'s library; its errors in the command line's form.
    static func opening(path: String, source: MediaSource, decoder: DecoderName, threadCount: Int = 0) throws -> InputDecoder {
        do {
            return try InputDecoder(path: path, source: source, factory: decoder.factory, threadCount: threadCount)
        } catch {
            throw error.cliError(input: path)
        }
    }
}
