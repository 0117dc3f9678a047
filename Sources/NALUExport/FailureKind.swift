import NALU
import NALUIO
import NALUDecoder
import NALUEncoder

/// What kind of failure an error is, whichever library threw it: the classification a command
/// line, a service or an app reports by (`nalu` exits with ``exitStatus``; Docs/errors.md).
public enum FailureKind: Sendable, Hashable, CaseIterable {
    /// A setting the caller chose is refused (an option, an encoder configuration): EX_USAGE.
    case usage
    /// The input's data is damaged, unsupported or inconsistent: EX_DATAERR.
    case data
    /// An input is missing or cannot be read: EX_NOINPUT.
    case noInput
    /// A library (x264, x265, OpenH264, a decoder) cannot be loaded: EX_UNAVAILABLE.
    case unavailable
    /// An output cannot be created (or would replace an input): EX_CANTCREAT.
    case cannotCreate
    /// Reading or writing failed in the operating system: EX_IOERR.
    case io
    /// The output was written but a track, program or picture was not carried (``CarriageLoss``,
    /// ``ExportError/Code/tracksNotCarried``): something would be lost.
    case notCarried
    /// Anything else (an encoder session's failure, resources).
    case failure

    /// The process exit status for this kind: sysexits.h (64 usage, 65 data, 66 no input, 69
    /// unavailable, 73 cannot create, 74 I/O), 2 for what was not carried, 1 otherwise.
    public var exitStatus: Int32 {
        switch self {
        case .usage: 64
        case .data: 65
        case .noInput: 66
        case .unavailable: 69
        case .cannotCreate: 73
        case .io: 74
        case .notCarried: 2
        case .failure: 1
        }
    }

    /// The kind of `error`: ``NALU/NALUError``, ``NALUEncoder/EncoderError``,
    /// ``NALUDecoder/DecoderError``, ``ExportError``, ``NALUIO/PathConflict`` and ``CarriageLoss``
    /// by their codes; any other error is ``failure``.
    public init(_ error: any Error) {
        // A stage's error carried whole (``ExportError/init(stage:)``) is of its cause's kind.
        let error = ExportError.cause(of: error)
        switch error {
        case let error as NALUError:
            self = error.code == .cannotCreate ? .cannotCreate : error.code == .io ? .io : .data
        case let error as EncoderError:
            switch error.code {
            case .invalidConfiguration, .unsupported: self = .usage
            case .libraryUnavailable: self = .unavailable
            case .truncated, .invalidInput, .frameMismatch, .nonMonotonicTimestamp: self = .data
            case .io: self = .io
            default: self = .failure
            }
        case let error as DecoderError:
            switch error.code {
            case .libraryUnavailable: self = .unavailable
            // A decoder for the other codec was chosen: the choice is refused, not the data.
            case .unsupported where error.field == "codec": self = .usage
            default: self = .data
            }
        case let error as ExportError:
            switch error.code {
            case .invalidSettings: self = .usage
            case .noInput: self = .noInput
            case .invalidInput, .decodeFailed, .picturesLost, .encodeFailed: self = .data
            case .tracksNotCarried: self = .notCarried
            case .cannotCreate: self = .cannotCreate
            case .io: self = .io
            case .resources, .cancelled: self = .failure
            }
        case let error as PathConflict:
            switch error {
            case .unreadableInput: self = .noInput
            case .outputIsInput, .outputIsOtherInput: self = .cannotCreate
            case .outputsCollide: self = .usage
            }
        case is CarriageLoss:
            self = .notCarried
        default:
            self = .failure
        }
    }
}
