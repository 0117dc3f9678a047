public import NALUEncoder
import NALUOpenH264
import NALUX264
import NALUX265

/// Whether each encoder library loads (`nalu doctor --encoders`): x264, x265 and OpenH264 are
/// opened with `dlopen` at first use, so a missing one shows only when an encode starts; this
/// reports all three up front.
public enum EncoderLibraries {
    /// One library: loaded, or why not and what to install.
    public struct Status: Sendable, Hashable {
        /// `x264`, `x265`, `openh264`.
        public var encoder: String
        /// The file opened (or, when it failed, the file asked for).
        public var library: String
        /// What the library says of itself when loaded (`API build 164`).
        public var version: String?
        /// Why it cannot be loaded; `nil` when it loaded.
        public var reason: String?
        /// The package to install (`install libx264-164 (…)`), when known.
        public var fix: String?

        /// Whether the library loads.
        public var isAvailable: Bool { reason == nil }
    }

    /// x264, x265 and OpenH264, each loaded (once per process) to see.
    public static var statuses: [Status] {
        [X264BackendFactory.libraryStatus, X265BackendFactory.libraryStatus, OpenH264BackendFactory.libraryStatus].map { status in
            let (reason, fix) = explanation(status.error)
            return Status(encoder: status.encoder, library: status.fileName, version: status.version, reason: reason, fix: fix)
        }
    }

    /// The loader's reason and the `install …` fix, split from a
    /// ``NALUEncoder/EncoderError/Code/libraryUnavailable`` error's detail; both `nil` without an error.
    public static func explanation(_ error: EncoderError?) -> (reason: String?, fix: String?) {
        guard let error else { return (nil, nil) }
        let detail = error.detail ?? error.code.rawValue
        guard let range = detail.firstRange(of: "; install ") else { return (detail, nil) }
        return (String(detail[..<range.lowerBound]), "install " + detail[range.upperBound...])
    }
}
