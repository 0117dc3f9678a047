public import Logging
public import NALU
public import NALUEncoder
import NALUOpenH264
import NALUX264
import NALUX265

/// The encoder libraries nalu drives, by name (`--encoder x264|x265|openh264`, issue 17), as
/// ``DecoderLibrary`` names the decoders: x264 for H.264 and x265 for HEVC by default; OpenH264
/// (BSD-2-Clause, Constrained Baseline H.264) for builds without GPL code.
public enum EncoderLibrary: String, CaseIterable, Sendable {
    /// x264 (GPL): H.264.
    case x264
    /// x265 (GPL): H.265.
    case x265
    /// OpenH264 (BSD-2-Clause): H.264 Constrained Baseline.
    case openh264

    /// The codec the library encodes.
    public var codec: Codec { self == .x265 ? .hevc : .h264 }

    /// The library that encodes `codec`: `chosen` when it is OpenH264 (for H.264), else x264 for
    /// H.264 and x265 for HEVC.
    public static func encoding(_ codec: Codec, chosen: EncoderLibrary? = nil) -> EncoderLibrary {
        chosen == .openh264 ? .openh264 : codec == .hevc ? .x265 : .x264
    }

    /// A factory of this library's encoders, its log lines going to `logger`.
    public func factory(logger: Logger) -> any EncoderBackendFactory {
        switch self {
        case .x264: X264BackendFactory(logger: logger)
        case .x265: X265BackendFactory(logger: logger)
        case .openh264: OpenH264BackendFactory(logger: logger)
        }
    }
}
