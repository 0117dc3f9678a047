public import NALUDecoder
import NALUAVCodec
import NALUDe265

/// The decoder libraries nalu drives, by name (`--decoder avcodec|de265`, issue 33).
public enum DecoderLibrary: String, CaseIterable, Sendable {
    /// libavcodec: H.264 and H.265 (the default).
    case avcodec
    /// libde265: H.265 only, LGPL.
    case de265

    /// A factory of this library's decoders.
    public var factory: any DecoderBackendFactory {
        switch self {
        case .avcodec: AVCodecDecoderFactory()
        case .de265: De265DecoderFactory()
        }
    }

    /// The library's name in messages: `libavcodec`, `libde265`.
    public var libraryName: String {
        switch self {
        case .avcodec: "libavcodec"
        case .de265: "libde265"
        }
    }
}

extension DecoderLibrary {
    /// The loader's reason and the `install …` fix of a decoder library that cannot be loaded
    /// (``NALUDecoder/DecoderError/Code/libraryUnavailable``, whose detail ends `; install
    /// <package>`), as ``EncoderLibraries/explanation(_:)`` gives an encoder's.
    public static func explanation(_ error: DecoderError) -> (reason: String, fix: String?) {
        let detail = error.detail ?? error.code.rawValue
        guard let range = detail.firstRange(of: "; install ") else { return (detail, nil) }
        return (String(detail[..<range.lowerBound]), "install " + detail[range.upperBound...])
    }
}
