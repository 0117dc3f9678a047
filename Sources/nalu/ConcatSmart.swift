import ArgumentParser
import NALU
import NALUIO
import NALUMedia
import NALUSmartCut

/// One `nalu concat` input: `IN`, or `IN@START-END` with either side optional. A file that exists
/// under the whole name wins (a path may hold `@`); otherwise a trailing `@…` that parses as a
/// range is one (``NALUSmartCut/SmartCutRange/init(parsing:)``).
struct ConcatPiece {
    private(set) var path: String
    private(set) var range: SmartCutRange?
    /// Why the text after the last `@` is no range, when the text before it names a file and the
    /// whole argument does not (`c.mp4@0-1e300`): a usage error, not a missing file (issue 40 item 22).
    private(set) var rangeError: NALUError?

    init(_ argument: String) {
        path = argument
        range = nil
        rangeError = nil
        guard argument != "-", FileIdentity(path: argument) == nil, let at = argument.lastIndex(of: "@"), at != argument.startIndex else { return }
        let prefix = String(argument[..<at])
        do {
            range = try SmartCutRange(parsing: String(argument[argument.index(after: at)...]))
            path = prefix
        } catch {
            if FileIdentity(path: prefix) != nil { rangeError = error }
        }
    }

    /// The usage error for ``rangeError``, naming the argument.
    func usageError(_ argument: String) -> CLIError? {
        rangeError.map { CLIError.usage(argument, "not a range: \($0.detail ?? "\($0.code)")", hint: "IN@START-END, e.g. a.mp4@5-12.5") }
    }
}

extension Concat {
    /// The inputs' paths, their ranges taken off.
    var inputPaths: [String] { inputs.map { ConcatPiece($0).path } }

    /// `--smart`: every input's range (the whole of a bare input) cut frame-exactly and joined
    /// (``NALUSmartCut/Composition``).
    func runSmart() throws {
        let options = MediaSourceOptions(codec: codec?.codec, pid: pid?.value)
        var composition = Composition()
        for argument in inputs {
            let piece = ConcatPiece(argument)
            if let start = piece.range?.start, let end = piece.range?.end, end <= start {
                throw CLIError.usage(argument, "the range is empty: it ends at or before its start", hint: "IN@START-END, e.g. a.mp4@5-12.5")
            }
            composition.append(piece.path, range: piece.range ?? .whole, options: options)
        }
        try CutListRun(composition: composition, option: "concat", to: to, output: output, mp4: mp4, smart: smartOptions, noAudio: noAudio,
                       verbose: verbose, example: "nalu concat --smart a.mp4@5- b.mp4@-10 -o joined.mp4").run()
    }
}
