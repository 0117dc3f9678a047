#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// Why a job's files cannot be used as given (``PathPreflight``): found before a byte is read or
/// written, so that a job never overwrites what it reads and never writes one file twice.
public enum PathConflict: Error, Sendable, Equatable {
    /// An input that is missing, unreadable or a folder; `reason` is the system's (`strerror`)
    /// or "is a directory".
    case unreadableInput(path: String, reason: String)
    /// An output that is the main input file (same device and inode, whatever the path; `input`
    /// is `-` for standard input redirected from that file).
    case outputIsInput(output: String, input: String)
    /// An output that is one of the other inputs (a record, a later input of a join).
    case outputIsOtherInput(output: String, input: String)
    /// Two outputs naming one file (``OutputPathKey/collides(with:)``): `name` is the later
    /// output's name (an option such as `--extradata-out`), `earlierName` the first one's.
    case outputsCollide(path: String, name: String, earlierName: String)
}

/// The files a job reads and writes, checked before it starts: every input readable (and not a
/// folder unless allowed), no output naming an input file, no two outputs naming one file.
/// Outputs are then written through ``OutputTarget`` (exclusive temporary name, rename on commit).
public struct PathPreflight: Sendable {
    /// The main input's path (`-`: standard input), or `nil` when the job reads none.
    public var input: String?
    /// Other files read: a record, the later inputs of a join (`-` entries are skipped).
    public var otherInputs: [String]
    /// The outputs as (name, path): the name (an option such as `-o`) says which one collides.
    public var outputs: [(name: String, path: String)]
    /// Whether the main input may be a folder (a streaming package).
    public var inputMayBeFolder: Bool

    public init(input: String?, otherInputs: [String] = [], outputs: [(name: String, path: String)], inputMayBeFolder: Bool = false) {
        self.input = input
        self.otherInputs = otherInputs
        self.outputs = outputs
        self.inputMayBeFolder = inputMayBeFolder
    }

    /// Checks that the main input (when it is a path, not `-`) and every other input can be read.
    public func checkInputs() throws(PathConflict) {
        if let input, input != "-" { try Self.checkReadable(input, folderAllowed: inputMayBeFolder) }
        for path in otherInputs where path != "-" { try Self.checkReadable(path) }
    }

    /// Checks the outputs against the inputs and each other, in order: an output that is the main
    /// input (standard input's file included), one of the other inputs, or an earlier output.
    public func checkOutputs() throws(PathConflict) {
        var inputIdentity: FileIdentity?
        if let input { inputIdentity = input == "-" ? FileIdentity(descriptor: 0) : FileIdentity(path: input) }
        let otherIdentities = otherInputs.filter { $0 != "-" }.compactMap { path in
            FileIdentity(path: path).map { (path: path, identity: $0) }
        }
        var seen: [(name: String, key: OutputPathKey)] = []
        for output in outputs {
            let key = OutputPathKey(output.path)
            if let inputIdentity, inputIdentity.isRegularFile, let identity = key.identity, identity == inputIdentity {
                throw .outputIsInput(output: output.path, input: input ?? "-")
            }
            if let identity = key.identity, identity.isRegularFile,
               let other = otherIdentities.first(where: { $0.identity == identity }) {
                throw .outputIsOtherInput(output: output.path, input: other.path)
            }
            if let earlier = seen.first(where: { $0.key.collides(with: key) }) {
                throw .outputsCollide(path: output.path, name: output.name, earlierName: earlier.name)
            }
            seen.append((output.name, key))
        }
    }

    /// Throws ``PathConflict/unreadableInput(path:reason:)`` for a missing or unreadable path, or
    /// a folder unless `folderAllowed`.
    public static func checkReadable(_ path: String, folderAllowed: Bool = false) throws(PathConflict) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadableInput(path: path, reason: errnoText(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR, !folderAllowed { throw .unreadableInput(path: path, reason: "is a directory") }
        guard access(path, R_OK) == 0 else { throw .unreadableInput(path: path, reason: errnoText(errno)) }
    }

    /// The system's text for an `errno` value (`strerror`).
    public static func errnoText(_ number: Int32) -> String {
        guard let text = strerror(number) else { return "errno \(number)" }
        return String(cString: text)
    }
}

extension NALUError {
    /// Whether this is the I/O error of a write to a pipe whose reader went away (`EPIPE`, as
    /// ``FileSink`` reports it: `.io` with the system's text): the output's reader stopped, as
    /// `head` stops `cat`; a command-line tool ends quietly then, its temporary files removed.
    public var isBrokenPipe: Bool { code == .io && detail == PathPreflight.errnoText(EPIPE) }
}
