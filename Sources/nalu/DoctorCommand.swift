public import ArgumentParser
import NALUDoctor
import NALUMedia

/// `--target apple|web|broadcast`.
extension DoctorTarget: ExpressibleByArgument {}

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
    var target: DoctorTarget?

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
            findings = try PackageDoctor(target: target).examine(package)
        } else {
            let source = try inputOptions.openSource()
            findings = try Doctor(target: target, inputName: inputOptions.input == "-" ? "in.\(source.defaultExtension)" : inputOptions.input)
                .examine(source)
            if decode { findings += try DecodeCheck.run(inputOptions, decoder: decoder) }
        }
        let report = DoctorReport(findings: findings)
        let out = try StandardOutput()
        try out.write(json ? report.jsonLines : report.text(inputName: inputOptions.input == "-" ? "standard input" : inputOptions.input))
        try out.flush()
        if report.errors > 0 { throw ExitCode(Self.errorsFound) }
    }
}

extension DoctorCommand: InputOptionsCommand {
    /// `--encoders` reads nothing.
    var inputIsOptional: Bool { !encoders }
    var example: String { "nalu doctor clip.mp4, or cat clip.h264 | nalu doctor" }
    /// A streaming package: its folder.
    var inputMayBeFolder: Bool { true }
}
