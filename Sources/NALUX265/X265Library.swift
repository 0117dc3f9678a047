internal import CX265
import NALUEncoder

/// libx265's entry point, resolved from the shared library on first use.
///
/// libx265 is not linked into the program (no `DT_NEEDED` entry, so neither are the libstdc++
/// and libnuma it needs): the first ``load()`` opens `libx265.so.<X265_BUILD>` (x265.h's API
/// build) and resolves `x265_api_get_<X265_BUILD>`, whose `x265_api` table holds every other
/// function; once, thread-safely (a `static let`). A missing library or symbol is
/// ``EncoderError/Code/libraryUnavailable`` naming the package.
struct X265Library: Sendable {
    /// The file opened.
    let fileName: String
    /// `x265_api_get`: the API table for a bit depth (8, 10 or 12), or `nil` when the library
    /// does not provide it.
    let apiGet: nalu_x265_api_get_fn

    /// The files to try: `NALU_LIBX265`'s when it is set, else ``defaultFileNames``.
    static var fileNames: [String] {
        SharedLibrary.fileNames(environment: "NALU_LIBX265", defaults: defaultFileNames)
    }

    /// The default: the file for the headers' API build (`X265_BUILD`).
    static var defaultFileNames: [String] {
        #if canImport(Darwin)
        ["libx265.\(X265_BUILD).dylib", "/opt/homebrew/lib/libx265.\(X265_BUILD).dylib", "/usr/local/lib/libx265.\(X265_BUILD).dylib"]
        #else
        ["libx265.so.\(X265_BUILD)"]
        #endif
    }

    /// The package that provides it.
    static var installHint: String {
        #if canImport(Darwin)
        "x265 (Homebrew: brew install x265)"
        #else
        "libx265-\(X265_BUILD) (Debian/Ubuntu; libx265-dev brings it too)"
        #endif
    }

    /// Opened and resolved once, on first use. `NALU_LIBX265` names another file to open.
    private static let shared = Result { () throws(EncoderError) in try X265Library(fileNames: fileNames) }

    /// The library's entry point, or why it cannot be loaded.
    static func load() throws(EncoderError) -> X265Library { try shared.get() }

    /// Opens the first of `fileNames` that loads and resolves `x265_api_get_<X265_BUILD>`
    /// (tests pass a name that does not exist).
    init(fileNames: [String]) throws(EncoderError) {
        let library = try SharedLibrary(fileNames: fileNames, installHint: Self.installHint)
        fileName = library.fileName
        apiGet = try library.function("x265_api_get_\(X265_BUILD)")
    }
}
