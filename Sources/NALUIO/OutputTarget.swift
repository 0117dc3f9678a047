#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// Where a run's output goes, with the semantics of `cp`, the shell and ffmpeg:
///
/// - a regular file or a new path: written under a unique temporary name in the same folder
///   (created with `O_CREAT|O_EXCL|O_NOFOLLOW` and a random suffix) and renamed over the path by
///   ``commit()``; without a commit (an error, a signal) the temporary file is removed, so the
///   path holds either its old content or the complete new one;
/// - a character device, FIFO or socket: opened and written directly, never replaced;
/// - `"-"`: standard output;
/// - a symbolic link: written through to its target (resolved the same way); the link stays.
///
/// With `replacing` (files a command names itself in a folder: `package`), whatever is at the
/// path — a link, a FIFO, a device — is replaced by the rename, never opened or written through.
///
/// Every temporary name is listed in ``TemporaryFileRegistry`` until it is renamed or removed, so
/// a signal handler can remove it too.
public final class OutputTarget {
    /// How the path is written.
    public enum Kind: Sendable, Equatable {
        /// Standard output (`"-"`).
        case standardOutput
        /// A device, FIFO or socket, written in place.
        case special
        /// A regular file, replaced by a rename when complete.
        case file
    }

    /// The path as given.
    public let path: String
    /// How it is written.
    public let kind: Kind
    /// The descriptor to write to.
    public let descriptor: Int32
    /// The file the rename replaces (the path, or a symbolic link's target).
    public let finalPath: String
    private let temporaryPath: String?
    private var registration: Int?
    private var finished = false

