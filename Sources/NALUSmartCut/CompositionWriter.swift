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

/// Writes a ``Composition`` frame-exactly with no edit list needed (issue 34 items 3 and 4,
/// issue 39 item 4): the one code path of `nalu trim --keep`, `nalu concat --smart`,
/// ``SmartCutList`` and `NALUExport`'s `CompositionSession`.
///
/// Each clip is cut by a ``SmartTrimmer`` (the pictures from its start to the first copy point
/// and after the last whole GOP re-encoded with the source's settings, the GOPs between copied
/// bit for bit) into a temporary MP4 file, with its audio and other tracks cut to the same
/// range; the clips are then joined by ``NALUMedia/Concatenator`` as any MP4 inputs are (a
/// range with no picture fails with a ``NALU/NALUError`` whose field is the clip's
/// ``Composition/Clip/name``, `PATH@RANGE`):
/// - **Video**: each clip shows exactly the pictures presenting in its range and lasts exactly
///   their durations; the join lays the clips end to end on one timeline (``NALUMedia/ConcatTiming``:
///   each clip's first picture at the previous one's end, no gap, no overlap), an end of
///   sequence NAL unit between clips. The re-encoded pictures' parameter sets differ from the
///   copied ones', so MP4 output has a sample entry per change (or the sets in band with
///   `avc3`/`hev1`). The MP4's edit list is absent or the identity.
/// - **Audio** (MP4 and MPEG-TS output): each clip's audio is the input's audio of that range
///   (``NALUMedia/TrimAudioCut``); the join (``NALUMedia/ConcatAudio``) starts each clip's audio
///   where its video starts within half an audio frame, so the joined audio lasts as long as
///   the video within one frame and never drifts.
///
/// Clips whose video timescales differ keep their own times in MP4 and MPEG-TS output (on the
/// least common multiple of their timescales); in elementary output the join is timed at the
/// first clip's frame rate and ``NALUMedia/ConcatReport/inputsAtAnotherRate`` names the clips at
/// another rate.
///
/// Memory does not grow with the clips' length: a cut holds the pictures of one decoder's
/// reordering window and the encoder's lookahead (``SmartTrimmer``), and the clips are written
/// to temporary files (about the output's size in the temporary directory while the join runs),
/// removed afterwards, also on failure, cancellation or a signal (``NALUIO/TemporaryFileRegistry``).
///
/// ``isCancelled`` stops the work within an access unit or a re-encoded picture, with
/// `CancellationError` (nothing committed: the caller discards its output).
public final class CompositionWriter {
    /// What the cut of one clip did: the counts of its ``SmartTrimmer/Report``, kept without the
    /// plan's per-picture lists, so a composition of thousands of clips holds a few words per clip.
    public struct ClipSummary: Sendable, Hashable {
        /// Pictures the clip shows.
        public var pictures: Int
        /// Pictures re-encoded before and after the copied ones.
        public var headPictures: Int
        public var tailPictures: Int
        /// Access units copied unchanged.
        public var copiedAccessUnits: Int

        /// The counts of a clip's ``SmartTrimmer/Report``.
        public init(_ report: SmartTrimmer.Report) {
            pictures = report.plan.pictureCount
            headPictures = report.headPictures
            tailPictures = report.tailPictures
            copiedAccessUnits = report.copiedAccessUnits
        }
    }

    /// What a composition's write did.
    public struct Report: Sendable {
        /// Each clip's cut, in order.
        public var pieces: [ClipSummary]
        /// The join of the clips.
        public var join: ConcatReport

        /// Pictures shown in the output.
        public var pictures: Int { join.pictures.reduce(0, +) }
        /// Pictures re-encoded, over all clips.
        public var reencodedPictures: Int { pieces.reduce(0) { $0 + $1.headPictures + $1.tailPictures } }
        /// Access units copied unchanged, over all clips.
        public var copiedAccessUnits: Int { pieces.reduce(0) { $0 + $1.copiedAccessUnits } }
    }

    /// The clips written.
    public let composition: Composition
    /// The codec of every clip.
    public let codec: Codec
    /// The decoder of the pictures a cut re-encodes.
    public let decoder: any DecoderBackendFactory
    /// The encoder of the re-encoded pictures: one for ``codec``.
    public let encoder: any EncoderBackendFactory
    /// How the re-encoded pictures spend bits (``SmartTrimmer/rateControl``).
    public var rateControl: RateControl = .crf(12)
    /// x264/x265 preset of the re-encoded pictures (`nil`: the library's default).
    public var preset: String?
    /// Settings of short re-encodes (``SmartTrimmer/shortSegmentEncoding``; `nil`: the libraries' own).
    public var shortSegmentEncoding: ShortSegmentEncoding? = ShortSegmentEncoding()
    /// Where the clips are written before the join (`nil`: `$TMPDIR`, else `/tmp`).
    public var temporaryDirectory: String?
    /// Asked before each access unit, re-encoded picture and clip: `true` stops the write with
    /// `CancellationError`.
    public var isCancelled: (@Sendable () -> Bool)?
    /// Called for each picture a clip's cut writes (in clip order; the join copies them after).
    public var pictureWritten: (() -> Void)?
    /// One trimmer per distinct input (its index is read once for all its ranges).
    private var trimmers: [String: SmartTrimmer] = [:]

