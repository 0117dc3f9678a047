/// An error raised while reading, parsing or writing a bitstream.
///
/// `NALUError` is a struct with a ``Code`` (an enum callers can switch over exhaustively) and
/// context. Every error names the syntax element or structure it was reading (``field``) and, where known, the byte
/// offset in the input (``byteOffset``) and the bit offset inside the RBSP (``bitOffset``).
///
/// ```swift
/// do { _ = try AVCSequenceParameterSet(nalUnit: bytes) }
/// catch let error as NALUError where error.code == .truncated { print(error) }
/// catch let error as NALUError { switch error.code { case .unsupported: …; default: … } }
/// ```
public struct NALUError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What went wrong, independent of where: an enum, so callers can `switch` over every case
    /// (issue 39); ``rawValue`` is the short stable text printed in messages. The same fault has
    /// the same case name in ``NALUEncoder/EncoderError``, ``NALUDecoder/DecoderError`` and
    /// ``NALUExport/ExportError`` (Docs/errors.md).
    public enum Code: String, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        /// The data ended before the syntax element was complete.
        case truncated = "truncated"
        /// A syntax element holds a value the specification does not allow.
        case invalidValue = "invalid value"
        /// An Exp-Golomb code had more than 31 leading zero bits (ITU-T H.264 9.1).
        case expGolombOverflow = "Exp-Golomb code too long"
        /// A length field points past the end of the data.
        case lengthPastEnd = "length past end"
        /// `forbidden_zero_bit` is set in a NAL unit header.
        case forbiddenZeroBit = "forbidden_zero_bit set"
        /// A value does not fit the field it must be written to.
        case doesNotFit = "does not fit"
        /// A structure the operation requires is missing (for example an SPS a slice refers to).
        case missing = "missing"
        /// The input is not in a recognised format.
        case unrecognisedFormat = "unrecognised format"
        /// A NAL unit or record is larger than the configured limit.
        case tooLarge = "too large"
        /// Reading from or writing to the operating system failed.
        case io = "I/O error"
        /// The operation is not supported for this input.
        case unsupported = "unsupported"
        /// An output file could not be created (missing or read-only folder, a directory at the
        /// path, the output is the input): NALUIO's `OutputTarget`, the packager's folders.
        case cannotCreate = "cannot create"
        /// The caller stopped the operation (a `Concatenator`'s or a writer's `isCancelled`, or the
        /// task's cancellation): nothing it wrote is committed. ``NALUError/converting(_:field:)``
        /// makes a `CancellationError` this.
        case cancelled = "cancelled"

        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The syntax element or structure being read, e.g. `"log2_max_frame_num_minus4"`.
    public var field: String
    /// Offset of the failing byte in the input stream, when known.
    public var byteOffset: Int64?
    /// Offset in bits inside the RBSP (or record) being parsed, when known.
    public var bitOffset: Int?
    /// Extra human-readable context.
    public var detail: String?

    public init(_ code: Code, field: String, byteOffset: Int64? = nil, bitOffset: Int? = nil, detail: String? = nil) {
        self.code = code
        self.field = field
        self.byteOffset = byteOffset
        self.bitOffset = bitOffset
        self.detail = detail
    }

    /// One line: `<field>: <code>[ (<detail>)] at byte <offset>[, bit <n>]`.
    public var description: String {
        var text = "\(field): \(code.rawValue)"
        if let detail { text += " (\(detail))" }
        if let byteOffset {
            text += " at byte \(byteOffset)"
        } else if let bitOffset {
            text += " at bit \(bitOffset)"
        }
        return text
    }

    /// The same error with its byte offset moved by `base` (for example the NAL unit's position in
    /// the stream). An error without a byte offset takes `base`.
    public func offset(by base: Int64) -> NALUError {
        var copy = self
        copy.byteOffset = (byteOffset ?? 0) &+ base
        return copy
    }
}

extension NALUError {
    static func truncated(_ field: String, bitOffset: Int? = nil, byteOffset: Int64? = nil) -> NALUError {
        NALUError(.truncated, field: field, byteOffset: byteOffset, bitOffset: bitOffset)
    }

    static func invalid(_ field: String, _ detail: String? = nil, bitOffset: Int? = nil, byteOffset: Int64? = nil) -> NALUError {
        NALUError(.invalidValue, field: field, byteOffset: byteOffset, bitOffset: bitOffset, detail: detail)
    }
}

extension NALUError {
    /// `error` as a `NALUError`: itself when it is one; `.cancelled` for a `CancellationError`;
    /// otherwise (an error a callee of a `throws(NALUError)` entry point passed through, none
    /// today) `.io` naming `field`, with the error's description as the detail, so nothing traps
    /// and nothing is lost.
    public static func converting(_ error: any Error, field: String) -> NALUError {
        if let error = error as? NALUError { return error }
        if error is CancellationError { return NALUError(.cancelled, field: field) }
        return NALUError(.io, field: field, detail: String(describing: error))
    }

    /// Runs `body` (which throws only `NALUError`s but through an untyped `throws`: a rethrowing
    /// helper, a `withUnsafeBytes`) with its errors typed: a typed-throws entry point's body.
    package static func typed<T>(field: String, _ body: () throws -> T) throws(NALUError) -> T {
        do { return try body() } catch { throw converting(error, field: field) }
    }
}
