import NALU
import NALUMedia
import NALUSmartCut

extension Concat {
    /// The inputs' paths, their ranges (`IN@START-END`, ``NALUSmartCut/Composition/Clip/init(argument:options:)``) taken off.
    var inputPaths: [String] { inputs.map { (try? Composition.Clip(argument: $0))?.path ?? $0 } }

    /// Refuses a range that is none (`c.mp4@0-1e300`, issue 40 item 22), and any range without `--smart`.
    func checkRanges() throws {
        for input in inputs {
            do {
                if try Composition.Clip(argument: input).range == .whole || smartOptions.smart { continue }
            } catch {
                if smartOptions.smart { throw CLIError.usage(input, "not a range: \(error.detail ?? "\(error.code)")", hint: "IN@START-END, e.g. a.mp4@5-12.5") }
            }
            throw CLIError.usage(input, "a range (IN@START-END) goes with --smart", hint: "nalu concat --smart a.mp4@5- b.mp4@-10 -o joined.mp4")
        }
    }

    /// `--smart`: every input's range (the whole of a bare input) cut frame-exactly and joined
    /// (``NALUSmartCut/Composition``).
    func runSmart() throws {
        let composition: Composition
        do {
            composition = try Composition(arguments: inputs, options: MediaSourceOptions(codec: codec?.codec, pid: pid?.value))
        } catch {
            throw CLIError.usage(error.field, error.detail ?? "not a range", hint: "IN@START-END, e.g. a.mp4@5-12.5")
        }
        try CutListRun(composition: composition, option: "concat", example: "nalu concat --smart a.mp4@5- b.mp4@-10 -o joined.mp4",
                       to: to, output: output, mp4: mp4, smart: smartOptions, noAudio: noAudio, verbose: verbose, noOtherTracks: otherTracks.noOtherTracks).run()
    }
}
