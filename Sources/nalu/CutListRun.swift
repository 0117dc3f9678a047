import NALU
import NALUAVCodec
import NALUExport
import NALUIO
import NALUMedia
import NALUSmartCut

/// What `nalu trim --keep` and `nalu concat --smart` share: a ``NALUSmartCut/Composition``
/// written by a ``NALUSmartCut/CompositionWriter`` as MP4, Annex-B or MPEG-TS.
struct CutListRun {
    var composition: Composition
    /// The option that gave the ranges (`--keep`, or `concat` for per-input ranges), and an example of it.
    var option: String, example: String
    var to: OutputFraming, output: String, mp4: MP4OutputOptions, smart: SmartTrimOptions, noAudio: Bool, verbose: Bool
    var noOtherTracks = false

    func run() throws {
        CompositionWriter.keepLargeBuffersMapped()
        do {
            try CompositionWriter.validate(composition, format: to.format(mp4))
        } catch {
            let input = error.field == "standard input"
            throw CLIError.usage(input ? error.field : option, error.detail ?? "\(error.code)", hint: error.field == "layout" ? nil : input ? "give it as a file: \(example)" : example)
        }
        let codec = try CompositionWriter.codec(of: composition)
        if to == .mp4 { try mp4.check(codec: codec) }
        let writer: CompositionWriter
        do {
            writer = try CompositionWriter(composition, decoder: AVCodecDecoderFactory(), encoder: smart.encoder(for: codec))
        } catch let error as NALUError where error.field == "concat" {
            throw CLIError("concat", error.detail ?? "the inputs differ", status: ExitStatus.dataError)
        } catch let error as NALUError {
            throw usage(error)
        }
        writer.rateControl = smart.rateControl
        writer.preset = smart.preset
        let result: CutResult
        do {
            result = try ExportError.unwrapping {
                try writer.commit(to: FileSink(path: output), format: to.format(mp4), audio: !noAudio, caller: option).result
            }
        } catch let error as NALUError {
            throw usage(error)
        }
        try report(result, verbose: verbose, noOtherTracks: noOtherTracks)
    }

    /// A range's error as a usage error: concat names the input and its range, `--keep` the range.
    private func usage(_ error: NALUError) -> any Error {
        let detail = error.detail ?? "\(error.code)"
        if error.field.hasPrefix("--") { return CLIError.usage(error.field, detail, hint: example) }
        guard let clip = composition.clips.first(where: { $0.name == error.field }) else { return error }
        return CLIError.usage(option == "concat" ? error.field : "\(option) \(clip.range)", detail, hint: example)
    }
}

extension Trim {
    /// `--keep A-B,C-D`: the ranges of one input, checked (in order, none empty or overlapping)
    /// and joined frame-exactly.
    func runKeep(_ text: String, options: MediaSourceOptions) throws {
        let composition: Composition
        do {
            composition = try Composition(path: input, ranges: SmartCutRange.list(parsing: text), options: options)
        } catch {
            throw CLIError.usage("--keep \(error.field)", error.detail ?? "not a range",
                                 hint: "ranges START-END in order, e.g. --keep 0:10-0:20,1:05.5-1:30")
        }
        try CutListRun(composition: composition, option: "--keep", example: "nalu trim in.mp4 --keep 0:10-0:20,1:05.5-1:30 -o kept.mp4",
                       to: to, output: output, mp4: mp4, smart: smartOptions, noAudio: noAudio, verbose: verbose, noOtherTracks: otherTracks.noOtherTracks).run()
    }
}