    /// Opens every distinct input of `composition` once (its index is shared by its clips).
    /// - Throws: what ``SmartTrimmer/init(path:options:frameRate:decoder:encoder:)`` throws;
    ///   ``NALU/NALUError`` `.missing` `range` for no clip; `.unsupported` with field `concat`
    ///   naming two inputs of different codecs.
    public init(_ composition: Composition, decoder: any DecoderBackendFactory, encoder: any EncoderBackendFactory) throws(NALUError) {
        guard let first = composition.clips.first else { throw NALUError(.missing, field: "range", detail: "no piece to keep") }
        var trimmers: [String: SmartTrimmer] = [:]
        var firstCodec: Codec?
        for clip in composition.clips where trimmers[clip.path] == nil {
            let trimmer = try SmartTrimmer(path: clip.path, options: clip.options, decoder: decoder, encoder: encoder)
            if let firstCodec, trimmer.source.codec != firstCodec {
                throw NALUError(.unsupported, field: "concat",
                                detail: "\(first.path) is \(Self.name(firstCodec)) and \(clip.path) is \(Self.name(trimmer.source.codec))")
            }
            firstCodec = firstCodec ?? trimmer.source.codec
            trimmers[clip.path] = trimmer
        }
        self.composition = composition
        self.trimmers = trimmers
        codec = firstCodec ?? .h264
        self.decoder = decoder
        self.encoder = encoder
    }

    /// The codec of the first clip's input, read from its start (to choose an encoder before
    /// ``init(_:decoder:encoder:)``).
    /// - Throws: ``NALU/NALUError``: `.missing` `range` for no clip, or opening the input's.
    public static func codec(of composition: Composition) throws(NALUError) -> Codec {
        guard let first = composition.clips.first else { throw NALUError(.missing, field: "range", detail: "no piece to keep") }
        return try MediaSource(path: first.path, options: first.options).codec
    }

    /// The input of `path` as first opened (``SmartTrimmer/source``).
    public func source(of path: String) -> MediaSource? { trimmers[path]?.source }

    /// The pictures the output will show: each clip's planned count (from the inputs' indexes).
    /// - Throws: ``NALU/NALUError`` from planning a clip (a range's fault names the clip, `PATH@RANGE`).
    public func plannedPictures() throws(NALUError) -> Int {
        var total = 0
        for clip in composition.clips {
            guard let trimmer = trimmers[clip.path] else { continue }
            do {
                total += try named(clip) { try trimmer.plan(start: clip.range.start ?? .zero, end: clip.range.end).smart.pictureCount }
            } catch {
                throw NALUError.converting(error, field: clip.name)
            }
        }
        return total
    }

    private static func name(_ codec: Codec) -> String { codec == .h264 ? "H.264" : "H.265" }

    /// Writes the clips joined as one MP4: `options` as ``NALUMedia/Concatenator/writeMP4(output:options:audio:)``
    /// takes them (its frame rate and edit list are set here: the clips keep their own times),
    /// with the clips' audio joined when `audio`.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error.
    public func writeMP4(output: FileSink, options: MP4MuxerOptions, audio: Bool = true) throws(SmartCutError) -> Report {
        try typed { try mp4(output: output, options: options, audio: audio) }
    }

    /// Runs `body`, its errors as ``SmartCutError``s; once ``isCancelled`` says stop, any error
    /// (a join stopped by it reports a `NALUError`) is ``SmartCutError/cancelled``.
    private func typed<T>(_ body: () throws -> T) throws(SmartCutError) -> T {
        do { return try body() } catch {
            if let isCancelled, isCancelled() { throw .cancelled }
            throw SmartCutError(error)
        }
    }

    private func mp4(output: FileSink, options: MP4MuxerOptions, audio: Bool) throws -> Report {
        var options = options
        options.frameRate = nil
        options.editList = nil
        options.negativeCompositionOffsets = true
        return try withPieces(audio: audio) { joiner in try joiner.writeMP4(output: output, options: options, audio: audio) }
    }

    /// Writes the clips joined as an Annex-B byte stream (every clip's parameter sets in band,
    /// an end of sequence NAL unit between clips); no timing, no audio.
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeAnnexB<Output: ByteSink & AnyObject>(output: Output,
                                                          maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes) throws(SmartCutError) -> Report {
        try typed { try withPieces(audio: false) { joiner in try joiner.writeAnnexB(output: output, maxAccessUnitSize: maxAccessUnitSize) } }
    }

    /// Writes the clips joined as one MPEG-TS program, their AAC audio as ADTS when `audio`
    /// (``NALUMedia/Concatenator/writeTransportStream(output:options:audio:)``).
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func writeTransportStream<Output: ByteSink>(output: Output, options: TransportStreamMuxerOptions,
                                                       audio: Bool = true) throws(SmartCutError) -> Report {
        try typed { try withPieces(audio: audio) { joiner in try joiner.writeTransportStream(output: output, options: options, audio: audio) } }
    }

