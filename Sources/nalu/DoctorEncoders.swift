import NALUEncoder
import NALUExport

/// `nalu doctor --encoders`: whether each encoder library loads. `nalu encode` opens libx264,
/// libx265 and libopenh264 with `dlopen` at first use (no other subcommand loads them), so a
/// missing one shows only there; this reports all three up front.
///
/// Text: one line per library, `x264: libx264.so.164 (API build 164)`, or for one that does not
/// load `warning[encoder-unavailable] x264: <reason>` and a `fix:` line naming the package, then
/// the summary line. `--json`: one object per library (`encoder`, `available`, `library`,
/// `version`, `message`, `fix`), then doctor's `{"summary":{"errors":0,"warnings":N}}`, a missing
/// library counting as a warning. Exit status 0 (no library missing is an error: every other
/// subcommand works without them).
enum EncoderLibraryCheck {
    /// The code a missing library is reported under.
    static let code = "encoder-unavailable"

    static func run(json: Bool) throws {
        let statuses = EncoderLibraries.statuses
        let out = try StandardOutput()
        let missing = statuses.filter { !$0.isAvailable }.count
        for status in statuses {
            if json {
                try out.line(JSON.object([
                    ("encoder", .string(status.encoder)), ("available", .bool(status.isAvailable)), ("library", .string(status.library)),
                    ("version", status.version.map { .string($0) } ?? .null), ("message", status.reason.map { .string($0) } ?? .null),
                    ("fix", status.fix.map { .string($0) } ?? .null),
                ]).text)
            } else if let reason = status.reason {
                try out.line("warning[\(code)] \(status.encoder): \(status.library): \(reason)")
                if let fix = status.fix { try out.line("  fix: \(fix)") }
            } else {
                try out.line("\(status.encoder): \(status.library)\(status.version.map { " (\($0))" } ?? "")")
            }
        }
        if json {
            try out.line(JSON.object([("summary", .object([("errors", .number(0)), ("warnings", .number(missing))]))]).text)
        } else {
            try out.line(missing == 0 ? "encoders: all \(statuses.count) libraries load"
                         : "encoders: \(missing) of \(statuses.count) libraries cannot be loaded")
        }
        try out.flush()
    }

    /// The loader's reason and the `install …` fix of a missing library (``NALUExport/EncoderLibraries/explanation(_:)``).
    static func explanation(_ error: EncoderError?) -> (reason: String?, fix: String?) { EncoderLibraries.explanation(error) }
}
