public import NALUMedia

/// What `nalu doctor` prints for a list of findings: one block of text per finding (or one JSON
/// object per finding, JSON Lines), then the summary (`<name>: no problems found`, or the error
/// and warning counts; in JSON a `summary` object).
///
/// ```swift
/// let findings = try Doctor(target: .apple, inputName: "clip.mp4").examine(source)
/// let report = DoctorReport(findings: findings)
/// print(report.text(inputName: "clip.mp4"), terminator: "")
/// ```
public struct DoctorReport: Sendable {
    /// The findings, in the order found.
    public var findings: [DoctorFinding]

    /// A report of `findings`.
    public init(findings: [DoctorFinding]) { self.findings = findings }

    /// Findings of severity error.
    public var errors: Int { findings.filter { $0.severity == .error }.count }
    /// Findings of severity information.
    public var information: Int { findings.filter { $0.severity == .information }.count }
    /// Findings of severity warning.
    public var warnings: Int { findings.count - errors - information }

    /// The text: each finding's ``DoctorFinding/text``, then the summary line naming the input
    /// (control characters escaped).
    public func text(inputName name: String) -> String {
        let errors = errors, warnings = warnings, information = information
        let notes = information == 0 ? "" : " (\(information) info)"
        let summary = errors + warnings == 0 ? "\(name.escapingControlCharacters): no problems found\(notes)"
            : "\(name.escapingControlCharacters): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\(notes)"
        return findings.map(\.text).joined() + summary + "\n"
    }

    /// JSON Lines: one object per finding (``DoctorFinding/json``), then
    /// `{"summary": {"errors": …, "warnings": …, "info": …}}`.
    public var jsonLines: String {
        let summary = JSONValue.object([("summary", .object([("errors", .number(errors)), ("warnings", .number(warnings)),
                                                             ("info", .number(information))]))])
        return (findings.map(\.json) + [summary]).map { $0.text + "\n" }.joined()
    }
}

extension DoctorFinding {
    /// `error[code] access unit 3, byte 1234: message (clause)`, a count when repeated, then
    /// `  fix: command` when there is one; control characters escaped.
    public var text: String {
        var place: [String] = []
        if let accessUnit { place.append("access unit \(accessUnit)") }
        if let byteOffset { place.append("byte \(byteOffset)") }
        var line = "\(severity.rawValue)[\(code.rawValue)] "
        if !place.isEmpty { line += place.joined(separator: ", ") + ": " }
        line += "\(message.escapingControlCharacters) (\(clause))"
        if count > 1 { line += " [\(count) times]" }
        line += "\n"
        if let fix { line += "  fix: \(fix.escapingControlCharacters)\n" }
        return line
    }

    /// One object: `severity`, `code`, `message`, `access_unit`, `byte_offset`, `clause`, `fix`,
    /// `count`.
    public var json: JSONValue {
        .object([
            ("severity", .string(severity.rawValue)),
            ("code", .string(code.rawValue)),
            ("message", .string(message)),
            ("access_unit", accessUnit.map { .number($0) } ?? .null),
            ("byte_offset", byteOffset.map { .number($0) } ?? .null),
            ("clause", .string(clause)),
            ("fix", fix.map { .string($0) } ?? .null),
            ("count", .number(count)),
        ])
    }
}

extension String {
    /// The text with control characters (C0, DEL, C1: what a terminal takes for escape
    /// sequences, e.g. from a playlist's URIs) written `\u001b` as JSON strings write them, so
    /// `nalu doctor`'s text output shows them instead of obeying them.
    var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.isControlCharacter {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0 (below 0x20), DEL (0x7F) and C1 (0x80 to 0x9F).
    var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
