// The packager's input path (issue 40): the input after a mode byte is written to a scratch file
// and packaged into a scratch folder by `Packager` (files: fMP4 or MPEG-TS segments, LL-HLS parts,
// single files; raw streams muxed into an intermediate MP4 first) or `LivePackager` (bit 6).
// Mode bits: 0 MPEG-TS segments, 1 no audio, 2 parts of 0.25 s, 3 one file per track, 4–5 the
// segment duration (1/1 … 1/4 s), 6 live. Properties beyond "value or error, no trap": every file
// the summary names exists with the size it gives (a single file holds every byte range), every
// manifest exists, and no temporary file is left in the folder, whether the run succeeded or not.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMedia
import NALUPackager
import NALUDoctor

enum PackageHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        guard let folder = makeFolder() else { return }
        defer { removeTree(folder) }
        let input = folder + "/input"
        let out = folder + "/out"
        guard store(bytes, to: input), mkdir(out, 0o700) == 0 else { return }
        let live = mode & 0x40 != 0
        let transportStream = !live && mode & 1 != 0
        var options = PackagerOptions(segmentDuration: Rational(1, 1 + Int64(mode >> 4 & 3)), segmentType: transportStream ? .ts : .fmp4,
                                      hls: true, dash: !transportStream, checksAlignment: true, dropsAudio: mode & 2 != 0)
        if !transportStream, mode & 4 != 0 { options.partDuration = Rational(1, 4) }
        options.singleFile = !live && mode & 8 != 0
        options.frameRate = Rational(25, 1)
        options.window = 3
        options.maxAccessUnitSize = 1 << 20
        var summary: PackageSummary?
        do {
            if live {
                summary = try LivePackager(directory: out, options: options).package(LiveInput(path: input))
            } else {
                summary = try Packager(directory: out, options: options).package([input])
            }
        } catch {
            // A typed error (NALUError and friends): what the CLI reports with a status.
        }
        let names = listing(out)
        try fuzzCheck(!names.contains { $0.hasSuffix(".nalu-tmp") }, "temporary files left in the package folder: \(names)")
        guard let summary else { return }
        for manifest in summary.manifests {
            try fuzzCheck(size(out + "/" + manifest) != nil, "manifest \(manifest) is missing")
        }
        for track in summary.video + (summary.audio.map { [$0] } ?? []) {
            // A live package keeps the last segments only (older ones are deleted).
            let segments = live ? Array(track.segments.suffix(1)) : track.segments
            for segment in segments {
                let found = size(out + "/" + segment.name)
                if let offset = segment.byteOffset {
                    try fuzzCheck(found.map { offset >= 0 && segment.bytes <= $0 - offset } == true,
                                  "\(segment.name): bytes \(offset)+\(segment.bytes) outside the \(found ?? -1)-byte file")
                } else {
                    try fuzzCheck(found == segment.bytes, "\(segment.name): \(found ?? -1) bytes on disk, \(segment.bytes) in the summary")
                }
                try fuzzCheck(segment.duration >= 0, "\(segment.name): negative duration \(segment.duration)")
            }
        }
    }

    /// A new folder in `$TMPDIR` (else `/tmp`).
    static func makeFolder() -> String? {
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if base.isEmpty { base = "/tmp" }
        var template = Array((base + "/nalu-fuzz-package-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { return nil }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func store(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return false }
            done += count
        }
        return true
    }

    /// The size of the regular file at `path` (links not followed), or `nil`.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The names in `folder` (none when it cannot be listed).
    static func listing(_ folder: String) -> [String] { (try? PackageDoctor.list(folder)) ?? [] }

    /// Removes `folder` and what is in it (two levels: the input and the package folder).
    static func removeTree(_ folder: String) {
        for name in listing(folder) {
            let path = folder + "/" + name
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                for inner in listing(path) { unlink(path + "/" + inner) }
                rmdir(path)
            } else {
                unlink(path)
            }
        }
        rmdir(folder)
    }
}
