#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMedia

/// The files of a streaming package as ``PackageDoctor`` may see them: a URI from a playlist or
/// an MPD is resolved inside the package root only, and only a regular file there is ever opened.
///
/// A URI that leaves the root (`..`, an absolute path, a `file:` URL, a symlink whose target is
/// outside: `realpath(3)` resolves it and the result must start with the root), or that names a
/// FIFO, a device, a socket or a directory, is refused before any `open(2)`; the open itself is
/// `O_NOFOLLOW | O_NONBLOCK` and `fstat(2)` must find the same regular file, so a file swapped
/// after the check is not followed either.
struct PackageFiles {
    /// The root, resolved (`realpath`), without a trailing `/`.
    let root: String

    /// The root of the package `path` names: the folder itself, or a manifest's folder.
    /// - Throws: ``NALUError`` `.io` when the folder cannot be resolved.
    init(package path: String, isFolder: Bool) throws(NALUError) {
        let folder: String
        if isFolder {
            folder = path
        } else if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        guard let resolved = Self.realPath(folder) else {
            throw NALUError(.io, field: folder, detail: InputFile.errnoText())
        }
        root = resolved == "/" ? "" : resolved
    }

    /// What a URI names.
    enum Resolution: Equatable {
        /// A regular file inside the root: its resolved path and size.
        case file(path: String, size: Int64)
        /// Nothing there (or a symlink to nothing).
        case missing
        /// The path leaves the root (the reason: "an absolute path", "a symlink to /etc/passwd").
        case outside(String)
        /// Not a regular file (what it is: "a directory", "a FIFO").
        case notAFile(String)
        /// A URL with a scheme other than `file:`: not fetched.
        case remote
    }

    /// Resolves `uri` (its query and fragment dropped) against the folder `base` (a path inside
    /// the root, as a previous resolution returned it, or the root).
    func resolve(_ uri: String, base: String) -> Resolution {
        var path = Substring(uri)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        if let colon = path.firstIndex(of: ":"), path[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "." || $0 == "-" }),
           path[..<colon].count > 1 {
            // RFC 3986 3.1: a scheme. A file: URL names a path on this machine, outside the package.
            return path[..<colon].lowercased() == "file" ? .outside("a file: URL") : .remote
        }
        if path.hasPrefix("/") { return .outside("an absolute path") }
        if path.isEmpty || path.contains("\0") { return .missing }
        let joined = base + "/" + path
        // Lexically first: a "..", even one a later component would come back from, that climbs
        // above the root is refused without asking the file system.
        if path.contains("..") {
            var depth = 0
            for component in joined.dropFirst(root.count).split(separator: "/") {
                if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
                if depth < 0 { return .outside("\"..\" leaves the package folder") }
            }
        }
        var info = stat()
        guard lstat(joined, &info) == 0 else { return .missing }
        guard let resolved = Self.realPath(joined) else { return .missing }
        guard resolved.hasPrefix(root + "/") else {
            return .outside((info.st_mode & S_IFMT) == S_IFLNK ? "a symlink to \(resolved)" : "it resolves to \(resolved)")
        }
        guard stat(resolved, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(path: resolved, size: Int64(info.st_size))
        case S_IFDIR: return .notAFile("a directory")
        case S_IFIFO: return .notAFile("a FIFO")
        case S_IFCHR, S_IFBLK: return .notAFile("a device")
        case S_IFSOCK: return .notAFile("a socket")
        default: return .notAFile("not a regular file")
        }
    }

    /// The folder of a resolved file, against which the URIs in it resolve.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// A regular file opened `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat`, for readers
    /// that open a path themselves: ``descriptorPath`` (`/dev/fd/N`) reopens this very file.
    final class OpenFile {
        let descriptor: Int32
        /// The file's size when it was opened.
        let size: Int64

        /// - Throws: ``NALUError`` `.io` naming `path`: it cannot be opened, or is no regular file.
        init(_ path: String) throws(NALUError) {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw NALUError(.io, field: path, detail: InputFile.errnoText()) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let text = InputFile.errnoText()
                close(descriptor)
                throw NALUError(.io, field: path, detail: text)
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                throw NALUError(.io, field: path, detail: "not a regular file")
            }
            self.descriptor = descriptor
            size = Int64(info.st_size)
        }

        deinit { close(descriptor) }

        var descriptorPath: String { "/dev/fd/\(descriptor)" }
    }

    /// Reads `length` bytes at `offset` of the regular file `path` (a resolved path), at most
    /// `limit`: opened `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in does not block), refused
    /// unless `fstat` finds a regular file, read with `pread` up to what is there.
    /// - Throws: ``NALUError`` `.io` (cannot open, not a regular file), `.tooLarge` (over
    ///   `limit`), `.truncated` (the range runs past the end of the file).
    static func read(_ path: String, offset: Int64 = 0, length: Int64? = nil, limit: Int64) throws(NALUError) -> [UInt8] {
        let file = try OpenFile(path)
        let size = file.size
        let count = length ?? max(0, size - offset)
        guard offset >= 0, count >= 0, let end = CheckedNumber.sum(offset, count), end <= size else {
            throw NALUError(.truncated, field: path, detail: "bytes \(offset) to \(offset) + \(count) run past the end of the file (\(size) bytes)")
        }
        guard count <= limit else { throw NALUError(.tooLarge, field: path, detail: "\(count) bytes; at most \(limit) are read") }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { raw in
                // Through `file`, which stays open (and alive) for every read.
                pread(file.descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + Int64(done)))
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw NALUError(.io, field: path, detail: InputFile.errnoText()) }
            if got == 0 { break }
            done += got
        }
        // A file that shrank since fstat: what is there.
        bytes.removeSubrange(done...)
        withExtendedLifetime(file) {}
        return bytes
    }
}
