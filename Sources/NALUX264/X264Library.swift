internal import CX264
import NALUEncoder

/// libx264's entry points, resolved from the shared library on first use.
///
/// libx264 is not linked into the program (no `DT_NEEDED` entry): the first ``load()`` opens
/// `libx264.so.<X264_BUILD>` (the ABI of the headers compiled against: x264.h's `X264_BUILD`,
/// which also names the versioned `x264_encoder_open_<X264_BUILD>`) and resolves every function
/// the backend calls, once, thread-safely (a `static let`); later calls return the same table.
/// A missing library or symbol is ``EncoderError/Code/libraryUnavailable`` naming the package.
struct X264Library: Sendable {
    /// The file opened.
    let fileName: String
    let paramDefaultPreset: nalu_x264_param_default_preset_fn
    let paramCleanup: nalu_x264_param_cleanup_fn
    let paramParse: nalu_x264_param_parse_fn
    let paramApplyProfile: nalu_x264_param_apply_profile_fn
    let pictureInit: nalu_x264_picture_init_fn
    let encoderOpen: nalu_x264_encoder_open_fn
    let encoderHeaders: nalu_x264_encoder_headers_fn
    let encoderEncode: nalu_x264_encoder_encode_fn
    let encoderDelayedFrames: nalu_x264_encoder_delayed_frames_fn
    let encoderReconfig: nalu_x264_encoder_reconfig_fn
    let encoderClose: nalu_x264_encoder_close_fn

    /// The files to try: `NALU_LIBX264`'s when it is set, else ``defaultFileNames``.
    static var fileNames: [String] {
        SharedLibrary.fileNames(environment: "NALU_LIBX264", defaults: defaultFileNames)
    }

    /// The default: the file for the headers' API build (`X264_BUILD`).
    static var defaultFileNames: [String] {
        #if canImport(Darwin)
        ["libx264.\(X264_BUILD).dylib", "/opt/homebrew/lib/libx264.\(X264_BUILD).dylib", "/usr/local/lib/libx264.\(X264_BUILD).dylib"]
        #else
        ["libx264.so.\(X264_BUILD)"]
        #endif
    }

    /// The package that provides it.
    static var installHint: String {
        #if canImport(Darwin)
        "x264 (Homebrew: brew install x264)"
        #else
        "libx264-\(X264_BUILD) (Debian/Ubuntu; libx264-dev brings it too)"
        #endif
    }

    /// Opened and resolved once, on first use. `NALU_LIBX264` names another file to open.
    private static let shared = Result { () throws(EncoderError) in try X264Library(fileNames: fileNames) }

    /// The library's entry points, or why it cannot be loaded.
    static func load() throws(EncoderError) -> X264Library { try shared.get() }

    /// Opens the first of `fileNames` that loads and resolves the functions (tests pass a name
    /// that does not exist).
    init(fileNames: [String]) throws(EncoderError) {
        let library = try SharedLibrary(fileNames: fileNames, installHint: Self.installHint)
        fileName = library.fileName
        paramDefaultPreset = try library.function("x264_param_default_preset")
        paramCleanup = try library.function("x264_param_cleanup")
        paramParse = try library.function("x264_param_parse")
        paramApplyProfile = try library.function("x264_param_apply_profile")
        pictureInit = try library.function("x264_picture_init")
        encoderOpen = try library.function("x264_encoder_open_\(X264_BUILD)")
        encoderHeaders = try library.function("x264_encoder_headers")
        encoderEncode = try library.function("x264_encoder_encode")
        encoderDelayedFrames = try library.function("x264_encoder_delayed_frames")
        encoderReconfig = try library.function("x264_encoder_reconfig")
        encoderClose = try library.function("x264_encoder_close")
    }
}
