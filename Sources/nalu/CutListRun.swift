#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Logging
import NALU
import NALUAVCodec
import NALUEncoder
import NALUIO
import NALUMP4
import NALUExport
import NALUMedia
import NALUSmartCut
import NALUTS
import NALUX264
import NALUX265

/// What `nalu trim --keep` and `nalu concat --smart` share: pieces cut frame-exactly by the smart
/// trimmer and joined (``SmartCutList``), written as MP4, Annex-B or MPEG-TS.
struct CutListRun {
    var pieces: [SmartCutList.Piece]
    /// The option that gave the ranges (`--keep`, or `concat` for per-input ranges).
    var option: String
    var to: OutputFraming
    var output: String
    var mp4: MP4OutputOptions
    var smart: SmartTrimOptions
    var noAudio: Bool
    var verbose: Bool
    var example: String

    func run() throws {
        #if canImport(Glibc)
        // glibc raises its mmap threshold whenever a large block is freed; from then on the
        // decoder's and encoder's buffers of every piece come from the heap and leave it
        // fragmented, ~170 KB of resident memory more per range. A fixed threshold keeps them
        // mapped and unmapped with their piece (issue 40 item 16).
        fixMallocMapThreshold(128 * 1024)
        #endif
        guard to == .mp4 || to == .annexb || to.isTransportStream else {
            throw CLIError.usage(option, "writes MP4, Annex-B and MPEG-TS", hint: example)
        }
        guard to != .mp4 || mp4.layout != .fragmented else { throw CLIError.usage(option, "does not write fragmented MP4") }
        guard let first = pieces.first else { throw CLIError.usage(option, "no range to keep", hint: example) }
        if pieces.contains(where: { $0.path == "-" }) {
            throw CLIError.usage("standard input", "each input is read more than once (index, cut, join)", hint: "give it as a file: \(example)")
        }
        var logger = Logger(label: "nalu.cutlist")
        logger.logLevel = .error
        let probe = try MediaSource(path: first.path, options: first.options)
        if to == .mp4 { try mp4.check(codec: probe.codec) }
        let encoder: any EncoderBackendFactory = probe.codec == .h264 ? X264BackendFactory(logger: logger) : X265BackendFactory(logger: logger)
        let ranges = Dictionary(pieces.map { ("\($0.path)@\($0.range)", $0.range.description) }, uniquingKeysWith: { a, _ in a })
        func usage(_ error: NALUError) -> any Error {
            let detail = error.detail ?? "\(error.code)"
            if error.field.hasPrefix("--") { return CLIError.usage(error.field, detail, hint: example) }
            guard let range = ranges[error.field] else { return error }
            // concat names the input and its range; --keep the range.
            return CLIError.usage(option == "concat" ? error.field : "\(option) \(range)", detail, hint: example)
        }
        let list: SmartCutList
        do {
            list = try SmartCutList(pieces: pieces, decoder: AVCodecDecoderFactory(), encoder: encoder)
        } catch let error as NALUError where error.field == "concat" {
            throw CLIError("concat", error.detail ?? "the inputs differ", status: ExitStatus.dataError)
        } catch let error as NALUError {
            throw usage(error)
        }
        list.rateControl = smart.rateControl
        list.preset = smart.preset
        let file = try FileSink(path: output)
        let report: SmartCutList.Report
        do {
            switch to {
            case .mp4:
                var options = mp4.muxerOptions(frameRate: nil)
                options.metadata = try outputMetadata(from: probe, output: output)
                report = try list.writeMP4(output: file, options: options, audio: !noAudio)
            case .annexb:
                report = try list.writeAnnexB(output: file, maxAccessUnitSize: mp4.maxAccessUnitSize)
            default:
                var options = TransportStreamMuxerOptions(frameRate: nil)
                options.maxAccessUnitSize = mp4.maxAccessUnitSize
                options.writer.timestampedPackets = to == .m2ts
                report = try list.writeTransportStream(output: file, options: options, audio: !noAudio)
            }
        } catch let error as NALUError {
            throw usage(error)
        }
        try file.commit()
        for note in report.join.sink?.notes ?? [] { StandardError.write("nalu: note: \(note)\n") }
        // Audio the inputs have that is not in the output: exit status 2 (nothing lost silently).
        let paths = Array(Set(pieces.map(\.path))).sorted()
        let withAudio = paths.filter {
            guard let source = list.source(of: $0) else { return false }
            return source.otherTracks.contains { $0.handler == "soun" } || (source.transportStream?.otherStreams.contains(where: \.isAudio) ?? false)
        }
        var lost: NotCarried?
        if !noAudio, report.join.audioJoined == nil, !withAudio.isEmpty {
            let why = to == .annexb ? "an elementary stream holds one video track" : report.join.audioNotJoined ?? "the pieces' audio does not join"
            lost = NotCarried(input: withAudio.joined(separator: ", "), tracks: ["the audio"], why: "it is not joined (\(why))")
        } else if !noAudio, to != .annexb {
            // Every audio track or stream of each input is one of the joined ones.
            let most = paths.compactMap { list.source(of: $0) }.map { source in
                max(source.otherTracks.filter { $0.handler == "soun" }.count, source.transportStream?.otherStreams.filter(\.isAudio).count ?? 0)
            }.max() ?? 0
            if report.join.audioTracksJoined < most {
                lost = NotCarried(input: withAudio.joined(separator: ", "), tracks: ["\(most - report.join.audioTracksJoined) of \(most) audio tracks"],
                                  why: "the pieces carry AAC, AC-3 and MPEG audio")
            }
        }
        // Pieces at another rate than the output's are retimed (elementary and MPEG-TS output).
        if let rate = report.join.outputFrameRate {
            for position in report.join.inputsAtAnotherRate where position < pieces.count {
                let own = report.join.frameRates[position].map { " is \(rateText($0)) fps;" } ?? ""
                StandardError.write("nalu: warning: \(pieces[position].path)@\(pieces[position].range)\(own) the output is timed at \(rateText(rate)) fps\n")
            }
        }
        // Other video tracks are named; subtitle, timecode and metadata tracks not joined, and a
        // transport stream's streams other than audio, are a loss: exit status 2.
        var others: [String] = []
        for path in paths {
            guard let source = list.source(of: path) else { continue }
            let videos = source.otherTracks.filter { $0.handler == "vide" }
            if !videos.isEmpty {
                StandardError.write("nalu: note: \(path): \(videos.map(\.description).joined(separator: ", ")) not carried; the output has one video track\n")
            }
            if report.join.tracksJoined.isEmpty {
                others += source.otherTracks.filter { $0.handler != "soun" && $0.handler != "vide" }.map { "\(path) \($0.description)" }
            }
            // A transport stream's audio streams are all joined, or the checks above name
            // what is not; its other streams (private data, …) are not carried.
            if let streams = source.transportStream?.otherStreams {
                others += streams.filter { !$0.isAudio }.map { "\(path) \($0.description)" }
            }
        }
        if !others.isEmpty {
            let why = report.join.tracksNotJoined.map { "they are not joined (\($0))" } ?? "\(option) joins the video and one audio track"
            if lost == nil { lost = NotCarried(input: paths.joined(separator: ", "), tracks: [], why: why) }
            lost?.others = others
            lost?.otherWhy = why
        }
        if verbose {
            let parts = zip(pieces, report.pieces).map { piece, cut in
                "\(piece.path)@\(piece.range): \(cut.pictures) pictures (\(cut.headPictures) re-encoded before, "
                    + "\(cut.copiedAccessUnits) copied, \(cut.tailPictures) re-encoded after)"
            }
            var line = "nalu: kept " + parts.joined(separator: " + ") + "; \(report.pictures) pictures"
            if let summary = report.join.sink?.mp4 {
                line += " → MP4 \(summary.writer.samples) samples, \(summary.sampleDescriptions) sample entries"
            }
            if let audio = report.join.audioJoined { line += ", \(audio) audio samples" }
            StandardError.write(line + "\n")
        }
        try lost?.fail()
    }
}