    /// Writes the clips joined in `format` (MP4, Annex-B or MPEG-TS; length-prefixed output is
    /// refused with ``SmartCutError/stream(_:)`` ``NALU/NALUError`` `.unsupported`).
    /// - Throws: ``SmartCutError``: the stream's, the decoder's or the encoder's error, or
    ///   ``SmartCutError/cancelled``.
    public func write(output: FileSink, format: CutOutputFormat, audio: Bool = true) throws(SmartCutError) -> Report {
        switch format {
        case .mp4(let options): try writeMP4(output: output, options: options, audio: audio)
        case .annexB(let maxAccessUnitSize): try writeAnnexB(output: output, maxAccessUnitSize: maxAccessUnitSize)
        case .transportStream(let options): try writeTransportStream(output: output, options: options, audio: audio)
        case .lengthPrefixed: throw .stream(NALUError(.unsupported, field: "format", detail: "a composition writes MP4, Annex-B and MPEG-TS"))
        }
    }

    /// Runs `body`, naming `clip` in a ``NALU/NALUError`` about its range (a field `--start`…).
    private func named<T>(_ clip: Composition.Clip, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NALUError where error.field.hasPrefix("--") {
            // The range is what was wrong (no picture in it, past the end): `PATH@RANGE`.
            throw NALUError(error.code, field: clip.name, detail: error.detail)
        }
    }

    /// Cuts every clip into a temporary MP4, joins them with `join`, and removes them.
    private func withPieces(audio: Bool, join: (Concatenator) throws -> ConcatReport) throws -> Report {
        let temporary = TemporaryPieces(in: temporaryDirectory)
        defer { temporary.remove() }
        var reports: [ClipSummary] = []
        reports.reserveCapacity(composition.clips.count)
        var paths: [String] = []
        for clip in composition.clips {
            if let isCancelled, isCancelled() { throw CancellationError() }
            guard let trimmer = trimmers[clip.path] else { continue }
            trimmer.rateControl = rateControl
            trimmer.preset = preset
            trimmer.shortSegmentEncoding = shortSegmentEncoding
            trimmer.isCancelled = isCancelled
            trimmer.pictureWritten = pictureWritten
            let path = try temporary.make()
            let file = try FileSink(path: path)
            do {
                reports.append(ClipSummary(try named(clip) {
                    try SmartCutError.unwrapping { try trimmer.writeMP4(start: clip.range.start ?? .zero, end: clip.range.end, output: file, options: MP4MuxerOptions(), audio: audio) }
                }))
            } catch {
                file.discard()
                throw error
            }
            try file.commit()
            paths.append(path)
        }
        let joiner = try Concatenator(paths: paths)
        joiner.isCancelled = isCancelled
        var report = try join(joiner)
        // Why the audio did not join, in the clips' names rather than their temporary files'.
        if var reason = report.audioNotJoined {
            for (path, clip) in zip(paths, composition.clips) { reason = reason.replacing(path, with: clip.name) }
            report.audioNotJoined = reason
        }
        return Report(pieces: reports, join: report)
    }
}

/// The clips' files: each made by `mkstemps` in the temporary directory (a name of its own,
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

    /// A new empty file for a clip (``OutputTarget/createScratchFile(suffix:prefix:in:)``).
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

extension CompositionWriter {
    /// Fixes glibc's mmap threshold at 128 KiB for the rest of the process (`mallopt(M_MMAP_THRESHOLD)`):
    /// glibc raises the threshold whenever a large block is freed; from then on the decoder's
    /// and encoder's buffers of every clip come from the heap and leave it fragmented, ~170 KB of
    /// resident memory more per clip (issue 40 item 16). A fixed threshold keeps them mapped and
    /// unmapped with their clip. A process-wide setting, so the caller decides (the `nalu`
    /// command does for `trim --keep` and `concat --smart`); nothing happens without glibc.
    public static func keepLargeBuffersMapped() {
        #if canImport(Glibc)
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        /// `M_MMAP_THRESHOLD` in glibc's `<malloc.h>`, which Swift's Glibc module does not bring.
        let mapThreshold: Int32 = -3
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: MallocOption.self)(mapThreshold, 128 * 1024)
        #endif
    }
}

extension CompositionWriter {
    /// Refuses what a composition cannot write, before anything is opened: length-prefixed
    /// output (field `format`), fragmented MP4 (field `layout`: the clips' pieces are joined
    /// into one `moov`), and standard input as a clip (field `standard input`: each input is
    /// read more than once, to index, cut and join).
    public static func validate(_ composition: Composition, format: CutOutputFormat) throws(NALUError) {
        switch format {
        case .lengthPrefixed: throw NALUError(.unsupported, field: "format", detail: "writes MP4, Annex-B and MPEG-TS")
        case .mp4(let options) where options.layout == .fragmented:
            throw NALUError(.unsupported, field: "layout", detail: "does not write fragmented MP4")
        default: break
        }
        if composition.clips.contains(where: { $0.path == "-" }) {
            throw NALUError(.unsupported, field: "standard input", detail: "each input is read more than once (index, cut, join)")
        }
    }
}
