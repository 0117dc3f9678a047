/// An error raised by a decoder session or a decoder backend.
///
/// The same shape as ``NALU/NALUError`` and ``NALUEncoder/EncoderError``: a ``Code``, the
/// ``field`` (syntax element, setting or library call) at fault, the ``accessUnitIndex`` and
/// ``byteOffset`` of the access unit being decoded when there is one, and a ``detail`` (for
/// bitstream errors, the decoder's own words).
public struct DecoderError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What went wrong, independent of where: an enum, so callers can `switch` over every case
    /// (issue 39); ``rawValue`` is the short stable text printed in messages. The faults the
    /// encoder also has keep ``NALUEncoder/EncoderError/Code``'s names (Docs/errors.md).
    public enum Code: String, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var description: String { rawValue }

        /// The backend cannot decode this codec, profile, chroma format or bit depth.
        case unsupported = "unsupported"
        /// The decoder library cannot be loaded (not installed, or another version): the
        /// backends open libavcodec and libde265 with `dlopen` at first use. ``DecoderError/field``
        /// names the file, ``DecoderError/detail`` the loader's reason and the package to install.
        case libraryUnavailable = "library unavailable"
        /// The backend could not be created (the library returned no decoder); retried.
        case backendCreationFailed = "backend creation failed"
        /// The backend is no longer usable; the session drains and drops it and starts a new one
        /// at the next keyframe, counting the access units in between as lost.
        case invalidSession = "invalid session"
        /// The decoder rejected the access unit's coded data (the picture is missing or
        /// concealed); ``DecoderError/detail`` has the decoder's words. Decoding can go on.
        case decodeFailed = "decode failed"
        /// A parameter set of the stream cannot be parsed.
        case invalidParameterSet = "invalid parameter set"
        /// Rebuilding did not help: creating the backend failed more often than the retry
        /// policy allows.
        case tooManyFailures = "too many failures"
    }

    /// What went wrong.
    public var code: Code
    /// The syntax element, setting or library call at fault, e.g. `"avcodec_send_packet"`.
    public var field: String
    /// Decoding-order index of the access unit (from 0), when the error concerns one.
    public var accessUnitIndex: Int?
    /// Offset in the input of the access unit's first byte, when known.
    public var byteOffset: Int64?
    /// Extra human-readable detail: for bitstream errors, the decoder's messages.
    public var detail: String?
    /// The C library's return code, when the error comes from one.
    public var libraryStatus: Int32?

    public init(_ code: Code, field: String, accessUnitIndex: Int? = nil, byteOffset: Int64? = nil, detail: String? = nil,
                libraryStatus: Int32? = nil) {
        self.code = code
        self.field = field
        self.accessUnitIndex = accessUnitIndex
        self.byteOffset = byteOffset
        self.detail = detail
        self.libraryStatus = libraryStatus
    }

    /// One line: `<field>: <code>[ (<detail>)][ in access unit <n>][ at byte <offset>][ [status <s>]]`.
    public var description: String {
        var text = "\(field): \(code.rawValue)"
        if let detail { text += " (\(detail))" }
        if let accessUnitIndex { text += " in access unit \(accessUnitIndex)" }
        if let byteOffset { text += " at byte \(byteOffset)" }
        if let libraryStatus { text += " [status \(libraryStatus)]" }
        return text
    }
}