    /// Opens `path` for writing as described above.
    ///
    /// `replacing`: whatever is at `path` (a symbolic link, a FIFO, a device) is replaced by the
    /// rename, never written to or through: for files a command names itself inside a folder
    /// (`package`'s segments and playlists), where a planted link or FIFO must not redirect or
    /// stall the write.
    ///
    /// - Throws: ``NALUError/Code/cannotCreate`` naming `path` when the folder is missing or not
    ///   writable, or the path is a directory.
    public init(path: String, replacing: Bool = false) throws(NALUError) {
        self.path = path
        if replacing {
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                throw NALUError(.cannotCreate, field: path, detail: "is a directory")
            }
            kind = .file
            finalPath = path
            var previousMask = OutputTarget.blockStoppingSignals()
            defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
            let (fd, temporary) = try OutputTarget.createTemporary(beside: path, reportedAs: path)
            descriptor = fd
            temporaryPath = temporary
            registration = TemporaryFileRegistry.register(temporary)
            return
        }
        if OutputTarget.standardOutputNames.contains(path) {
            kind = .standardOutput
            descriptor = 1
            finalPath = path
            temporaryPath = nil
            return
        }
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists {
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                throw NALUError(.cannotCreate, field: path, detail: "is a directory")
            }
            if type != S_IFREG {
                // A device, FIFO or socket: write to it, never replace it.
                let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
                guard fd >= 0 else { throw NALUError(.cannotCreate, field: path, detail: FileSource.errnoText()) }
                kind = .special
                descriptor = fd
                finalPath = path
                temporaryPath = nil
                return
            }
        }
        // The file the rename replaces: an existing file's real path, else where the (possibly
        // dangling) links lead.
        let resolved = (exists ? OutputTarget.realPath(path) : nil) ?? OutputTarget.resolveLinks(path)
        finalPath = resolved
        kind = .file
        // A stopping signal between creating the temporary file and listing it would leave the
        // file behind: SIGINT, SIGTERM, SIGHUP and SIGPIPE wait (pending) until it is listed.
        var previousMask = OutputTarget.blockStoppingSignals()
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        let (fd, temporary) = try OutputTarget.createTemporary(beside: resolved, reportedAs: path)
        if exists {
            // Replacing a file: keep its permission bits, as writing it in place would.
            _ = fchmod(fd, info.st_mode & 0o7777)
        }
        descriptor = fd
        temporaryPath = temporary
        registration = TemporaryFileRegistry.register(temporary)
    }

    deinit { discard() }

    /// Completes the output: closes it and, for a file, renames the temporary file over the path.
    public func commit() throws(NALUError) {
        guard !finished else { return }
        finished = true
        guard let temporaryPath else {
            if kind == .special, close(descriptor) != 0 {
                throw NALUError(.io, field: path, detail: FileSource.errnoText())
            }
            return
        }
        defer { unregister() }
        guard close(descriptor) == 0 else {
            let text = FileSource.errnoText()
            unlink(temporaryPath)
            throw NALUError(.io, field: path, detail: text)
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            let text = FileSource.errnoText()
            unlink(temporaryPath)
            throw NALUError(.io, field: path, detail: text)
        }
    }

    /// Abandons the output: a temporary file is closed and removed; the path keeps what it held.
    public func discard() {
        guard !finished else { return }
        finished = true
        switch kind {
        case .standardOutput: return
        case .special: close(descriptor)
        case .file:
            close(descriptor)
            if let temporaryPath { unlink(temporaryPath) }
            unregister()
        }
    }

    private func unregister() {
        if let registration { TemporaryFileRegistry.unregister(registration) }
        registration = nil
    }

    /// Names of standard output: `-`, and the device names for descriptor 1 (written to the
    /// descriptor, so a shell's `>>` keeps appending).
    public static let standardOutputNames: Set<String> = ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]

    /// The canonical path of an existing file (`realpath`), or `nil`.
    static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// `path` with symbolic links followed (up to 40, as the kernel does); a dangling link gives
    /// the path it points to, which is then created.
    public static func resolveLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &target, target.count - 1)
            guard count > 0 else { return current }
            let text = String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("/") {
                current = text
            } else {
                current = directory(of: current) + "/" + text
            }
        }
        return current
    }

    /// The folder part of `path` (`"."` for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// Creates an empty scratch file with an unpredictable name (`prefix`, six random characters,
    /// `suffix`: `mkstemps(3)`) in `directory`, else `$TMPDIR`, else `/tmp`, listed in
    /// ``TemporaryFileRegistry`` (signals held until it is), so a signal removes it. The caller
    /// writes it, then ``removeScratchFile(_:)``s it.
    /// - Returns: its path and registry slot.
    /// - Throws: ``NALUError/Code/cannotCreate`` when it cannot be created.
    public static func createScratchFile(suffix: String, prefix: String = "nalu-",
                                         in directory: String? = nil) throws(NALUError) -> (path: String, slot: Int?) {
        var folder = directory ?? ""
        if folder.isEmpty { folder = getenv("TMPDIR").map { String(cString: $0) } ?? "" }
        if folder.isEmpty { folder = "/tmp" }
        var template = Array((folder + "/" + prefix + "XXXXXX" + suffix).utf8CString)
        var previousMask = blockStoppingSignals()
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        let fd = mkstemps(&template, Int32(suffix.utf8.count))
        guard fd >= 0 else { throw NALUError(.cannotCreate, field: folder, detail: FileSource.errnoText()) }
        close(fd)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (path, TemporaryFileRegistry.register(path))
    }

    /// Removes a file made by ``createScratchFile(suffix:)`` and takes it off the registry.
    public static func removeScratchFile(_ file: (path: String, slot: Int?)) {
        unlink(file.path)
        if let slot = file.slot { TemporaryFileRegistry.unregister(slot) }
    }

    /// Blocks the signals that stop `nalu` (their handler removes the listed temporary files) for
    /// the calling thread; returns the mask to restore.
    private static func blockStoppingSignals() -> sigset_t {
        var block = sigset_t()
        var previous = sigset_t()
        sigemptyset(&block)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&block, number) }
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        return previous
    }

    /// Creates `.<name>.<random>.nalu-tmp` beside `path` with `O_CREAT|O_EXCL|O_NOFOLLOW`.
    private static func createTemporary(beside path: String, reportedAs shown: String) throws(NALUError) -> (Int32, String) {
        let folder = directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? "out"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<32 {
            let suffix = String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 36)
            let temporary = folder + "/." + name + "." + suffix + ".nalu-tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 { return (fd, temporary) }
            if errno == EEXIST { continue }
            throw NALUError(.cannotCreate, field: shown, detail: FileSource.errnoText())
        }
        throw NALUError(.cannotCreate, field: shown, detail: "no unique temporary name in \(folder)")
    }
}

/// The identity of a file (device and inode), to tell whether two paths or descriptors name the
/// same file.
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64
    /// Whether it is a regular file.
    public let isRegularFile: Bool

    /// The file at `path` (links followed), or `nil` if there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file open on `descriptor`, or `nil`.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
    }

    public static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
    }
}
