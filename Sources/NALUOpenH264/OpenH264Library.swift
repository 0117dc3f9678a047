internal import COpenH264
import NALUEncoder

/// libopenh264's three exported functions, resolved from the shared library on first use
/// (everything else is called through the encoder's function table).
///
/// libopenh264 is not linked into the program (no `DT_NEEDED` entry): the first ``load()`` opens
/// it and resolves `WelsCreateSVCEncoder`, `WelsDestroySVCEncoder` and `WelsGetCodecVersion`,
/// once, thread-safely (a `static let`). A missing library or symbol is
/// ``EncoderError/Code/libraryUnavailable`` naming the package.
struct OpenH264Library: Sendable {
    /// The file opened.
    let fileName: String
    let createEncoder: nalu_oh264_create_fn
    let destroyEncoder: nalu_oh264_destroy_fn
    let codecVersion: nalu_oh264_version_fn

    /// The files to try: `NALU_LIBOPENH264`'s when it is set, else ``defaultFileNames``.
    static var fileNames: [String] {
        SharedLibrary.fileNames(environment: "NALU_LIBOPENH264", defaults: defaultFileNames)
    }

    /// The default. OpenH264's headers carry its version (codec_ver.h, 2.3.1 here), not the
    /// soname: releases 2.3 and 2.4 are `libopenh264.so.7` (Debian's libopenh264-7), whose
    /// interface these headers describe; the unversioned name (the -dev package's link) is the
    /// fallback for a build from source.
    static var defaultFileNames: [String] {
        #if canImport(Darwin)
        ["libopenh264.7.dylib", "/opt/homebrew/lib/libopenh264.7.dylib", "/usr/local/lib/libopenh264.7.dylib"]
        #else
        ["libopenh264.so.7", "libopenh264.so"]
        #endif
    }

    /// The package that provides it.
    static var installHint: String {
        #if canImport(Darwin)
        "openh264 (Homebrew: brew install openh264)"
        #else
        "libopenh264-7 (Debian/Ubuntu; libopenh264-dev brings it too)"
        #endif
    }

    /// Opened and resolved once, on first use. `NALU_LIBOPENH264` names another file to open.
    private static let shared = Result { () throws(EncoderError) in try OpenH264Library(fileNames: fileNames) }

    /// The library's entry points, or why it cannot be loaded.
    static func load() throws(EncoderError) -> OpenH264Library { try shared.get() }

    /// Opens the first of `fileNames` that loads and resolves the functions (tests pass a name
    /// that does not exist).
    init(fileNames: [String]) throws(EncoderError) {
        let library = try SharedLibrary(fileNames: fileNames, installHint: Self.installHint)
        fileName = library.fileName
        createEncoder = try library.function("WelsCreateSVCEncoder")
        destroyEncoder = try library.function("WelsDestroySVCEncoder")
        codecVersion = try library.function("WelsGetCodecVersion")
    }
}
