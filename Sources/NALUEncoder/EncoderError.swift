/// An error raised by an encoder session, a backend, or a raw-video reader.
///
/// The same shape as ``NALU/NALUError``: a ``Code``, the ``field`` (setting, input structure or
/// library call) at fault, the ``byteOffset`` where the input has one, and a ``detail``. Errors that
/// come from a C library also carry its return code in ``libraryStatus``. A separate type because
/// its codes (configuration, backend failures, lost frames) are not bitstream errors. The
/// session's `init`, ``EncoderSession/encode(_:)``, ``EncoderSession/flush()`` and
/// ``EncoderSession/setBitrate(_:)`` throw it typed (`throws(EncoderError)`).
///
/// ```swift
/// do { for packet in try session.encode(frame) { … } }
/// catch where error.code == .tooManyFailures { … }   // error: EncoderError
/// catch { switch error.code { case .frameMismatch: …; default: … } }
/// ```
public struct EncoderError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What went wrong, independent of where: an enum, so callers can `switch` over every case
    /// (issue 32 item 17); ``rawValue`` is the short stable text printed in messages.
    public enum Code: String, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        /// A configuration value is out of range or conflicts with another (detected before any
        /// frame is encoded; never retried).
        case invalidConfiguration = "invalid configuration"
        /// The backend does not support the requested feature, codec or pixel format.
        case unsupported = "unsupported"
        /// The encoder library cannot be loaded (not installed, or another version): the backends
        /// open libx264, libx265 and libopenh264 with `dlopen` at first use. ``EncoderError/field``
        /// names the file (e.g. `libx264.so.164`), ``EncoderError/detail`` the loader's reason and
        /// the package to install. Not retried.
        case libraryUnavailable = "library unavailable"
        /// The backend could not be created (for example the library returned no handle).
        case backendCreationFailed = "backend creation failed"
        /// The backend reports that its session is no longer valid; the session rebuilds it.
        case invalidSession = "invalid session"
        /// The backend failed to encode a frame; the session rebuilds it.
        case encodeFailed = "encode failed"
        /// Rebuilding did not help: too many consecutive frames failed, or creating the backend
        /// failed more often than the retry policy allows.
        case tooManyFailures = "too many failures"
        /// A frame does not match the session's configuration (size, pixel format, strides).
        case frameMismatch = "frame mismatch"
        /// A frame's timestamp is not greater than the previous frame's.
        case nonMonotonicTimestamp = "non-monotonic timestamp"
        /// Frames held inside a failed backend could not be drained.
        case framesLost = "frames lost"
        /// Raw video input ended in the middle of a frame or header (``NALU/NALUError/Code/truncated``'s
        /// counterpart).
        case truncated = "truncated input"
        /// Raw video input is malformed (for example a bad Y4M header).
        case invalidInput = "invalid input"
        /// Reading input failed.
        case io = "I/O error"

        /// The former name of ``truncated``.
        public static var truncatedInput: Code { .truncated }
        public var description: String { rawValue }
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
