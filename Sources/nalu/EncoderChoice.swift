import ArgumentParser
import Logging
import NALU
import NALUEncoder
import NALUOpenH264

/// The encoder library `nalu encode` drives.
enum EncoderName: String, ExpressibleByArgument, CaseIterable {
    case x264, x265, openh264

    /// The codec the library encodes.
    var codec: Codec { self == .x265 ? .hevc : .h264 }
}

/// `--encoder x264|x265|openh264` (issue 17): which library encodes. The default is x264 for
/// H.264 and x265 for HEVC; OpenH264 (BSD-2-Clause) is the choice for builds without GPL code.
struct EncoderChoice: ParsableArguments {
    @Option(help: "Encoder library: x264 (H.264, default), x265 (HEVC, default) or openh264 (H.264 Constrained Baseline, BSD-licensed). Implies the codec.")
    var encoder: EncoderName?

    /// `--codec` and `--encoder` together must agree.
    func check(codec: CodecOption?) throws {
        if let encoder, let codec, encoder.codec != codec.codec {
            throw ValidationError("--encoder \(encoder.rawValue) encodes \(encoder.codec == .hevc ? "hevc" : "h264"), not --codec \(codec.rawValue).")
        }
    }

    /// The factory for `codec`: OpenH264 when chosen, else x264/x265 as before.
    func factory(_ codec: Codec, quiet: Bool) -> any EncoderBackendFactory {
        guard encoder == .openh264 else { return LiveControl.factory(codec, quiet: quiet) }
        var logger = Logger(label: "nalu.openh264") { _ in EncoderLogHandler(name: "openh264") }
        logger.logLevel = quiet ? .critical : .warning
        return OpenH264BackendFactory(logger: logger)
    }
}
