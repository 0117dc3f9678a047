import NALU
import NALUDecoder
import NALUEncoder
import NALUIO

extension ExportError {
    /// A stage's error as an export error (the typed throws of the pipeline's stages, issue 39
    /// item 6): itself when it is an ``ExportError``; anything else carried whole as
    /// ``underlying`` and ``stageError``, its ``description`` the cause's, its code the stage's
    /// fault: a ``NALU/NALUError`` `.cannotCreate` or `.io` as ``Code/cannotCreate`` or
    /// ``Code/io``, `.cancelled` as ``Code/cancelled``, else ``Code/invalidInput``; a
    /// ``NALUDecoder/DecoderError`` as ``Code/decodeFailed``; an ``NALUEncoder/EncoderError`` of a
    /// refused setting (`.invalidConfiguration`, `.unsupported`) as ``Code/invalidSettings``,
    /// `.io` as ``Code/io``, else ``Code/encodeFailed``; a ``CarriageLoss`` as
    /// ``Code/tracksNotCarried``; a ``NALUIO/PathConflict`` as ``Code/noInput`` (an unreadable
    /// input), ``Code/cannotCreate`` (an output that is an input) or ``Code/invalidSettings`` (two outputs of one name); `CancellationError` as ``Code/cancelled``; any other as
    /// ``Code/invalidInput``. ``FailureKind`` classifies it as its cause.
    public init(stage error: any Error) {
        if let error = error as? ExportError {
            self = error
            return
        }
        self.init(Self.code(ofStage: error), String(describing: error), underlying: error)
        carriesStageError = true
    }

    /// The error a stage threw, as it threw it, when this one carries it (``init(stage:)``);
    /// `nil` for an export error of its own.
    public var stageError: (any Error)? { carriesStageError ? underlying : nil }

    /// `error` as the stage threw it: its ``stageError`` when it is an export error carrying
    /// one, else `error` itself.
    public static func cause(of error: any Error) -> any Error {
        (error as? ExportError)?.stageError ?? error
    }

    /// Runs `body`, a stage's error rethrown as the stage threw it (``stageError``): for callers
    /// that handle the stages' own error types (the command line's messages).
    public static func unwrapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw cause(of: error)
        }
    }

    /// Runs `body`, its errors as ``ExportError``s (``init(stage:)``).
    static func typed<T>(_ body: () throws -> T) throws(ExportError) -> T {
        do { return try body() } catch { throw ExportError(stage: error) }
    }

    private static func code(ofStage error: any Error) -> Code {
        switch error {
        case let error as NALUError:
            switch error.code {
            case .cannotCreate: .cannotCreate
            case .io: .io
            case .cancelled: .cancelled
            default: .invalidInput
            }
        case is DecoderError: .decodeFailed
        case let error as EncoderError:
            switch error.code {
            case .invalidConfiguration, .unsupported: .invalidSettings
            case .io: .io
            default: .encodeFailed
            }
        case is CarriageLoss: .tracksNotCarried
        case let error as PathConflict:
            switch error {
            case .unreadableInput: .noInput
            case .outputIsInput, .outputIsOtherInput: .cannotCreate
            case .outputsCollide: .invalidSettings
            }
        case is CancellationError: .cancelled
        default: .invalidInput
        }
    }
}
