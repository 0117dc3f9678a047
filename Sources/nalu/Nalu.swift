import ArgumentParser
import NALUExport
import NALUIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `nalu` command: inspect, convert and encode H.264/H.265 elementary streams.
@main
struct Nalu: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nalu",
        abstract: "Inspect, convert and encode H.264/AVC and H.265/HEVC elementary streams.",
        version: "0.1.0",
        subcommands: [Info.self, Nals.self, Keyframes.self, Convert.self, Extradata.self, Trim.self, Concat.self, Edit.self,
                      Encode.self, DoctorCommand.self, Decode.self, Compare.self, PackageCommand.self,
                      RtpCommand.self, RecordCommand.self]
    )

    /// Runs the command: parses the arguments, checks inputs and outputs (``Preflight``), runs
    /// it. Every error prints `nalu: error: <subject>: <what>` (a `hint:` line where one helps,
    /// the usage line for usage errors) and exits with a sysexits status (``ExitStatus``);
    /// signals exit with 128 + their number (``Signals``).
    static func main() {
        StandardDescriptors.openClosedOnes()
        Signals.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "help", arguments.count > 1,
           !configuration.subcommands.contains(where: { $0._commandName == arguments[1] }) {
            Failure.exit(CLIError.usage(arguments[1], "no such subcommand",
                                        hint: "one of " + configuration.subcommands.map { $0._commandName }.joined(separator: ", ")))
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            Failure.exitForParse(error)
        }
        Failure.commandType = type(of: command)
        do {
            if let io = command as? any CommandIO { try Preflight.check(io) }
            try command.run()
        } catch {
            // A stage's error carried by an `ExportError` (typed throws): as the stage threw it.
            let error = ExportError.cause(of: error)
            // ArgumentParser's own outcomes (help, version, its errors) as when parsing.
            if !(error is ValidationError || error is ExitCode), exitCode(for: error) != .failure { Failure.exitForParse(error) }
            Failure.exit(error)
        }
    }
}
