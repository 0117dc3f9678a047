import NALUEncoder
import NALUExport

/// `nalu doctor --encoders`: whether each encoder library loads. `nalu encode` opens libx264,
/// libx265 and libopenh264 with `dlopen` at first use (no other subcommand loads them), so a
/// missing one shows only there; this prints ``NALUExport/EncoderLibraries/reportLines(_:json:)``
/// for all three up front. Exit status 0.
enum EncoderLibraryCheck {
    static func run(json: Bool) throws {
        let out = try StandardOutput()
        for line in EncoderLibraries.reportLines(json: json) { try out.line(line) }
        try out.flush()
    }

    /// The loader's reason and the `install …` fix of a missing library (``NALUExport/EncoderLibraries/explanation(_:)``).
    static func explanation(_ error: EncoderError?) -> (reason: String?, fix: String?) { EncoderLibraries.explanation(error) }
}
