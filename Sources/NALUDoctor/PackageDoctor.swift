#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
import NALUMedia

/// `nalu doctor` on a streaming package (what `nalu package`, ffmpeg's hls/dash muxers or a
/// packager wrote): a folder, an HLS playlist (`.m3u8`, RFC 8216) or a DASH MPD (`.mpd`,
/// ISO/IEC 23009-1). It checks that
///
/// - every file the playlists and the MPD name is on disk (`package-file-missing`), inside the
///   package folder (`segment-outside-package`) and a regular file (`segment-not-a-file`):
///   nothing else is opened (``PackageFiles``);
/// - the manifests' numbers are usable and they declare at most
///   ``PackageManifests/Limits/segments`` segments (`manifest-invalid`);
/// - every `EXTINF`, rounded to the nearest integer, is at most `EXT-X-TARGETDURATION`
///   (RFC 8216 4.3.3.1; `segment-over-target`);
/// - every init segment, segment and byte range reads as one (`segment-unreadable`) and lasts
///   what the manifest says (`segment-duration-mismatch`);
/// - every video segment starts with a keyframe: an IDR, CRA or BLA picture or an H.264
///   recovery point (`segment-starts-without-keyframe`);
/// - the declared codec strings (`CODECS`, `@codecs`) are those the init segments' parameter
///   sets give (RFC 6381, ISO/IEC 14496-15 Annex E; `codecs-mismatch`);
/// - HEVC is `hvc1`, not `hev1` (`hev1-sample-entry`, an error for `--target apple`);
/// - the video renditions' segments start at the same times (`renditions-misaligned`).
///
/// Memory: one segment at a time, and the manifests' segment lists.
public struct PackageDoctor: Sendable {
    public var target: DoctorTarget?
    /// The segments, parts and renditions the manifests may declare before the rest go unchecked
    /// (``PackageManifests/Limits/segments``; the fuzz target lowers it to run faster through
    /// the same paths).
    package var segmentLimit = PackageManifests.Limits.segments

    public init(target: DoctorTarget? = nil) { self.target = target }

    /// Whether `path` names a package rather than a stream: a folder, or a name ending in
    /// `.m3u8` or `.mpd`.
    public static func isPackage(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".m3u8") || lower.hasSuffix(".mpd") { return true }
        return isFolder(path)
    }

    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Examines the package at `path`: a folder's `master.m3u8` (else its one `.m3u8` that is a
    /// multivariant playlist, else each media playlist) and its `.mpd` files, or the one
    /// manifest named. Only files inside the package's folder are opened (``PackageFiles``).
    /// - Throws: ``NALUError`` `.io` when the manifest cannot be read, `.tooLarge` when it is
    ///   over ``PackageManifests/Limits/manifestBytes``, `.missing` when a folder holds none.
    public func examine(_ path: String) throws(NALUError) -> [DoctorFinding] {
        return try NALUError.typed(field: "package") {
            var log = DoctorFindingLog()
            let folder = Self.isFolder(path)
            var manifests: [String] = []
            let files: PackageFiles
            if !folder {
                // The manifest named (a symlink followed: the user named it); its folder is the root.
                guard let resolved = PackageFiles.realPath(path) else { throw NALUError(.io, field: path, detail: InputFile.errnoText()) }
                files = try PackageFiles(package: resolved, isFolder: false)
                manifests = [resolved]
            } else {
                files = try PackageFiles(package: path, isFolder: true)
                var texts: [String: String] = [:]
                var paths: [String: String] = [:]
                for name in try Self.list(path) where name.lowercased().hasSuffix(".m3u8") || name.lowercased().hasSuffix(".mpd") {
                    // A manifest in the folder is a file of the package like any other.
                    if case .file(let resolved, _) = files.resolve(name, base: files.root) { paths[name] = resolved }
                }
                let playlists = paths.keys.filter { $0.lowercased().hasSuffix(".m3u8") }.sorted()
                func isMultivariant(_ name: String) -> Bool {
                    guard let resolved = paths[name] else { return false }
                    if texts[name] == nil { texts[name] = (try? Self.text(resolved)) ?? "" }
                    return PackageManifests.isMultivariant(texts[name] ?? "")
                }
                let multivariant = playlists.contains("master.m3u8") ? ["master.m3u8"] : playlists.filter(isMultivariant)
                let names = (multivariant.isEmpty ? playlists : multivariant) + paths.keys.filter { $0.lowercased().hasSuffix(".mpd") }.sorted()
                manifests = names.compactMap { paths[$0] }
                guard !manifests.isEmpty else {
                    throw NALUError(.missing, field: path, detail: "no .m3u8 playlist and no .mpd manifest in the folder")
                }
            }
            for manifest in manifests {
                var check = PackageCheck(doctor: self, files: files, manifest: manifest)
                try check.run()
                for finding in check.log.findings { log.add(finding, key: manifest + finding.message) }
            }
            let findings = log.findings
            return findings.filter { $0.severity == .error } + findings.filter { $0.severity == .warning }
                + findings.filter { $0.severity == .information }
        }
    }

    /// The names in a folder, sorted.
    package static func list(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw NALUError(.io, field: path, detail: InputFile.errnoText()) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// A manifest's text: the file read by its size (`fstat`), at most
    /// ``PackageManifests/Limits/manifestBytes``.
    /// - Throws: ``NALUError`` `.tooLarge` over the limit (never cut silently), `.io`.
    static func text(_ path: String) throws(NALUError) -> String {
        let bytes = try PackageFiles.read(path, limit: PackageManifests.Limits.manifestBytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A segment's bytes: the file, or the byte range of it, at most 1 GiB.
    static func read(_ path: String, range: PackageManifests.ByteRange? = nil) throws(NALUError) -> [UInt8] {
        try PackageFiles.read(path, offset: range?.offset ?? 0, length: range?.length, limit: 1 << 30)
    }
}
