#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
/// and with no edit list needed (issue 34, items 3 and 4): `nalu trim IN --keep A-B,C-D` and
/// `nalu concat --smart IN@A-B IN2@C-D`, what `AVMutableComposition`'s `insertTimeRange` and
/// LosslessCut's segments do.
///
/// Each piece is cut by a ``SmartTrimmer`` (the pictures from its start to the first copy point
/// and after the last whole GOP re-encoded with the source's settings, the GOPs between copied
/// bit for bit) into a temporary MP4 file, with its audio cut to the same range; the pieces are
/// then joined by ``NALUMedia/Concatenator`` as any MP4 inputs are (a range with no picture
/// fails with a ``NALU/NALUError`` whose field is `PATH@RANGE`):
/// - **Video**: each piece shows exactly the pictures presenting in its range and lasts exactly
///   their durations; the join lays the pieces end to end on one timeline (``NALUMedia/ConcatTiming``:
///   each piece's first picture at the previous one's end, no gap, no overlap), an end of
///   sequence NAL unit between pieces. The re-encoded pictures' parameter sets differ from the
///   copied ones', so MP4 output has a sample entry per change (or the sets in band with
///   `avc3`/`hev1`). The MP4's edit list is absent or the identity (one edit, `media_time` 0,
///   the whole track): players that ignore edit lists show the same pictures.
/// - **Audio** (MP4 and MPEG-TS output): each piece's audio is the input's audio of that range
///   (``NALUMedia/TrimAudioCut``); the join (``NALUMedia/ConcatAudio``) starts each piece's audio
///   where its video starts within half an audio frame, so the joined audio lasts as long as
///   the video within one frame and never drifts.
///
/// Pieces whose video timescales differ (inputs of other rates) keep their own times in MP4 and
/// MPEG-TS output, on the least common multiple of their timescales (``NALUMedia/ConcatTiming``:
/// the pieces hide no picture, so one edit shows them all and a transport stream keeps their
/// times); in elementary output the join is timed at the first piece's frame rate and
/// ``NALUMedia/ConcatReport/inputsAtAnotherRate`` names the pieces at another rate.
///
/// The pieces are read twice (cut, then join) and take about the output's size in the temporary
/// directory while the join runs; they are removed afterwards, also on failure or a signal (the
/// CLI's, through ``NALUIO/TemporaryFileRegistry``).
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
    public struct Piece: Sendable {
        public var path: String
        public var range: SmartCutRange
        public var options: MediaSourceOptions

        public init(path: String, range: SmartCutRange = .whole, options: MediaSourceOptions = MediaSourceOptions()) {
            self.path = path
            self.range = range
            self.options = options
        }
    }

    /// What the cut of one piece did: the counts of its ``SmartTrimmer/Report``, kept without
    /// the plan's per-picture lists, so a list of thousands of ranges holds a few words per range.
    public struct PieceSummary: Sendable, Hashable {
        /// Pictures the piece shows.
        public var pictures: Int
        /// Pictures re-encoded before and after the copied ones.
        public var headPictures: Int
        public var tailPictures: Int
        /// Access units copied unchanged.
        public var copiedAccessUnits: Int

        public init(_ report: SmartTrimmer.Report) {
            pictures = report.plan.pictureCount
            headPictures = report.headPictures
            tailPictures = report.tailPictures
            copiedAccessUnits = report.copiedAccessUnits
        }
    }

    /// What a cut list did.
    public struct Report: Sendable {
        /// Each piece's cut, in order.
        public var pieces: [PieceSummary]
        /// The join of the pieces.
        public var join: ConcatReport

        /// Pictures shown in the output.
        public var pictures: Int { join.pictures.reduce(0, +) }
        /// Pictures re-encoded, over all pieces.
        public var reencodedPictures: Int { pieces.reduce(0) { $0 + $1.headPictures + $1.tailPictures } }
        /// Access units copied unchanged, over all pieces.
        public var copiedAccessUnits: Int { pieces.reduce(0) { $0 + $1.copiedAccessUnits } }
    }

    public let pieces: [Piece]
    /// The codec of every piece.
    public let codec: Codec
    public let decoder: any DecoderBackendFactory
    /// The encoder of the re-encoded pictures: one for ``codec``.
    public let encoder: any EncoderBackendFactory
    /// How the re-encoded pictures spend bits (``SmartTrimmer/rateControl``).
    public var rateControl: RateControl = .crf(12)
    /// x264/x265 preset of the re-encoded pictures (`nil`: the library's default).
    public var preset: String?
    /// Where the pieces are written before the join (`nil`: `$TMPDIR`, else `/tmp`).
    public var temporaryDirectory: String?
    /// One trimmer per distinct input (its index is read once for all its ranges).
    private var trimmers: [String: SmartTrimmer] = [:]

    /// Several pieces, of one or more inputs of one codec, in the order they are joined.
    /// - Throws: what ``SmartTrimmer/init(path:options:decoder:encoder:)`` throws; ``NALU/NALUError``
    ///   `.unsupported` with field `concat` naming two inputs of different codecs.
    public init(pieces: [Piece], decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws {
        guard let first = pieces.first else { throw NALUError(.missing, field: "range", detail: "no piece to keep") }
        var trimmers: [String: SmartTrimmer] = [:]
        var firstCodec: Codec?
        for piece in pieces where trimmers[piece.path] == nil {
            let trimmer = try SmartTrimmer(path: piece.path, options: piece.options, decoder: decoder, encoder: encoder)
            if let firstCodec, trimmer.source.codec != firstCodec {
                throw NALUError(.unsupported, field: "concat",
                                detail: "\(first.path) is \(Self.name(firstCodec)) and \(piece.path) is \(Self.name(trimmer.source.codec))")
            }
            firstCodec = firstCodec ?? trimmer.source.codec
            trimmers[piece.path] = trimmer
        }
        self.pieces = pieces
        self.trimmers = trimmers
        codec = firstCodec ?? .h264
        self.decoder = decoder
        self.encoder = encoder
    }

    /// The ranges of one input, checked as a cut list (``SmartCutRange/check(_:)``).
    public convenience init(path: String, ranges: [SmartCutRange], options: MediaSourceOptions = MediaSourceOptions(),
                            decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws {
        try SmartCutRange.check(ranges)
        try self.init(pieces: ranges.map { Piece(path: path, range: $0, options: options) }, decoder: decoder, encoder: encoder)
    }

    /// The input of `path` as first opened (``SmartTrimmer/source``).
    public func source(of path: String) -> MediaSource? { trimmers[path]?.source }

    private static func name(_ codec: Codec) -> String { codec == .h264 ? "H.264" : "H.265" }

    /// Writes the pieces joined as one MP4: `options` as ``NALUMedia/Concatenator/writeMP4(output:options:audio:)``
    /// takes them (its frame rate and edit list are set here: the pieces keep their own times),
    /// with the pieces' audio joined when `audio`.
    public func writeMP4(output: FileSink, options: MP4MuxerOptions, audio: Bool = true) throws -> Report {
        var options = options
        options.frameRate = nil
        options.editList = nil
        options.negativeCompositionOffsets = true
        return try withPieces(audio: audio) { joiner in try joiner.writeMP4(output: output, options: options, audio: audio) }
    }

    /// Writes the pieces joined as an Annex-B byte stream (every piece's parameter sets in band,
    /// an end of sequence NAL unit between pieces); no timing, no audio.
    public func writeAnnexB<Output: ByteSink & AnyObject>(output: Output,
                                                          maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws -> Report {
        try withPieces(audio: false) { joiner in try joiner.writeAnnexB(output: output, maxAccessUnitSize: maxAccessUnitSize) }
    }

    /// Writes the pieces joined as one MPEG-TS program, their AAC audio as ADTS when `audio`
    /// (``NALUMedia/Concatenator/writeTransportStream(output:options:audio:)``).
    public func writeTransportStream<Output: ByteSink>(output: Output, options: TransportStreamMuxerOptions, audio: Bool = true) throws -> Report {
        try withPieces(audio: audio) { joiner in try joiner.writeTransportStream(output: output, options: options, audio: audio) }
    }

    /// Cuts every piece into a temporary MP4, joins them with `join`, and removes them.
    private func withPieces(audio: Bool, join: (Concatenator) throws -> ConcatReport) throws -> Report {
        let temporary = TemporaryPieces(in: temporaryDirectory)
        defer { temporary.remove() }
        var reports: [PieceSummary] = []
        reports.reserveCapacity(pieces.count)
        var paths: [String] = []
        for piece in pieces {
            guard let trimmer = trimmers[piece.path] else { continue }
            trimmer.rateControl = rateControl
            trimmer.preset = preset
            let path = try temporary.make()
            let file = try FileSink(path: path)
            do {
                reports.append(PieceSummary(try trimmer.writeMP4(start: piece.range.start ?? .zero, end: piece.range.end, output: file,
                                                                 options: MP4MuxerOptions(), audio: audio)))
            } catch let error as NALUError where error.field.hasPrefix("--") {
                file.discard()
                // The range is what was wrong (no picture in it, past the end): `PATH@RANGE`.
                throw NALUError(error.code, field: "\(piece.path)@\(piece.range)", detail: error.detail)
            } catch {
                file.discard()
                throw error
            }
            try file.commit()
            paths.append(path)
        }
        let joiner = try Concatenator(paths: paths)
        var report = try join(joiner)
        // Why the audio did not join, in the pieces' names rather than their temporary files'.
        if var reason = report.audioNotJoined {
            for (path, piece) in zip(paths, pieces) { reason = reason.replacing(path, with: "\(piece.path)@\(piece.range)") }
            report.audioNotJoined = reason
        }
        return Report(pieces: reports, join: report)
    }
}

/// The pieces' files: each made by `mkstemps` in the temporary directory (a name of its own,
/// `nalu-piece-XXXXXX.mp4`) and listed in ``NALUIO/TemporaryFileRegistry`` at once (while slots
/// last), so a signal that ends the process removes them as it removes a half-written output;
/// ``remove()`` removes them otherwise.
private final class TemporaryPieces {
    let directory: String
    private var created: [(path: String, slot: Int?)] = []

    init(in directory: String?) {
        var directory = directory ?? ""
        if directory.isEmpty, let tmp = getenv("TMPDIR") { directory = String(cString: tmp) }
        self.directory = directory.isEmpty ? "/tmp" : directory
    }

    /// A new empty file for a piece (``OutputTarget/createScratchFile(suffix:prefix:in:)``).
    func make() throws(NALUError) -> String {
        let file: (path: String, slot: Int?)
        do {
            file = try OutputTarget.createScratchFile(suffix: ".mp4", prefix: "nalu-piece-", in: directory)
        } catch {
            throw NALUError(.io, field: directory, detail: error.detail)
        }
        created.append(file)
        return file.path
    }

    func remove() {
        for file in created { OutputTarget.removeScratchFile(file) }
        created = []
    }
}
