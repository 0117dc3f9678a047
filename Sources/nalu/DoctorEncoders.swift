import NALUEncoder
import NALUOpenH264
import NALUX264
import NALUX265

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
        let statuses = [X264BackendFactory.libraryStatus, X265BackendFactory.libraryStatus,
                        OpenH264BackendFactory.libraryStatus]
        let out = try StandardOutput()
        let missing = statuses.filter { $0.error != nil }.count
        for status in statuses {
            let (reason, fix) = explanation(status.error)
            if json {
                try out.line(JSON.object([
                    ("encoder", .string(status.encoder)),
                    ("available", .bool(status.error == nil)),
                    ("library", .string(status.fileName)),
                    ("version", status.version.map { .string($0) } ?? .null),
                    ("message", reason.map { .string($0) } ?? .null),
                    ("fix", fix.map { .string($0) } ?? .null),
                ]).text)
            } else if let reason {
                try out.line("warning[\(code)] \(status.encoder): \(status.fileName): \(reason)")
                if let fix { try out.line("  fix: \(fix)") }
            } else {
                try out.line("\(status.encoder): \(status.fileName)\(status.version.map { " (\($0))" } ?? "")")
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

    /// The loader's reason and the `install …` fix, split from a
    /// ``EncoderError/Code/libraryUnavailable`` error's detail.
    static func explanation(_ error: EncoderError?) -> (reason: String?, fix: String?) {
        guard let error else { return (nil, nil) }
        let detail = error.detail ?? error.code.rawValue
        guard let range = detail.firstRange(of: "; install ") else { return (detail, nil) }
        return (String(detail[..<range.lowerBound]), "install " + detail[range.upperBound...])
    }
}
