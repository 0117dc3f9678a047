public import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUIO
public import NALUMP4
public import NALUMedia
public import NALUTS

/// One time range of a cut list: `[start, end)` in the input's presentation time, as
/// ``SmartTrimmer`` takes it (`nil` start: the first picture; `nil` end: the end of the stream).
public struct SmartCutRange: Sendable, Hashable, CustomStringConvertible {
    public var start: MediaTime?
    public var end: MediaTime?
    /// The text it was parsed from, which ``description`` gives back (errors name the range as
    /// it was written).
    public var text: String?

    public init(start: MediaTime? = nil, end: MediaTime? = nil) {
        self.start = start
        self.end = end
    }

    /// The whole stream.
    public static let whole = SmartCutRange()

    /// Parses `START-END`, each side seconds (`12.5`) or `[HH:]MM:SS[.fff]` (`1:05.5`) as
    /// ``NALUMedia/MediaTime/init(parsing:field:)`` takes them; either side may be left out
    /// (`5-`: from 5 s to the end, `-10`: the first 10 s).
    /// - Throws: ``NALU/NALUError`` `.invalidValue` with `field` the text when it has no `-`
    ///   or a side is no time.
    public init(parsing text: String) throws(NALUError) {
        let sides = text.split(separator: "-", omittingEmptySubsequences: false)
        guard sides.count == 2 else {
            throw NALUError(.invalidValue, field: text, detail: "not a range START-END (e.g. 0:10-0:20.5, 5-, -10)")
        }
        func time(_ side: Substring) throws(NALUError) -> MediaTime? {
            let trimmed = side.trimmingSpaces
            guard !trimmed.isEmpty else { return nil }
            do {
                return try MediaTime(parsing: trimmed, field: text)
            } catch {
                throw NALUError(.invalidValue, field: text, detail: "\(trimmed) is not a time: seconds (12.5) or [HH:]MM:SS[.fff] (01:02.5)")
            }
        }
        start = try time(sides[0])
        end = try time(sides[1])
        self.text = text
    }

    /// The range `start` (default 0) to `end`, or `start` + `duration`, each text a time as
    /// ``NALUMedia/MediaTime/init(parsing:field:)`` takes it (`nil` end: the end of the stream):
    /// what `nalu trim --start --end --duration` take.
    /// - Throws: ``NALU/NALUError`` `.invalidValue` with `field` the option (`--start`, `--end`,
    ///   `--duration`) that is no time; `.tooLarge` `--duration` when the end passes
    ///   ``NALUMedia/MediaTime/maxWholeSeconds``.
    public init(start: String?, end: String?, duration: String?) throws(NALUError) {
        func parse(_ text: String?, _ option: String) throws(NALUError) -> MediaTime? {
            try text.map { (text) throws(NALUError) in try MediaTime(parsing: text, field: option) }
        }
        let first = try parse(start, "--start") ?? .zero
        self.start = first
        if let length = try parse(duration, "--duration") {
            guard let last = first.adding(length) else { throw NALUError(.tooLarge, field: "--duration", detail: "too large") }
            self.end = last
        } else {
            self.end = try parse(end, "--end")
        }
    }

    /// Parses a comma-separated list of ranges (`0:10-0:20,1:05.5-1:30`) and checks it
    /// (``check(_:)``).
    public static func list(parsing text: String) throws(NALUError) -> [SmartCutRange] {
        let ranges = try text.split(separator: ",", omittingEmptySubsequences: false).map { (part) throws(NALUError) in
            try SmartCutRange(parsing: String(part))
        }
        try check(ranges)
        return ranges
    }

    /// Checks that `ranges` of one input are a cut list: none empty (its end at or before its
    /// start), each after the one before, none overlapping another (an open end runs to the end
    /// of the stream, so only the last range may leave it out).
    /// - Throws: ``NALU/NALUError`` `.invalidValue` with `field` the range at fault.
    public static func check(_ ranges: [SmartCutRange]) throws(NALUError) {
        guard !ranges.isEmpty else { throw NALUError(.missing, field: "range", detail: "no range to keep") }
        var previous: SmartCutRange?
        for range in ranges {
            if let start = range.start, let end = range.end, end <= start {
                throw NALUError(.invalidValue, field: range.description, detail: "is empty: it ends at or before its start")
            }
            if let previous {
                guard let previousEnd = previous.end else {
                    throw NALUError(.invalidValue, field: previous.description, detail: "runs to the end of the stream, over \(range)")
                }
                let start = range.start ?? .zero
                if start < (previous.start ?? .zero) {
                    throw NALUError(.invalidValue, field: range.description, detail: "comes before \(previous): give the ranges in order")
                }
                if start < previousEnd {
                    throw NALUError(.invalidValue, field: range.description, detail: "overlaps \(previous)")
                }
            }
            previous = range
        }
    }

