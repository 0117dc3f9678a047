#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What an output path names, to tell whether two outputs (or an output and an input) are one
/// file before anything is written: the file (device, inode) when it exists, else the resolved
/// folder and name; `-` and `/dev/stdout` are standard output. Symbolic links are followed as
/// ``OutputTarget`` follows them.
public struct OutputPathKey: Sendable {
    /// The file the path names now, when it exists (standard output: descriptor 1's).
    public let identity: FileIdentity?
    /// The folder resolved (`realpath`) and the name, for a file that does not exist yet.
    public let resolvedPath: String
    /// Whether the path names standard output.
    public let isStandardOutput: Bool

    /// The key of `path`.
    public init(_ path: String) {
        isStandardOutput = OutputTarget.standardOutputNames.contains(path)
        if isStandardOutput {
            identity = FileIdentity(descriptor: 1)
            resolvedPath = "-"
            return
        }
        let target = OutputTarget.resolveLinks(path)
        identity = FileIdentity(path: target)
        let folder = OutputTarget.directory(of: target)
        let name = target.split(separator: "/").last.map(String.init) ?? target
        if let real = realpath(folder, nil) {
            resolvedPath = String(cString: real) + "/" + name
            free(real)
        } else {
            resolvedPath = target
        }
    }

    /// Whether writing both would write one file twice (devices such as /dev/null may be shared).
    public func collides(with other: OutputPathKey) -> Bool {
        if isStandardOutput && other.isStandardOutput { return true }
        if let identity, let otherIdentity = other.identity {
            return identity == otherIdentity && identity.isRegularFile
        }
        return !isStandardOutput && !other.isStandardOutput && resolvedPath == other.resolvedPath
    }
}
