import ArgumentParser

/// The command lines whose start time matters most, recognised without ArgumentParser.
///
/// ArgumentParser finds a command's options by reflection: `Mirror` over every command in the
/// tree, generic metadata for each `@Option`, protocol-conformance scans (and the same again for
/// its `--generate-completion-script` check). That is ~1.3 ms of the ~4.7 ms `nalu info clip.h264`
/// takes (Docs/performance.md, "Startup"). These exact shapes are what it would parse into; every
/// other command line, including any with another option, goes to ArgumentParser: from the
/// subcommand (``parseSubcommand(_:)``), or from `nalu` when that does not parse.
enum FastPath {
    /// What `arguments` (without the program name) mean, when they are one of the fast shapes.
    enum Parsed {
        /// `nalu --version`: print the version, exit 0.
        case version(String)
        /// `nalu info|nals|keyframes [--json] FILE` (`--json` before or after FILE), FILE not an
        /// option, not `-` and not `help`; `nalu convert` with only FILE, `--to`, `-o`,
        /// `--extradata` and `--extradata-out` (``parseConvert(_:)``).
        case command(any ParsableCommand)
    }

    /// The command whose only options are ``InputOptions`` and `--json`, by name (a switch, not
    /// a dictionary of existential metatypes, whose first use costs conformance lookups).
    static func inputCommand(_ name: String) -> (any InputAndJSONCommand.Type)? {
        switch name {
        case "info": Info.self
        case "nals": Nals.self
        case "keyframes": Keyframes.self
        default: nil
        }
    }

    static func parse(_ arguments: [String]) -> Parsed? {
        if arguments == ["--version"], let version = Nalu.configuration.version.nonEmpty {
            return .version(version)
        }
        if arguments.first == "convert" { return parseConvert(arguments.dropFirst()).map { .command($0) } }
        guard let name = arguments.first, let command = inputCommand(name) else { return nil }
        var rest = arguments.dropFirst()
        let json = rest.count == 2 && (rest.first == "--json" || rest.last == "--json")
        if json { rest.removeAll { $0 == "--json" } }
        guard rest.count == 1, let input = rest.first, isPlainValue(input) else { return nil }
        return .command(command.init(input: input, json: json))
    }

    /// Any other `nalu <subcommand> …` line, parsed by ArgumentParser with the subcommand as the
    /// root of its own tree (`Convert.parseAsRoot(rest)`): every option, default and `validate()`
    /// is ArgumentParser's, but the `nalu` level is skipped, which builds the subcommand's
    /// argument set once more (its `includesPassthroughArguments` check) and decodes the root.
    /// `nil` (parse the whole line from `nalu` as before) for a line that does not parse this
    /// way, so every error message, usage line and exit status stays the full parser's, and for
    /// lines with what ArgumentParser answers by the tree (help, version, completion scripts).
    static func parseSubcommand(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first,
              let type = Nalu.configuration.subcommands.first(where: { $0._commandName == name }) else { return nil }
        let rest = Array(arguments.dropFirst())
        guard !rest.contains(where: isTreeRequest) else { return nil }
        return try? type.parseAsRoot(rest)
    }

    /// What ArgumentParser answers from the command tree rather than the subcommand: `help`,
    /// `-h`, `--help`, `--version`, `--generate-completion-script`, `--experimental-…`.
    static func isTreeRequest(_ argument: String) -> Bool {
        argument == "help" || argument == "-h" || argument == "--help" || argument == "--version"
            || argument.hasPrefix("--generate-completion-script") || argument.hasPrefix("--experimental")
    }

    /// A positional value ArgumentParser takes as is: not an option (`-x`, `--x`, `-`, `--`), and
    /// not `help`, which it may read as the help subcommand.
    static func isPlainValue(_ argument: String) -> Bool {
        !argument.isEmpty && !argument.hasPrefix("-") && argument != "help"
    }
}

/// A command whose options are the input's and `--json`, nothing else.
protocol InputAndJSONCommand: ParsableCommand {
    var inputOptions: InputOptions { get set }
    var json: Bool { get set }
}

extension InputAndJSONCommand {
    /// `nalu <command> [--json] FILE`, every other option at its default: what ArgumentParser
    /// decodes from it.
    init(input: String, json: Bool) {
        self.init()
        inputOptions = InputOptions(input: input)
        self.json = json
    }
}

extension Info: InputAndJSONCommand {}
extension Nals: InputAndJSONCommand {}
extension Keyframes: InputAndJSONCommand {}

extension InputOptions {
    /// The input FILE, every option at its default (none given).
    init(input: String) {
        self.init()
        inputArgument = input
        codec = nil
        lengthSize = nil
        extradata = nil
        pid = nil
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

#if DEBUG
extension FastPath {
    /// Debug builds (what the CLI tests run) check every fast parse against ArgumentParser's:
    /// an option added to one of these commands or to `InputOptions` but not to the initialisers
    /// above would be left undecoded here, and fails this check instead of reading as an unparsed
    /// wrapper.
    static func check(_ parsed: any ParsableCommand, arguments: [String]) {
        let reference = try? Nalu.parseAsRoot(arguments)
        let fast = String(reflecting: parsed), slow = reference.map { String(reflecting: $0) } ?? "a parse error"
        precondition(fast == slow, "FastPath: \(arguments) parsed as \(fast), ArgumentParser parses \(slow)")
    }
}
#endif