    /// The text parsed, else `START-END` in seconds (a side left out is empty).
    public var description: String { text ?? "\(start.map(\.description) ?? "")-\(end.map(\.description) ?? "")" }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}


/// Cuts several ranges out of one or more inputs and joins them into one stream, frame-exactly
/// and with no edit list needed (issue 34, items 3 and 4): a ``Composition`` written by a
/// ``CompositionWriter``, which says what the output holds (this type keeps the name and the
/// calls of the first version).
///
/// ```swift
/// let list = try SmartCutList(path: "in.mp4", ranges: SmartCutRange.list(parsing: "0:10-0:20,1:05.5-1:30"),
///                             decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
/// let file = try FileSink(path: "kept.mp4")
/// let report = try list.writeMP4(output: file, options: MP4MuxerOptions())
/// try file.commit()
/// print(report.pictures)   // the pictures of both ranges, exactly
/// ```
public final class SmartCutList {
    /// One piece: a range of an input.
    public typealias Piece = Composition.Clip
    /// What the cut of one piece did.
    public typealias PieceSummary = CompositionWriter.ClipSummary
    /// What a cut list did.
    public typealias Report = CompositionWriter.Report

    /// The composition writer doing the work.
    public let writer: CompositionWriter

    /// The pieces, in the order they are joined.
    public var pieces: [Piece] { writer.composition.clips }
    /// The codec of every piece.
    public var codec: Codec { writer.codec }
    public var decoder: any DecoderBackendFactory { writer.decoder }
    /// The encoder of the re-encoded pictures: one for ``codec``.
    public var encoder: any EncoderBackendFactory { writer.encoder }
    /// How the re-encoded pictures spend bits (``SmartTrimmer/rateControl``).
    public var rateControl: RateControl {
        get { writer.rateControl }
        set { writer.rateControl = newValue }
    }
    /// x264/x265 preset of the re-encoded pictures (`nil`: the library's default).
    public var preset: String? {
        get { writer.preset }
        set { writer.preset = newValue }
    }
    /// Settings of short re-encodes (``SmartTrimmer/shortSegmentEncoding``; `nil`: the libraries' own).
    public var shortSegmentEncoding: ShortSegmentEncoding? {
        get { writer.shortSegmentEncoding }
        set { writer.shortSegmentEncoding = newValue }
    }
    /// Where the pieces are written before the join (`nil`: `$TMPDIR`, else `/tmp`).
    public var temporaryDirectory: String? {
        get { writer.temporaryDirectory }
        set { writer.temporaryDirectory = newValue }
    }

    /// Several pieces, of one or more inputs of one codec, in the order they are joined
    /// (``CompositionWriter/init(_:decoder:encoder:)``).
    /// - Throws: ``NALU/NALUError``, as ``CompositionWriter/init(_:decoder:encoder:)``.
    public init(pieces: [Piece], decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws(NALUError) {
        writer = try CompositionWriter(Composition(clips: pieces), decoder: decoder, encoder: encoder)
    }

    /// The ranges of one input, checked as a cut list (``SmartCutRange/check(_:)``).
    /// - Throws: ``NALU/NALUError``: a range refused by the check, or the input's.
    public convenience init(path: String, ranges: [SmartCutRange], options: MediaSourceOptions = MediaSourceOptions(),
                            decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws(NALUError) {
        try self.init(pieces: Composition(path: path, ranges: ranges, options: options).clips, decoder: decoder, encoder: encoder)
    }

    /// The input of `path` as first opened (``SmartTrimmer/source``).
    public func source(of path: String) -> MediaSource? { writer.source(of: path) }

    /// ``CompositionWriter/writeMP4(output:options:audio:)``.
    public func writeMP4(output: FileSink, options: MP4MuxerOptions, audio: Bool = true) throws(SmartCutError) -> Report {
        try writer.writeMP4(output: output, options: options, audio: audio)
    }

    /// ``CompositionWriter/writeAnnexB(output:maxAccessUnitSize:)``.
    /// - Throws: ``SmartCutError``, as ``CompositionWriter/writeAnnexB(output:maxAccessUnitSize:)``.
    public func writeAnnexB<Output: ByteSink & AnyObject>(output: Output,
                                                          maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws(SmartCutError) -> Report {
        try writer.writeAnnexB(output: output, maxAccessUnitSize: maxAccessUnitSize)
    }

    /// ``CompositionWriter/writeTransportStream(output:options:audio:)``.
    /// - Throws: ``SmartCutError``, as ``CompositionWriter/writeTransportStream(output:options:audio:)``.
    public func writeTransportStream<Output: ByteSink>(output: Output, options: TransportStreamMuxerOptions,
                                                       audio: Bool = true) throws(SmartCutError) -> Report {
        try writer.writeTransportStream(output: output, options: options, audio: audio)
    }
}
