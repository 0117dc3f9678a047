import ArgumentParser
import NALU
import NALUExport

/// The names users type for a codec: `h264`, `avc`, `x264`; `h265`, `hevc`, `x265`.
extension CodecOption {
    init?(argument: String) {
        switch argument.lowercased() {
        case "h264", "h.264", "avc", "x264", "264": self = .h264
        case "h265", "h.265", "hevc", "x265", "265": self = .hevc
        default: return nil
        }
    }

    static var allValueStrings: [String] { ["h264", "avc", "x264", "h265", "hevc", "x265"] }
}

/// What the command line says about an output's name (the decisions are the library's:
/// ``NALUExport/OutputNaming``, ``NALUExport/ConversionFormat/init(outputName:)``).
enum Naming {
    /// Refuses an output whose framing neither `--to` nor its name says (standard output included).
    static func checkOutputFraming(_ to: OutputFraming?, output: String?, example: String) throws {
        guard to == nil else { return }
        guard let output, output != "-" else {
            throw CLIError.usage(nil, "give --to annexb|avcc|mp4|ts|m2ts for standard output", hint: example)
        }
        if ConversionFormat(outputName: output) == nil { throw unknownFraming(output) }
    }

    /// The usage error for an output whose framing its name does not say.
    static func unknownFraming(_ path: String) -> CLIError {
        .usage(path, "cannot tell the output framing from the name",
               hint: "give --to annexb|avcc|mp4|ts|m2ts, or name the output .h264 .264 .avc .h265 .265 .hevc (Annex-B), .mp4 .m4v .mov (MP4), .ts or .m2ts (MPEG-TS)")
    }
}
