#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport
import NALUIO

/// Exit statuses (sysexits.h), so scripts can tell what failed.
enum ExitStatus {
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: an encoder library cannot be loaded.
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
}

/// An error the command line raises itself: `nalu: error: <subject>: <message>`, an optional
/// `hint:` line, and the exit status. Usage errors (64) also print the command's usage line.
struct CLIError: Error, CustomStringConvertible {
    var subject: String?
    var message: String
    var hint: String?
    var status: Int32

    init(_ subject: String?, _ message: String, hint: String? = nil, status: Int32) {
        self.subject = subject
        self.message = message
        self.hint = hint
        self.status = status
    }

    static func usage(_ subject: String?, _ message: String, hint: String? = nil) -> CLIError {
        CLIError(subject, message, hint: hint, status: ExitStatus.usage)
    }

    var description: String { (subject.map { $0 + ": " } ?? "") + message }
}

/// Turns any error into the one message style and an exit status.
enum Failure {
    /// The subject of input errors (the input path) for the command being run.
    nonisolated(unsafe) static var inputSubject: String?
    /// The command being run, for the usage line of usage errors.
    nonisolated(unsafe) static var commandType: (any ParsableCommand.Type)?

    /// Prints `error` as `nalu: error: …` (plus hint and usage lines) and exits with its status.
    /// A write to a closed pipe exits quietly, as `head`'s writers do.
    static func exit(_ error: any Error) -> Never {
        // A stage's error carried by an `ExportError` (typed throws) is reported as the stage threw it.
        let error = ExportError.cause(of: error)
        if (error as? NALUError)?.isBrokenPipe == true {
            TemporaryFileRegistry.removeAll()
            exitProcess(Signals.exitStatus(SIGPIPE))
        }
        let (text, status) = describe(error)
        StandardError.write(text)
        exitProcess(status)
    }

    /// Reports an error from parsing the arguments (`--help` and `--version` print and exit 0).
    static func exitForParse(_ error: any Error) -> Never {
        guard Nalu.exitCode(for: error) != .success else { Nalu.exit(withError: error) }
        var text = Nalu.fullMessage(for: error)
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        text = text.replacing("\nHelp:  ", with: "\nhint: ", maxReplacements: 1)
        StandardError.write("nalu: error: " + text + (text.hasSuffix("\n") ? "" : "\n"))
        exitProcess(ExitStatus.usage)
    }

    /// The system's text for `errno` (``NALUIO/PathPreflight/errnoText(_:)``).
    static func errnoText(_ number: Int32) -> String { PathPreflight.errnoText(number) }

    /// The message lines and exit status for `error`.
    static func describe(_ error: any Error) -> (String, Int32) {
        // A stage's error carried by an `ExportError` (typed throws) is described as the stage threw it.
        let error = ExportError.cause(of: error)
        switch error {
        case let error as CLIError:
            var text = "nalu: error: \(error)\n"
            if let hint = error.hint { text += "hint: \(hint)\n" }
            if error.status == ExitStatus.usage { text += usageLine() }
            return (text, error.status)
        case let error as NALUError:
            return describe(error)
        case let error as EncoderError:
            return describe(error)
        case let error as DecoderError:
            // A decoder's failure inside a command that decodes (trim --smart, --keep, encode):
            // the access unit named, 65 for data, 69 for a missing library (issue 40 item 22).
            return describe(error.cliError(input: inputSubject ?? "input"))
        case let error as ExportError:
            return describe(error.cliError)
        case let error as ValidationError:
            return ("nalu: error: \(error.message)\n" + usageLine(), ExitStatus.usage)
        case let error as ExitCode:
            exitProcess(error.rawValue)
        default:
            if Nalu.exitCode(for: error) == .validationFailure {
                return ("nalu: error: \(Nalu.message(for: error))\n" + usageLine(), ExitStatus.usage)
            }
            return ("nalu: error: \(error)\n", ExitStatus.failure)
        }
    }

