import ArgumentParser
import NALU

extension FastPath {
    /// `nalu convert [--to FRAMING] FILE [-o|--output OUT] [--extradata RECORD]
    /// [--extradata-out RECORD]` in any order, each at most once, every path a plain value (not
    /// an option, not `-`, not `help`), FRAMING one of `--to`'s values: what ArgumentParser
    /// decodes from it, every other option at its default, checked by the command's own
    /// `validate()`. `nil` for any other line (another option, a pipe, a value ArgumentParser
    /// would refuse, a combination `validate()` refuses), which then goes to ArgumentParser with
    /// its messages.
    ///
    /// Convert is the command run most often on many files; this skips ArgumentParser's
    /// reflection over its 16 options (Docs/performance.md, "Startup").
    static func parseConvert(_ arguments: ArraySlice<String>) -> Convert? {
        var command = Convert(defaults: ())
        var framing: String?
        var rest = arguments
        /// Takes the value after an option into `slot`, once.
        func take(_ slot: inout String?) -> Bool {
            guard slot == nil, let value = rest.popFirst(), isPlainValue(value) else { return false }
            slot = value
            return true
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--to": guard take(&framing) else { return nil }
            case "-o", "--output": guard take(&command.outputArgument) else { return nil }
            case "--extradata": guard take(&command.extradata) else { return nil }
            case "--extradata-out": guard take(&command.extradataOut) else { return nil }
            default:
                guard command.inputArgument == nil, isPlainValue(argument) else { return nil }
                command.inputArgument = argument
            }
        }
        if let framing {
            guard let parsed = OutputFraming(argument: framing) else { return nil }
            command.toOption = parsed
        }
        guard command.inputArgument != nil else { return nil }
        do { try command.validate(); try command.mp4.validate() } catch { return nil }
        return command
    }
}

extension Convert {
    /// `nalu convert` with every option at its default (none given, no input): what
    /// ArgumentParser decodes from an empty line.
    init(defaults: Void) {
        self.init()
        inputArgument = nil
        toOption = nil
        outputArgument = nil
        codec = nil
        lengthSize = nil
        inputLengthSize = nil
        extradata = nil
        pid = nil
        extradataOut = nil
        keepParameterSets = false
        aud = .keep
        parameterSets = .keyframes
        fps = nil
        mp4 = MP4OutputOptions(defaults: ())
        noAudio = false
        verbose = false
    }
}

extension MP4OutputOptions {
    /// Every option at its default (none given).
    init(defaults: Void) {
        self.init()
        faststart = false
        fragmented = false
        sampleEntryOption = nil
        maxAccessUnitSize = AccessUnitLimit.defaultMaxBytes
    }
}
