import ArgumentParser

/// The two command lines whose start time matters most, recognised without ArgumentParser.
///
/// ArgumentParser finds a command's options by reflection: `Mirror` over every command in the
/// tree, generic metadata for each `@Option`, protocol-conformance scans (and the same again for
/// its `--generate-completion-script` check). That is ~1.2 ms of the ~4.7 ms `nalu info clip.h264`
/// takes (Docs/performance.md, "Startup"). These exact shapes are what it would parse into; every
/// other command line, including any with an option, goes to ArgumentParser unchanged.
enum FastPath {
    /// What `arguments` (without the program name) mean, when they are one of the fast shapes.
    enum Parsed {
        /// `nalu --version`: print the version, exit 0.
        case version(String)
        /// `nalu info FILE`, FILE not an option, not `-` and not `help`.
        case command(any ParsableCommand)
    }

    static func parse(_ arguments: [String]) -> Parsed? {
        if arguments == ["--version"], let version = Nalu.configuration.version.nonEmpty {
            return .version(version)
        }
        if arguments.count == 2, arguments[0] == "info", isPlainValue(arguments[1]) {
            return .command(Info(input: arguments[1]))
        }
        return nil
    }

    /// A positional value ArgumentParser takes as is: not an option (`-x`, `--x`, `-`, `--`), and
    /// not `help`, which it may read as the help subcommand.
    static func isPlainValue(_ argument: String) -> Bool {
        !argument.isEmpty && !argument.hasPrefix("-") && argument != "help"
    }
}

extension Info {
    /// `nalu info FILE`, every option at its default: what ArgumentParser decodes from it.
    init(input: String) {
        self.init()
        inputOptions = InputOptions(input: input)
        json = false
    }
}

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
    /// an option added to `Info` or `InputOptions` but not to the initialisers above would be
    /// left undecoded here, and fails this check instead of reading as an unparsed wrapper.
    static func check(_ parsed: any ParsableCommand, arguments: [String]) {
        let reference = try? Nalu.parseAsRoot(arguments)
        let fast = String(reflecting: parsed), slow = reference.map { String(reflecting: $0) } ?? "a parse error"
        precondition(fast == slow, "FastPath: \(arguments) parsed as \(fast), ArgumentParser parses \(slow)")
    }
}
#endif