    private static func describe(_ error: NALUError) -> (String, Int32) {
        let subject = error.field == "-" ? "standard output" : error.field
        switch error.code {
        case .cannotCreate:
            return ("nalu: error: \(subject): cannot create: \(error.detail ?? "failed")\n", ExitStatus.cannotCreate)
        case .io:
            return ("nalu: error: \(subject): \(error.detail ?? "I/O error")\n", ExitStatus.ioError)
        case .tooLarge where error.field == "access unit":
            // The library's limit (AccessUnitLimit) is this option in the CLI.
            return ("nalu: error: \(error)\nhint: raise the limit with --max-access-unit-size\n", ExitStatus.dataError)
        default:
            // The field names the subject (the syntax element, box or record) and the byte offset.
            return ("nalu: error: \(error)\n", ExitStatus.dataError)
        }
    }

    private static func describe(_ error: EncoderError) -> (String, Int32) {
        switch error.code {
        case .invalidConfiguration, .unsupported:
            var what = error.detail ?? error.code.rawValue
            var hint: String?
            // "unknown preset "x"; expected one of a, b" → the choices as a hint.
            if let range = what.firstRange(of: "; expected ") {
                hint = String(what[range.upperBound...])
                what = String(what[..<range.lowerBound])
            }
            var text = "nalu: error: --\(optionName(error.field)): \(what)\n"
            if let hint { text += "hint: \(hint)\n" }
            return (text + usageLine(), ExitStatus.usage)
        case .libraryUnavailable:
            // "libx264.so.164: cannot open shared object file: …", then "hint: install libx264-164 (…)"
            let (reason, fix) = EncoderLibraryCheck.explanation(error)
            var text = "nalu: error: \(error.field): \(reason ?? error.code.rawValue)\n"
            if let fix { text += "hint: \(fix)\n" }
            return (text, ExitStatus.unavailable)
        case .truncated, .invalidInput:
            let prefix = inputSubject.map { $0 == "-" ? "standard input: " : $0 + ": " } ?? ""
            return ("nalu: error: \(prefix)\(error)\n", ExitStatus.dataError)
        case .frameMismatch where error.field == "size":
            // The input's pictures change size mid-stream (issue 40 item 22): the encoder codes one.
            let prefix = inputSubject.map { $0 == "-" ? "standard input: " : $0 + ": " } ?? ""
            return ("nalu: error: \(prefix)the picture size changes: \(error.detail ?? "frame mismatch")\n"
                    + "hint: --scale WxH resizes every picture to one size\n", ExitStatus.dataError)
        case .nonMonotonicTimestamp:
            let prefix = inputSubject.map { $0 == "-" ? "standard input: " : $0 + ": " } ?? ""
            return ("nalu: error: \(prefix)\(error)\n"
                    + "hint: the input's time stamps go backwards (damaged?); nalu convert IN -o copy.h264, then nalu encode copy.h264 -r RATE, encodes the pictures at a constant rate\n",
                    ExitStatus.dataError)
        case .frameMismatch:
            // What the input's frames carry (a format change, damaged time stamps): data, not a bug.
            let prefix = inputSubject.map { $0 == "-" ? "standard input: " : $0 + ": " } ?? ""
            return ("nalu: error: \(prefix)\(error)\n", ExitStatus.dataError)
        case .io:
            return ("nalu: error: \(error)\n", ExitStatus.ioError)
        default:
            return ("nalu: error: \(error)\n", ExitStatus.failure)
        }
    }

    /// `bFrames` → `bframes`, `gopLength` → `gop-length`: the configuration field as an option.
    private static func optionName(_ field: String) -> String {
        switch field {
        case "bFrames": return "bframes"
        case "gopLength": return "gop"
        case "rateControl": return "bitrate"
        case "vbvMaxBitrate": return "vbv-maxrate"
        case "vbvBufferSize": return "vbv-bufsize"
        case "pixelFormat": return "pix-fmt"
        case "openGOP": return "open-gop"
        case "frameRate": return "fps"
        default:
            var name = ""
            for character in field {
                if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
            }
            return name
        }
    }

    /// `Usage: nalu <command> …` and where to read more.
    private static func usageLine() -> String {
        let type: any ParsableCommand.Type = commandType ?? Nalu.self
        let name = type == Nalu.self ? "nalu" : "nalu \(type._commandName)"
        return "Usage: " + Nalu.usageString(for: type) + "\n  See '\(name) --help' for more information.\n"
    }
}

extension ExportError {
    /// The command line's form: the subject and message kept, the exit status by the library's
    /// classification (``NALUExport/FailureKind``; 2 when a track would not be carried).
    var cliError: CLIError { CLIError(subject, message, status: FailureKind(self).exitStatus) }
}
