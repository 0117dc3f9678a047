public import ArgumentParser
import Logging
import NALU
import NALUEncoder
public import NALUExport

/// The encoder library `nalu encode` drives (``NALUExport/EncoderLibrary``).
typealias EncoderName = EncoderLibrary

extension EncoderLibrary: ExpressibleByArgument {}

/// `--encoder x264|x265|openh264` (issue 17): which library encodes. The default is x264 for
/// H.264 and x265 for HEVC; OpenH264 (BSD-2-Clause) is the choice for builds without GPL code.
struct EncoderChoice: ParsableArguments {
    @Option(help: "Encoder library: x264 (H.264, default), x265 (HEVC, default) or openh264 (H.264 Constrained Baseline, BSD-licensed). Implies the codec.")
    var encoder: EncoderName?
    @Option(name: .customLong("x264-params"), help: ArgumentHelp("x264 settings k=v:k=v, applied with x264_param_parse after nalu's own (e.g. keyint=10:bframes=0).", valueName: "k=v:k=v"))
    var x264Params: String?
    @Option(name: .customLong("x265-params"), help: ArgumentHelp("x265 settings k=v:k=v, applied with x265_param_parse after nalu's own.", valueName: "k=v:k=v"))
    var x265Params: String?

    /// `--codec` and `--encoder` together must agree.
    func check(codec: CodecOption?) throws {
        if let encoder, let codec, encoder.codec != codec.codec {
            throw ValidationError("--encoder \(encoder.rawValue) encodes \(encoder.codec == .hevc ? "hevc" : "h264"), not --codec \(codec.rawValue).")
        }
    }

    /// The `--x264-params` / `--x265-params` settings for the library that encodes `codec`;
    /// the other library's option, or either with OpenH264, is a usage error.
    func extraParameters(_ codec: Codec) throws -> [EncoderParameter] {
        let library = encoder ?? (codec == .hevc ? .x265 : .x264)
        if x264Params != nil, library != .x264 {
            throw ValidationError("--x264-params goes with the x264 encoder, not \(library.rawValue).")
        }
        if x265Params != nil, library != .x265 {
            throw ValidationError("--x265-params goes with the x265 encoder, not \(library.rawValue).")
        }
        if let x264Params { return try EncoderParameter.list(x264Params, context: "x264-params") }
        if let x265Params { return try EncoderParameter.list(x265Params, context: "x265-params") }
        return []
    }

    /// The factory for `codec`: OpenH264 when chosen, else x264/x265; their log lines go to
    /// standard error as `x264 [warning]: …`, and nothing at all with `--quiet`.
    func factory(_ codec: Codec, quiet: Bool) -> any EncoderBackendFactory {
        let library = EncoderLibrary.encoding(codec, chosen: encoder)
        var logger = Logger(label: "nalu.\(library.rawValue)") { _ in EncoderLogHandler(name: library.rawValue) }
        logger.logLevel = quiet ? .critical : .warning
        return library.factory(logger: logger)
    }
}

/// Writes encoder log lines to standard error as the encoders' own CLIs do: `x264 [warning]: …`.
struct EncoderLogHandler: LogHandler {
    var name: String
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        StandardError.write("\(name) [\(event.level)]: \(event.message)\n")
    }
}
