/// An error raised while reading, parsing or writing a bitstream.
///
/// `NALUError` is a struct with a ``Code`` and context rather than an enum, so new kinds of error
/// can be added without breaking callers (in the style of swift-system's `Errno`). Every error
/// names the syntax element or structure it was reading (``field``) and, where known, the byte
/// offset in the input (``byteOffset``) and the bit offset inside the RBSP (``bitOffset``).
///
/// ```swift
/// do { _ = try AVCSequenceParameterSet(nalUnit: bytes) }
/// catch let error as NALUError where error.code == .truncated { print(error) }
/// ```
public struct NALUError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What went wrong, independent of where.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short stable identifier, e.g. `"truncated"`.
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The data ended before the syntax element was complete.
        public static let truncated = Code("truncated")
        /// A syntax element holds a value the specification does not allow.
        public static let invalidValue = Code("invalid value")
        /// An Exp-Golomb code had more than 31 leading zero bits (ITU-T H.264 9.1).
        public static let expGolombOverflow = Code("Exp-Golomb code too long")
        /// A length field points past the end of the data.
        public static let lengthPastEnd = Code("length past end")
        /// `forbidden_zero_bit` is set in a NAL unit header.
        public static let forbiddenZeroBit = Code("forbidden_zero_bit set")
        /// A value does not fit the field it must be written to.
        public static let doesNotFit = Code("does not fit")
        /// A structure the operation requires is missing (for example an SPS a slice refers to).
        public static let missing = Code("missing")
        /// The input is not in a recognised format.
        public static let unrecognisedFormat = Code("unrecognised format")
        /// A NAL unit or record is larger than the configured limit.
        public static let tooLarge = Code("too large")
        /// Reading from or writing to the operating system failed.
        public static let io = Code("I/O error")
        /// The operation is not supported for this input.
        public static let unsupported = Code("unsupported")
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
