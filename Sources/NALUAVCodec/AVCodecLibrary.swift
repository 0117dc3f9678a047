internal import CAVCodec
import NALUDecoder
import NALUEncoder

/// libavcodec's and libavutil's entry points, resolved from the shared libraries on first use.
///
/// Neither library is linked into the program: the first ``load()`` opens
/// `libavcodec.so.<LIBAVCODEC_VERSION_MAJOR>` and `libavutil.so.<LIBAVUTIL_VERSION_MAJOR>` (the
/// ABI of the headers compiled against; `libavcodec.so.59` and `libavutil.so.57` on Debian 12),
/// resolves every function the backend calls, once, thread-safely, and routes libavcodec's log
/// to the decoders that own the messages. A missing library or symbol is
/// ``NALUDecoder/DecoderError/Code/libraryUnavailable`` naming the package.
struct AVCodecLibrary: Sendable {
    let fileName: String
    let version: nalu_avcodec_version_fn
    let findDecoder: nalu_avcodec_find_decoder_fn
    let allocContext: nalu_avcodec_alloc_context3_fn
    let open: nalu_avcodec_open2_fn
    let freeContext: nalu_avcodec_free_context_fn
    let sendPacket: nalu_avcodec_send_packet_fn
    let receiveFrame: nalu_avcodec_receive_frame_fn
    let packetAlloc: nalu_av_packet_alloc_fn
    let packetFree: nalu_av_packet_free_fn
    let frameAlloc: nalu_av_frame_alloc_fn
    let frameFree: nalu_av_frame_free_fn
    let frameUnref: nalu_av_frame_unref_fn
    let strerror: nalu_av_strerror_fn

    /// `NALU_LIBAVCODEC`'s file when set, else the headers' major version.
    static var fileNames: [String] {
        SharedLibrary.fileNames(environment: "NALU_LIBAVCODEC", defaults: defaultFileNames(library: "avcodec", major: nalu_libavcodec_major()))
    }

    static var utilFileNames: [String] {
        SharedLibrary.fileNames(environment: "NALU_LIBAVUTIL", defaults: defaultFileNames(library: "avutil", major: nalu_libavutil_major()))
    }

    static func defaultFileNames(library: String, major: UInt32) -> [String] {
        #if canImport(Darwin)
        ["lib\(library).\(major).dylib", "/opt/homebrew/lib/lib\(library).\(major).dylib", "/usr/local/lib/lib\(library).\(major).dylib"]
        #else
        ["lib\(library).so.\(major)"]
        #endif
    }

    static func installHint(_ library: String, major: UInt32) -> String {
        #if canImport(Darwin)
        "ffmpeg (Homebrew: brew install ffmpeg)"
        #else
        "lib\(library)\(major) (Debian/Ubuntu; lib\(library)-dev brings it too)"
        #endif
    }

    private static let shared = Result { () throws(DecoderError) in
        try AVCodecLibrary(fileNames: fileNames, utilFileNames: utilFileNames)
    }

    /// The libraries' entry points, or why they cannot be loaded.
    static func load() throws(DecoderError) -> AVCodecLibrary { try shared.get() }

    init(fileNames: [String], utilFileNames: [String]) throws(DecoderError) {
        do {
            let util = try SharedLibrary(fileNames: utilFileNames, installHint: Self.installHint("avutil", major: nalu_libavutil_major()))
            let codec = try SharedLibrary(fileNames: fileNames, installHint: Self.installHint("avcodec", major: nalu_libavcodec_major()))
            fileName = codec.fileName
            version = try codec.function("avcodec_version")
            findDecoder = try codec.function("avcodec_find_decoder")
            allocContext = try codec.function("avcodec_alloc_context3")
            open = try codec.function("avcodec_open2")
            freeContext = try codec.function("avcodec_free_context")
            sendPacket = try codec.function("avcodec_send_packet")
            receiveFrame = try codec.function("avcodec_receive_frame")
            packetAlloc = try codec.function("av_packet_alloc")
            packetFree = try codec.function("av_packet_free")
            frameAlloc = try util.function("av_frame_alloc")
            frameFree = try util.function("av_frame_free")
            frameUnref = try util.function("av_frame_unref")
            strerror = try util.function("av_strerror")
            let setLogCallback: nalu_av_log_set_callback_fn = try util.function("av_log_set_callback")
            nalu_av_install_log(setLogCallback)
        } catch {
            throw DecoderError(library: error)
        }
    }

    /// `av_strerror`'s text for `status`.
    func errorText(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let text = buffer.withUnsafeMutableBufferPointer { pointer -> String? in
            guard let base = pointer.baseAddress, strerror(status, base, pointer.count) == 0 else { return nil }
            return String(cString: base)
        }
        return text ?? "error \(status)"
    }

    /// "libavcodec 59.37.100", for `nalu doctor --encoders`.
    var versionText: String {
        let packed = version()
        return "libavcodec \(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}
