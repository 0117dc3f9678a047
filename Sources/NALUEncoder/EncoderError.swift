/// An error raised by an encoder session, a backend, or a raw-video reader.
///
/// The same shape as ``NALU/NALUError``: a ``Code``, the ``field`` (setting, input structure or
/// library call) at fault, the ``byteOffset`` where the input has one, and a ``detail``; a struct
/// rather than an enum, so new kinds of error can be added without breaking callers. Errors that
/// come from a C library also carry its return code in ``libraryStatus``. A separate type because
/// its codes (configuration, backend failures, lost frames) are not bitstream errors.
///
/// ```swift
/// do { try session.encode(frame) { packet in … } }
/// catch let error as EncoderError where error.code == .tooManyFailures { … }
/// ```
public struct EncoderError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What went wrong, independent of where.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short stable identifier, e.g. `"invalid configuration"`.
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A configuration value is out of range or conflicts with another (detected before any
        /// frame is encoded; never retried).
        public static let invalidConfiguration = Code("invalid configuration")
        /// The backend does not support the requested feature, codec or pixel format.
        public static let unsupported = Code("unsupported")
        /// The encoder library cannot be loaded (not installed, or another version): the backends
        /// open libx264, libx265 and libopenh264 with `dlopen` at first use. ``EncoderError/field``
        /// names the file (e.g. `libx264.so.164`), ``EncoderError/detail`` the loader's reason and
        /// the package to install. Not retried.
        public static let libraryUnavailable = Code("library unavailable")
        /// The backend could not be created (for example the library returned no handle).
        public static let backendCreationFailed = Code("backend creation failed")
        /// The backend reports that its session is no longer valid; the session rebuilds it.
        public static let invalidSession = Code("invalid session")
        /// The backend failed to encode a frame; the session rebuilds it.
        public static let encodeFailed = Code("encode failed")
        /// Rebuilding did not help: too many consecutive frames failed, or creating the backend
        /// failed more often than the retry policy allows.
        public static let tooManyFailures = Code("too many failures")
        /// A frame does not match the session's configuration (size, pixel format, strides).
        public static let frameMismatch = Code("frame mismatch")
        /// A frame's timestamp is not greater than the previous frame's.
        public static let nonMonotonicTimestamp = Code("non-monotonic timestamp")
        /// Frames held inside a failed backend could not be drained.
        public static let framesLost = Code("frames lost")
        /// Raw video input ended in the middle of a frame or header (``NALU/NALUError/Code/truncated``'s
        /// counterpart).
        public static let truncated = Code("truncated input")
        /// The former name of ``truncated``.
        public static var truncatedInput: Code { truncated }
        /// Raw video input is malformed (for example a bad Y4M header).
        public static let invalidInput = Code("invalid input")
        /// Reading input failed.
        public static let io = Code("I/O error")
    }

    /// What went wrong.
    public var code: Code
    /// The setting, input structure or library call at fault, e.g. `"bFrames"`, `"Y4M header"`,
    /// `"x264_encoder_open"` (as ``NALU/NALUError/field`` names a syntax element).
    public var field: String
    /// Offset in the input stream, for errors about raw video input.
    public var byteOffset: Int64?
    /// Extra human-readable detail.
    public var detail: String?
    /// The C library's return code, when the error comes from one.
    public var libraryStatus: Int32?
    /// For ``Code/framesLost``: the pts of every frame that was accepted but will never come out,
    /// in input order.
    public var lostFramePTS: [Int64] = []

    /// Arguments in ``NALU/NALUError``'s order: code, field, byte offset, detail.
    public init(_ code: Code, field: String, byteOffset: Int64? = nil, detail: String? = nil, libraryStatus: Int32? = nil) {
        self.code = code
        self.field = field
        self.byteOffset = byteOffset
        self.detail = detail
        self.libraryStatus = libraryStatus
    }

    /// The former spelling of ``init(_:field:byteOffset:detail:libraryStatus:)`` (`context` is
    /// now ``field``), kept so code written against it still builds.
    public init(_ code: Code, context: String, detail: String? = nil, byteOffset: Int64? = nil, libraryStatus: Int32? = nil) {
        self.init(code, field: context, byteOffset: byteOffset, detail: detail, libraryStatus: libraryStatus)
    }

    /// The former name of ``field``.
    public var context: String {
        get { field }
        set { field = newValue }
    }

    /// One line: `<field>: <code>[ (<detail>)][ at byte <offset>][ [status <n>]]`, as
    /// ``NALU/NALUError`` writes it.
    public var description: String {
        var text = "\(field): \(code.rawValue)"
        if let detail { text += " (\(detail))" }
        if let byteOffset { text += " at byte \(byteOffset)" }
        if let libraryStatus { text += " [status \(libraryStatus)]" }
        if !lostFramePTS.isEmpty { text += " [lost pts \(lostFramePTS.map(String.init).joined(separator: ","))]" }
        return text
    }

    /// Whether the session answers this error by rebuilding the backend and re-sending the frame.
    public var isSessionFailure: Bool { code == .invalidSession || code == .encodeFailed }
}

extension EncoderError {
    static func invalid(_ field: String, _ detail: String) -> EncoderError {
        EncoderError(.invalidConfiguration, field: field, detail: detail)
    }
}
