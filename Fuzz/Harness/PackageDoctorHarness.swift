// `nalu doctor` on a streaming package (NALUMedia PackageDoctor) whose manifest is the input,
// in a scratch folder that also holds hostile neighbours: a FIFO, a directory and a symlink to
// /etc/passwd named like segments, a file outside the folder, and a small segment and init
// segment made of the input's last bytes. The first byte picks the manifest's kind (bit 0: MPD,
// else HLS playlist). Properties: no trap and no hang (a FIFO opened would block the run: the
// fuzzer's -timeout catches it); any error thrown is a NALUError; every finding's message is
// under a bound linear in the input (no path worse than linear).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMedia
import NALUDoctor

enum PackageDoctorHarness {
    /// The scratch folder (one per process, made once, in `$TMPDIR`, else `/tmp`): `<tmp>/pkg`
    /// and its neighbours.
    nonisolated(unsafe) static var folder: String?

    static func scratch() -> String? {
        if let folder { return folder }
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if base.isEmpty { base = "/tmp" }
        var template = Array((base + "/nalu-fuzz-package-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let root = String(cString: made)
        let package = root + "/pkg"
        mkdir(package, 0o700)
        mkdir(package + "/dir.ts", 0o700)
        mkfifo(package + "/fifo.ts", 0o600)
        symlink("/etc/passwd", package + "/link.ts")
        store(root + "/outside.ts", [0x47])
        folder = package
        return package
    }

    static func store(_ path: String, _ bytes: [UInt8]) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first, let package = scratch() else { return }
        let bytes = Array(all.dropFirst())
        let manifest = package + (mode & 1 == 1 ? "/x.mpd" : "/x.m3u8")
        unlink(package + "/x.mpd")
        unlink(package + "/x.m3u8")
        store(manifest, bytes)
        let tail = Array(bytes.suffix(64))
        store(package + "/a.ts", tail)
        store(package + "/a.m4s", tail)
        store(package + "/init.mp4", tail)
        do {
            var doctor = PackageDoctor()
            doctor.segmentLimit = ManifestHarness.segmentLimit
            let findings = try doctor.examine(manifest)
            for finding in findings {
                try fuzzCheck(finding.message.utf8.count <= 4096 + 4 * bytes.count, "a message of \(finding.message.utf8.count) bytes")
            }
        } catch let error as FuzzPropertyViolation {
            throw error
        } catch {
            try fuzzCheck(error is NALUError, "\(type(of: error)) thrown: \(error)")
        }
    }
}
