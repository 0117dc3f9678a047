public import NALU
public import NALUDecoder
public import NALUEncoder

/// Why a smart cut or join failed (``SmartTrimmer/writeMP4(start:end:output:options:audio:)``,
/// ``CompositionWriter/writeMP4(output:options:audio:)``, ``SmartCutList/writeMP4(output:options:audio:)``):
/// a typed error whose case names the stage, the cause kept whole with its code (not
/// stringified), so a caller can `switch` over every case.
public enum SmartCutError: Error, Sendable, CustomStringConvertible {
    /// Reading, parsing, planning, muxing or writing: the stream's or the container's error (a
    /// range outside the input, a damaged sample, an output that cannot be written).
    case stream(NALUError)
    /// A picture that must be re-encoded could not be decoded (``NALUDecoder/DecoderError/code``).
    case decoder(DecoderError)
    /// The re-encoding failed (``NALUEncoder/EncoderError/code``: a missing library, a refused
    /// configuration).
    case encoder(EncoderError)
    /// ``SmartTrimmer/isCancelled`` asked the cut to stop (nothing is committed).
    case cancelled

    /// `error` as a smart cut error: itself when it is one, the decoder's, encoder's and
    /// stream's errors in their cases, `CancellationError` and a `NALUError` `.cancelled` (a
    /// join's `isCancelled`) as ``cancelled``; anything else (none
    /// today) as a ``stream(_:)`` I/O error carrying its description (``NALU/NALUError/converting(_:field:)``).
    public init(_ error: any Error) {
        switch error {
        case let error as SmartCutError: self = error
        case let error as NALUError where error.code == .cancelled: self = .cancelled
        case let error as NALUError: self = .stream(error)
        case let error as DecoderError: self = .decoder(error)
        case let error as EncoderError: self = .encoder(error)
        case is CancellationError: self = .cancelled
        default: self = .stream(NALUError.converting(error, field: "smart cut"))
        }
    }

    /// The cause as the stage threw it (a `NALUError`, `DecoderError`, `EncoderError`, or
    /// `CancellationError`), for callers that handle those types.
    public var underlying: any Error {
        switch self {
        case .stream(let error): error
        case .decoder(let error): error
        case .encoder(let error): error
        case .cancelled: CancellationError()
        }
    }

    public var description: String { String(describing: underlying) }

    /// Runs `body`, its errors as ``SmartCutError``s.
    static func typed<T>(_ body: () throws -> T) throws(SmartCutError) -> T {
        do { return try body() } catch { throw SmartCutError(error) }
    }

    /// Runs `body`, a ``SmartCutError`` rethrown as its ``underlying`` cause (for callers whose
    /// callers handle the stages' own error types).
    public static func unwrapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SmartCutError { throw error.underlying }
    }
}
