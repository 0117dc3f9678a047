/// An error of the export pipeline (``ExportSession``, ``DecodedVideoInput``,
/// ``BackgroundDecoder``): a ``Code`` callers can switch over exhaustively, the ``subject`` at
/// fault (the input or output path, or the setting's name) and a ``message``. The errors of the
/// stages it runs (``NALU/NALUError`` from parsing and muxing, ``NALUEncoder/EncoderError``,
/// ``NALUDecoder/DecoderError``) come through as ``underlying``, wrapped by
/// ``ExportSession/export()`` with the code that says which stage failed.
///
/// Cancellation is not an `ExportError`: a cancelled export throws `CancellationError`. The
/// stages (``DecodedVideoInput``, ``EncodePipeline``, …) throw `throws(ExportError)`: their
/// causes carried whole by ``init(stage:)`` (``stageError``).
public struct ExportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong (the short stable text in ``rawValue`` appears in messages).
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A setting is out of range or does not apply to the input (a size off the chroma
        /// grid, a time range outside the input, a chunk of an input that cannot be split).
        case invalidSettings = "invalid settings"
        /// The input cannot be opened or read.
        case noInput = "no input"
        /// The input is malformed, or holds no picture to export.
        case invalidInput = "invalid input"
        /// The decoder failed (``NALUDecoder/DecoderError`` in ``underlying``).
        case decodeFailed = "decode failed"
        /// Pictures could not be decoded (damaged NAL units, failed decoders): the output was
        /// written with every picture that could, and this error names the loss.
        case picturesLost = "pictures lost"
        /// The encoder failed (``NALUEncoder/EncoderError`` in ``underlying``).
        case encodeFailed = "encode failed"
        /// A track of the input would not be carried (audio an output cannot hold, programs of
        /// a transport stream not read): nothing is lost silently.
        case tracksNotCarried = "tracks not carried"
        /// The output cannot be created.
        case cannotCreate = "cannot create"
        /// Writing the output failed.
        case io = "I/O error"
        /// A thread or other resource could not be had.
        case resources = "resources"
        /// A stage was stopped (its `CancellationError`, or a `NALUError` `.cancelled`, carried
        /// by ``init(stage:)``). ``ExportSession/export()`` and ``CompositionSession/export()``
        /// throw `CancellationError` itself.
        case cancelled = "cancelled"

        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The input or output path, or the setting, at fault; `nil` when none applies.
    public var subject: String?
    /// What happened, in words.
    public var message: String
    /// The stage's own error, when one caused this.
    public var underlying: (any Error & Sendable)?
    /// What to do about it, when something can be said (`check --size and --pix-fmt`).
    public var hint: String?
    /// Whether ``underlying`` is a stage's error carried whole (``init(stage:)``).
    var carriesStageError = false

    public init(_ code: Code, subject: String? = nil, _ message: String, hint: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.subject = subject
        self.message = message
        self.hint = hint
        self.underlying = underlying
    }

    /// `subject: message`.
    public var description: String { (subject.map { $0 + ": " } ?? "") + message }
}
