internal import CDe265
import NALUDecoder
import NALUEncoder

/// libde265's entry points, resolved from the shared library on first use (`libde265.so.0`; not
/// linked: opened with dlopen, once, thread-safely). A missing library or symbol is
/// ``NALUDecoder/DecoderError/Code/libraryUnavailable`` naming the package.
struct De265Library: Sendable {
    let fileName: String
    let getVersion: nalu_de265_get_version_fn
    let newDecoder: nalu_de265_new_decoder_fn
    let startWorkerThreads: nalu_de265_start_worker_threads_fn
    let freeDecoder: nalu_de265_free_decoder_fn
    let pushData: nalu_de265_push_data_fn
    let flushData: nalu_de265_flush_data_fn
    let decode: nalu_de265_decode_fn
    let getNextPicture: nalu_de265_get_next_picture_fn
    let getWarning: nalu_de265_get_warning_fn
    let errorText: nalu_de265_get_error_text_fn
    let imageWidth: nalu_de265_get_image_width_fn
    let imageHeight: nalu_de265_get_image_height_fn
    let chromaFormat: nalu_de265_get_chroma_format_fn
    let bitsPerPixel: nalu_de265_get_bits_per_pixel_fn
    let imagePlane: nalu_de265_get_image_plane_fn
    let imagePTS: nalu_de265_get_image_PTS_fn
    let setVerbosity: nalu_de265_set_verbosity_fn

    /// `NALU_LIBDE265`'s file when set, else `libde265.so.0`.
    static var fileNames: [String] {
        #if canImport(Darwin)
        let defaults = ["libde265.0.dylib", "/opt/homebrew/lib/libde265.0.dylib", "/usr/local/lib/libde265.0.dylib"]
        #else
        let defaults = ["libde265.so.0"]
        #endif
        return SharedLibrary.fileNames(environment: "NALU_LIBDE265", defaults: defaults)
    }

    static var installHint: String {
        #if canImport(Darwin)
        "libde265 (Homebrew: brew install libde265)"
        #else
        "libde265-0 (Debian/Ubuntu; libde265-dev brings it too)"
        #endif
    }

    private static let shared = Result { () throws(DecoderError) in try De265Library(fileNames: fileNames) }

    /// The library's entry points, or why it cannot be loaded.
    static func load() throws(DecoderError) -> De265Library { try shared.get() }

    init(fileNames: [String]) throws(DecoderError) {
        do {
            let library = try SharedLibrary(fileNames: fileNames, installHint: Self.installHint)
            fileName = library.fileName
            getVersion = try library.function("de265_get_version")
            newDecoder = try library.function("de265_new_decoder")
            startWorkerThreads = try library.function("de265_start_worker_threads")
            freeDecoder = try library.function("de265_free_decoder")
            pushData = try library.function("de265_push_data")
            flushData = try library.function("de265_flush_data")
            decode = try library.function("de265_decode")
            getNextPicture = try library.function("de265_get_next_picture")
            getWarning = try library.function("de265_get_warning")
            errorText = try library.function("de265_get_error_text")
            imageWidth = try library.function("de265_get_image_width")
            imageHeight = try library.function("de265_get_image_height")
            chromaFormat = try library.function("de265_get_chroma_format")
            bitsPerPixel = try library.function("de265_get_bits_per_pixel")
            imagePlane = try library.function("de265_get_image_plane")
            imagePTS = try library.function("de265_get_image_PTS")
            setVerbosity = try library.function("de265_set_verbosity")
        } catch {
            throw DecoderError(library: error)
        }
        // Messages come back through de265_get_warning, not stderr.
        setVerbosity(0)
    }

    func text(_ error: de265_error) -> String {
        guard let text = errorText(error) else { return "error \(error.rawValue)" }
        return String(cString: text)
    }
}
