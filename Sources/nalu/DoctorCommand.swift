import ArgumentParser
import NALU
import NALUMedia

/// `--target apple|web|broadcast`.
enum DoctorTargetOption: String, ExpressibleByArgument, CaseIterable {
    case apple, web, broadcast

    var target: DoctorTarget {
        switch self {
        case .apple: .apple
        case .web: .web
        case .broadcast: .broadcast
        }
    }
}

/// `nalu doctor`: what is wrong with a stream, where, which clause says so, and how to fix it.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Diagnose a stream: missing parameter sets, level limits, truncation, container timing, sample entries, colour and timing signalling.",
        discussion: """
        Each finding has a severity, a stable code, the access unit (decoding order, from 0) and \
        byte offset where it applies, the spec clause, and a nalu edit/convert command that fixes \
        it when one exists. A code found many times is shown once, at its first occurrence, with \
        the count. Exit status: 0 when there is no error (warnings allowed), 3 when there is at \
        least one error, the usual codes otherwise. The codes: Docs/doctor.md. Given a folder, an \
        .m3u8 or an .mpd, it checks the streaming package instead: files on disk, segment \
        durations, keyframes at segment starts, codec strings, hvc1, aligned renditions.
        """
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print JSON Lines: one object per finding (severity, code, message, access_unit, byte_offset, clause, fix, count), then a summary object.")
    var json = false

    @Option(help: "Add the checks of a destination: apple (hvc1, levels, profiles), web (browser profiles), broadcast (AUDs, fixed frame rate).")
    var target: DoctorTargetOption?

    @Flag(help: "Check the encoder libraries instead of a stream: whether libx264, libx265 and libopenh264 load (nalu encode opens them at first use), and what to install when one does not.")
    var encoders = false

    @Flag(help: "Also decode every picture (libavcodec, one thread) and report the decoder's errors as decode-error findings: a slice cut short or damaged.")
    var decode = false

    @Option(help: "Decoder library for --decode: avcodec (default) or de265 (H.265 only).")
    var decoder: DecoderName = .avcodec

    /// The exit status when at least one error is found.
    static let errorsFound: Int32 = 3

    func validate() throws {
        if encoders, inputOptions.inputArgument != nil || target != nil {
            throw ValidationError("--encoders checks the encoder libraries; it takes no input and no --target.")
        }
        if decode, encoders { throw ValidationError("--decode checks a stream; --encoders takes none.") }
        if decode, inputOptions.input == "-" {
            throw ValidationError("--decode reads the input twice; give a file, not standard input.")
        }
    }

    func run() throws {
        if encoders { return try EncoderLibraryCheck.run(json: json) }
        var findings: [DoctorFinding]
        if let package = inputOptions.inputArgument, PackageDoctor.isPackage(package) {
            // A streaming package: a folder, an HLS playlist or a DASH MPD.
            if decode { throw ValidationError("--decode checks a stream; \(package) is a streaming package.") }
            findings = try PackageDoctor(target: target?.target).examine(package)
        } else {
            let source = try inputOptions.openSource()
            findings = try Doctor(target: target?.target, inputName: inputOptions.input == "-" ? "in.\(source.defaultExtension)" : inputOptions.input)
                .examine(source)
            if decode { findings += try DecodeCheck.run(inputOptions, decoder: decoder) }
        }
        let out = try StandardOutput()
        let errors = findings.filter { $0.severity == .error }.count
        let information = findings.filter { $0.severity == .information }.count
        let warnings = findings.count - errors - information
        if json {
            for finding in findings { try out.line(finding.json.text) }
            try out.line(JSON.object([("summary", .object([("errors", .number(errors)), ("warnings", .number(warnings)),
                                                          ("info", .number(information))]))]).text)
        } else {
            for finding in findings { try out.write(finding.text) }
            let name = inputOptions.input == "-" ? "standard input" : inputOptions.input.escapingControlCharacters
            let notes = information == 0 ? "" : " (\(information) info)"
            try out.line(errors + warnings == 0 ? "\(name): no problems found\(notes)"
                         : "\(name): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\(notes)")
        }
        try out.flush()
        if errors > 0 { throw ExitCode(Self.errorsFound) }
    }
}

extension MediaSource {
    /// The extension a fix command names standard input by.
    var defaultExtension: String {
        if container.isMP4 { return "mp4" }
        return codec == .h264 ? "h264" : "h265"
    }
}

extension DoctorFinding {
    /// `error[code] access unit 3, byte 1234: message (clause)`, a count when repeated, then
    /// `  fix: command` when there is one.
    var text: String {
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

    var json: JSON {
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

extension DoctorCommand: CommandIO {
    var inputArgument: String? { inputOptions.inputArgument }
    /// `--encoders` reads nothing.
    var inputIsOptional: Bool { !encoders }
    var otherInputs: [String] { inputOptions.extradata.map { [$0] } ?? [] }
    var outputs: [(option: String, path: String)] { [("standard output", "-")] }
    var writesBinary: Bool { false }
    var example: String { "nalu doctor clip.mp4, or cat clip.h264 | nalu doctor" }
    /// A streaming package: its folder.
    var inputMayBeFolder: Bool { true }
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
