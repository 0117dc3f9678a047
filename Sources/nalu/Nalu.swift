import ArgumentParser
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
        subcommands: [Info.self, Nals.self, Keyframes.self, Convert.self, Extradata.self, Encode.self]
    )

    /// Runs the command. Errors from parsing the arguments exit as ArgumentParser does (64 for
    /// usage errors); errors from the work itself print `nalu: error: …` and exit with status 1.
    static func main() {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch {
            // ArgumentParser's own errors (help, version, validation, ExitCode) keep their
            // behaviour; anything else is a failure of the work itself.
            guard exitCode(for: error) == .failure, !(error is ExitCode) else { exit(withError: error) }
            StandardError.write("nalu: error: \(error)\n")
            exitProcess(1)
        }
    }
}
