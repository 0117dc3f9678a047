import NALUMedia

extension EncoderLibraries {
    /// The code a missing library is reported under (`nalu doctor --encoders`).
    public static let unavailableCode = "encoder-unavailable"

    /// The report of ``statuses`` (`nalu doctor --encoders`), one string per output line.
    ///
    /// Text: one line per library, `x264: libx264.so.164 (API build 164)`, or for one that does
    /// not load `warning[encoder-unavailable] x264: <library>: <reason>` and a `  fix:` line naming
    /// the package, then a summary line. JSON Lines (`json`): one object per library (`encoder`,
    /// `available`, `library`, `version`, `message`, `fix`), then the doctor's summary object
    /// `{"summary":{"errors":0,"warnings":N}}`, a missing library counting as a warning (no
    /// missing library is an error: only encoding needs them).
    public static func reportLines(_ statuses: [Status] = statuses, json: Bool) -> [String] {
        var lines: [String] = []
        let missing = statuses.filter { !$0.isAvailable }.count
        for status in statuses {
            if json {
                lines.append(JSONValue.object([
                    ("encoder", .string(status.encoder)), ("available", .bool(status.isAvailable)), ("library", .string(status.library)),
                    ("version", status.version.map { .string($0) } ?? .null), ("message", status.reason.map { .string($0) } ?? .null),
                    ("fix", status.fix.map { .string($0) } ?? .null),
                ]).text)
            } else if let reason = status.reason {
                lines.append("warning[\(unavailableCode)] \(status.encoder): \(status.library): \(reason)")
                if let fix = status.fix { lines.append("  fix: \(fix)") }
            } else {
                lines.append("\(status.encoder): \(status.library)\(status.version.map { " (\($0))" } ?? "")")
            }
        }
        if json {
            lines.append(JSONValue.object([("summary", .object([("errors", .number(0)), ("warnings", .number(missing))]))]).text)
        } else {
            lines.append(missing == 0 ? "encoders: all \(statuses.count) libraries load"
                         : "encoders: \(missing) of \(statuses.count) libraries cannot be loaded")
        }
        return lines
    }
}
