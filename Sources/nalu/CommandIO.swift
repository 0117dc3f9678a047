#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALUIO

/// What a subcommand reads and writes, checked before it reads a byte (``Preflight``).
protocol CommandIO {
    /// The input path as given (`nil`: none given).
    var inputArgument: String? { get }
    /// The input path as given; `nil` or `"-"` reads standard input.
    var inputIsOptional: Bool { get }
    /// The outputs as (option name, resolved path), `"-"` for standard output.
    var outputs: [(option: String, path: String)] { get }
    /// Whether the main output (the first) is binary (refused on a terminal).
    var writesBinary: Bool { get }
    /// A command line to show when neither an input nor a pipe is given.
    var example: String { get }
    /// Checks that need no input (framing from the output's name).
    func checkOptions() throws
    /// Other files read (an `--extradata` record).
    var otherInputs: [String] { get }
    /// Whether the input may be a folder (`nalu doctor` on a streaming package).
    var inputMayBeFolder: Bool { get }
}

extension CommandIO {
    var inputIsOptional: Bool { true }
    func checkOptions() throws {}
    var otherInputs: [String] { [] }
    var inputMayBeFolder: Bool { false }
}

/// The input path a command reads: the argument, or `"-"` (standard input) without one.
func resolvedInputPath(_ argument: String?) -> String { argument ?? "-" }

/// Whether a descriptor is a terminal.
func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

/// Checks a command's inputs and outputs before anything is read or written (the file checks
/// are the library's ``NALUIO/PathPreflight``):
/// - no input argument with standard input a terminal: a usage error with an example;
/// - a missing or unreadable input: exit 66;
/// - binary output to a terminal: a usage error with a hint, as gzip does;
/// - an output that is the input (same device and inode, whatever the path), or two outputs
///   naming the same file: refused.
enum Preflight {
    static func check(_ command: any CommandIO) throws {
        if let empty = command.outputs.first(where: { $0.path.isEmpty }) {
            throw CLIError.usage(empty.option, "the output name is empty",
                                 hint: "name a file, or give - for standard output: \(command.example)")
        }
        try command.checkOptions()
        let input = resolvedInputPath(command.inputArgument)
        Failure.inputSubject = input
        if command.inputArgument == nil, command.inputIsOptional, isTerminal(0) {
            throw CLIError.usage(nil, "no input given and standard input is a terminal",
                                 hint: "give an input file, or pipe one in: \(command.example)")
        }
        let readsInput = command.inputArgument != nil || command.inputIsOptional
        let paths = PathPreflight(input: readsInput ? input : nil, otherInputs: command.otherInputs,
                                  outputs: command.outputs.map { (name: $0.option, path: $0.path) }, inputMayBeFolder: command.inputMayBeFolder)
        do {
            try paths.checkInputs()
            if let first = command.outputs.first, OutputTarget.standardOutputNames.contains(first.path), command.writesBinary, isTerminal(1) {
                throw CLIError.usage("standard output", "refusing to write binary video to a terminal",
                                     hint: "redirect it or give -o FILE: \(command.example)")
            }
            try paths.checkOutputs()
        } catch let conflict as PathConflict {
            throw CLIError(conflict)
        }
    }
}

extension CLIError {
    /// The command line's form of a ``NALUIO/PathConflict``: 66 for an input, 73 for an output
    /// that is an input, a usage error for two outputs naming one file.
    init(_ conflict: PathConflict) {
        switch conflict {
        case .unreadableInput(let path, let reason):
            self.init(path, reason, status: ExitStatus.noInput)
        case .outputIsInput(let output, let input):
            self.init(output, "is the input file\(input == "-" ? " (standard input)" : " (\(input))"); refusing to overwrite it",
                      hint: "write to another file, then rename it", status: ExitStatus.cannotCreate)
        case .outputIsOtherInput(let output, let input):
            self.init(output, "is an input file (\(input)); refusing to overwrite it",
                      hint: "write to another file, then rename it", status: ExitStatus.cannotCreate)
        case .outputsCollide(let path, let name, let earlierName):
            self = .usage(path, "\(name) names the same file as \(earlierName)", hint: "give each output its own file")
        }
    }
}

/// What an output path names (NALUIO), under the name the commands use.
typealias OutputKey = OutputPathKey

// MARK: - The subcommands' inputs and outputs

extension InputOptions {
    /// The input path: the argument, or `"-"` (standard input).
    var input: String { resolvedInputPath(inputArgument) }
}

/// A command that reads ``InputOptions`` (and its `--extradata` record) and prints to standard
/// output: info, nals, keyframes, doctor; extradata writes `-o`.
protocol InputOptionsCommand: CommandIO {
    var inputOptions: InputOptions { get }
}

extension InputOptionsCommand {
    var inputArgument: String? { inputOptions.inputArgument }
    var otherInputs: [String] { inputOptions.extradata.map { [$0] } ?? [] }
    var outputs: [(option: String, path: String)] { [("standard output", "-")] }
    var writesBinary: Bool { false }
}

extension Info: InputOptionsCommand { var example: String { "nalu info clip.h264, or cat clip.mp4 | nalu info" } }
extension Nals: InputOptionsCommand { var example: String { "nalu nals clip.h264, or cat clip.h264 | nalu nals" } }
extension Keyframes: InputOptionsCommand { var example: String { "nalu keyframes clip.h264, or cat clip.h264 | nalu keyframes" } }

extension Extradata: InputOptionsCommand {
    var outputs: [(option: String, path: String)] { [("-o", output)] }
    var writesBinary: Bool { true }
    var example: String { "nalu extradata clip.h264 -o clip.avcC" }
}

extension Convert: CommandIO {
    /// The input path: the argument, or `"-"` (standard input).
    var input: String { resolvedInputPath(inputArgument) }
    /// The output path: `-o`, or `"-"` (standard output).
    var output: String { outputArgument ?? "-" }

    var outputs: [(option: String, path: String)] {
        [("-o", output)] + (extradataOut.map { [("--extradata-out", $0)] } ?? [])
    }
    var otherInputs: [String] { extradata.map { [$0] } ?? [] }
    var writesBinary: Bool { true }
    var example: String { "nalu convert clip.mp4 --to annexb -o clip.h264, or cat clip.mp4 | nalu convert --to annexb | ffplay -" }
}

extension Convert {
    /// The output framing: --to, else from the output's extension.
    var to: OutputFraming { OutputFraming(chosen: toOption, outputPath: outputArgument) }

    /// Refuses an output whose framing neither --to nor its name says.
    func checkOptions() throws {
        try Naming.checkOutputFraming(toOption, output: outputArgument, example: "cat clip.mp4 | nalu convert --to annexb | ffplay -")
    }
}
