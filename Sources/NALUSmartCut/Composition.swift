public import NALU
import NALUIO
public import NALUMedia

/// An ordered list of clips — time ranges of one or more files, each with its audio and other
/// tracks — laid end to end on one timeline: the `AVMutableComposition` of nalu (issue 39 item 4).
///
/// A composition says *what* is joined; ``CompositionWriter`` writes it (smart-cut joins: the
/// groups of pictures inside each clip copied bit for bit, only the pictures a cut needs decoded
/// and re-encoded), and `NALUExport`'s `CompositionSession` exports it with progress and
/// cancellation, choosing the decoder and encoder for the clips' codec.
///
/// ```swift
/// var composition = Composition()
/// composition.append("a.mp4", range: SmartCutRange(start: MediaTime(wholeSeconds: 5)))
/// composition.append("b.mp4")    // the whole file
/// ```
///
/// `nalu trim IN --keep A-B,C-D` is the composition of one file's ranges
/// (``init(path:ranges:options:)``); `nalu concat --smart IN@A-B IN2@C-D` the composition of
/// its arguments.
public struct Composition: Sendable {
    /// One clip: a range of an input, `[start, end)` in its presentation time (``SmartCutRange``:
    /// either side open, `.whole` for the whole file).
    public struct Clip: Sendable {
        /// The input file (MP4/MOV, MPEG-TS, Annex-B or length-prefixed with
        /// ``NALUMedia/MediaSourceOptions/record``): read more than once, so not standard input.
        public var path: String
        /// The range of the input the clip shows.
        public var range: SmartCutRange
        /// How the input is read (codec, PID of a transport stream's video).
        public var options: MediaSourceOptions

        /// `range` of `path` (the whole file by default).
        public init(path: String, range: SmartCutRange = .whole, options: MediaSourceOptions = MediaSourceOptions()) {
            self.path = path
            self.range = range
            self.options = options
        }

        /// `path` from `start` (`nil`: its first picture) to `end` (exclusive; `nil`: its end).
        public init(path: String, start: MediaTime?, end: MediaTime?, options: MediaSourceOptions = MediaSourceOptions()) {
            self.init(path: path, range: SmartCutRange(start: start, end: end), options: options)
        }

        /// A clip as `nalu concat --smart` takes it: `PATH`, or `PATH@START-END` with either side
        /// optional (``SmartCutRange/init(parsing:)``). A file that exists under the whole
        /// argument is that file (a path may hold `@`); otherwise a trailing `@…` that parses as
        /// a range is one (the whole file when there is none).
        /// - Throws: ``NALU/NALUError`` `.invalidValue` when the text after the last `@` is no
        ///   range although the text before it names a file (`c.mp4@0-1e300`).
        public init(argument: String, options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) {
            self.init(path: argument, options: options)
            guard argument != "-", FileIdentity(path: argument) == nil, let at = argument.lastIndex(of: "@"),
                  at != argument.startIndex else { return }
            let prefix = String(argument[..<at])
            do {
                range = try SmartCutRange(parsing: String(argument[argument.index(after: at)...]))
                path = prefix
            } catch {
                if FileIdentity(path: prefix) != nil { throw error }
            }
        }

        /// `PATH@RANGE`, as errors and reports name the clip.
        public var name: String { "\(path)@\(range)" }
    }

    /// The clips, in the order they play.
    public var clips: [Clip]

    /// A composition of `clips`, in order (none: an empty composition to append to).
    public init(clips: [Clip] = []) { self.clips = clips }

    /// The clips `IN@START-END` of `arguments` (``Clip/init(argument:options:)``), in order, as
    /// `nalu concat --smart` takes them: a bare `IN` is the whole input.
    /// - Throws: ``NALU/NALUError`` `.invalidValue`: an argument's range that is none, or one
    ///   that ends at or before its start (the field is the argument).
    public init(arguments: [String], options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) {
        clips = []
        for argument in arguments {
            let clip = try Clip(argument: argument, options: options)
            if let start = clip.range.start, let end = clip.range.end, end <= start {
                throw NALUError(.invalidValue, field: argument, detail: "the range is empty: it ends at or before its start")
            }
            clips.append(clip)
        }
    }

    /// The ranges of one input, in order, checked as a cut list (``SmartCutRange/check(_:)``:
    /// none empty, none overlapping another).
    /// - Throws: ``NALU/NALUError`` `.invalidValue` naming the range at fault.
    public init(path: String, ranges: [SmartCutRange], options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) {
        try SmartCutRange.check(ranges)
        clips = ranges.map { Clip(path: path, range: $0, options: options) }
    }

    /// Appends a range of `path` (the whole file by default) after the last clip.
    public mutating func append(_ path: String, range: SmartCutRange = .whole, options: MediaSourceOptions = MediaSourceOptions()) {
        clips.append(Clip(path: path, range: range, options: options))
    }

    /// Appends `path` from `start` to `end` seconds (`nil`: its end), times to the nanosecond.
    /// - Throws: ``NALU/NALUError`` `.invalidValue` for a negative, not finite or reversed time.
    public mutating func append(_ path: String, seconds start: Double, to end: Double? = nil,
                                options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) {
        func time(_ value: Double, _ field: String) throws(NALUError) -> MediaTime {
            guard let nanoseconds = CheckedNumber.int64((value * 1e9).rounded()), nanoseconds >= 0 else {
                throw NALUError(.invalidValue, field: field, detail: "\(value) s is not a time from the start of \(path)")
            }
            return try MediaTime(parsing: Self.decimal(nanoseconds), field: field)
        }
        let range = SmartCutRange(start: try time(start, "start"), end: try end.map { (end) throws(NALUError) in try time(end, "end") })
        if let end = range.end, let first = range.start, end <= first {
            throw NALUError(.invalidValue, field: "end", detail: "\(path): the range ends at or before its start")
        }
        append(path, range: range, options: options)
    }

    /// Nanoseconds as decimal seconds text (`1500000000` → `1.500000000`).
    private static func decimal(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000 + 1_000_000_000).dropFirst()
        return "\(nanoseconds / 1_000_000_000).\(fraction)"
    }
}