private func rateText(_ rate: Rational) -> String {
    rate.denominator == 1 ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator)"
}

extension Trim {
    /// `--keep A-B,C-D`: the ranges of one input, checked (in order, none empty or overlapping)
    /// and joined frame-exactly.
    func runKeep(_ text: String, options: MediaSourceOptions) throws {
        let ranges: [SmartCutRange]
        do {
            ranges = try SmartCutRange.list(parsing: text)
        } catch {
            throw CLIError.usage("--keep \(error.field)", error.detail ?? "not a range",
                                 hint: "ranges START-END in order, e.g. --keep 0:10-0:20,1:05.5-1:30")
        }
        try CutListRun(pieces: ranges.map { SmartCutList.Piece(path: input, range: $0, options: options) }, option: "--keep",
                       to: to, output: output, mp4: mp4, smart: smartOptions, noAudio: noAudio, verbose: verbose,
                       example: "nalu trim in.mp4 --keep 0:10-0:20,1:05.5-1:30 -o kept.mp4").run()
    }
}

#if canImport(Glibc)
/// glibc's `mallopt(M_MMAP_THRESHOLD, bytes)` (`<malloc.h>`, which Swift's Glibc module does not
/// bring): blocks of at least `bytes` are always mapped on their own, and the threshold no longer
/// moves. Looked up at run time; nothing happens on a C library without it.
private func fixMallocMapThreshold(_ bytes: Int32) {
    typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
    /// `M_MMAP_THRESHOLD` in glibc's `<malloc.h>`.
    let mapThreshold: Int32 = -3
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: MallocOption.self)(mapThreshold, bytes)
}
#endif
