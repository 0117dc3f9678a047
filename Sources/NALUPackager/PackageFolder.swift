#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUMedia

/// The folder a package is written into, and the inputs none of its files may replace.
///
/// Every file of a package (segments, parts, init segments, playlists, the MPD, a single-file
/// track) is written whole under a temporary name created exclusively with `O_NOFOLLOW` beside
/// it and renamed over its name when complete (``NALUIO/OutputTarget/init(path:replacing:)``):
/// a symbolic link, FIFO or device planted at the name is replaced, never written through or
/// opened, and a reader of the folder never sees a partial file. A name that holds one of the
/// inputs (same device and inode) is refused, as every other command refuses an output that is
/// its input. Before the first file is written, the playlists of an older package are removed
/// (``removePlaylistsBeforeFirstWrite(renditions:)``).
final class PackageFolder {
    /// The folder.
    let path: String
    /// The inputs' paths and files (`"-"`: standard input's file, if it is one).
    private(set) var inputs: [(path: String, identity: FileIdentity)] = []

    /// - Parameter inputs: the input paths (`"-"`: standard input).
    init(path: String, inputs: [String] = []) {
        self.path = path
        for input in inputs {
            let identity = input == "-" ? FileIdentity(descriptor: 0) : FileIdentity(path: input)
            if let identity, identity.isRegularFile { self.inputs.append((input, identity)) }
        }
    }

    /// Adds an input by its open file (a live input).
    func protect(_ identity: FileIdentity?, as name: String) {
        if let identity, identity.isRegularFile { inputs.append((name, identity)) }
    }

    /// The full path of `name` in the folder.
    func file(_ name: String) -> String { path + "/" + name }

    /// Refuses `name` when the file there (not a link's target: a link is replaced) is an input.
    /// - Throws: ``NALUError/Code/cannotCreate`` naming the file and the input.
    func checkNotInput(_ name: String) throws {
        let full = file(name)
        var info = stat()
        guard !inputs.isEmpty, lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let identity = FileIdentity(path: full),
              let input = inputs.first(where: { $0.identity == identity }) else { return }
        throw NALUError(.cannotCreate, field: full,
                        detail: "is the input file\(input.path == "-" ? " (standard input)" : " (\(input.path))"); refusing to overwrite it")
    }

    /// Renditions whose playlists go before the first file is written, if not done yet.
    private var playlistsToRemove: Int?

    /// Opens `name` for writing, to be committed (renamed into place) when complete.
    func open(_ name: String) throws -> FileSink {
        try checkNotInput(name)
        if let renditions = playlistsToRemove {
            playlistsToRemove = nil
            try removePlaylists(renditions: renditions)
        }
        return try FileSink(path: file(name), replacing: true)
    }

    /// Writes `parts` one after the other to `name`; returns the bytes written.
    @discardableResult
    func write(_ parts: [[UInt8]], to name: String) throws -> Int64 {
        let sink = try open(name)
        for part in parts { try sink.write(part) }
        let count = sink.bytesWritten
        try sink.commit()
        return count
    }

    /// Writes `text` (UTF-8) to `name`.
    func write(text: String, to name: String) throws {
        try write([Array(text.utf8)], to: name)
    }

    /// Removes `name` (a link itself, not its target), unless it is an input.
    func remove(_ name: String) throws {
        try checkNotInput(name)
        unlink(file(name))
    }

    /// Removes the playlists and MPD a package of `renditions` video renditions writes when the
    /// first of its files is about to be written (a run that fails before, reading its inputs,
    /// leaves the older package whole): a run that replaces an older package's segments and then
    /// stops (a signal, a full disk, an error) leaves no playlist naming a mix of old and new
    /// files (`Docs/packaging.md`, "Packaging into a folder again").
    func removePlaylistsBeforeFirstWrite(renditions: Int) {
        playlistsToRemove = renditions
    }

    /// Removes the playlists and MPD of `renditions` video renditions now.
    func removePlaylists(renditions: Int) throws {
        let names = (0..<renditions).map { "v\($0).m3u8" } + ["a0.m3u8", HLSPlaylist.multivariantName, DASHManifest.name]
        for name in names { try remove(name) }
    }
}
