import ArgumentParser
import NALU

extension FastPath {
    /// `nalu convert [--to FRAMING] FILE [-o|--output OUT] [--extradata RECORD]
    /// [--extradata-out RECORD]` in any order, each at most once, every path a plain value (not
    /// an option, not `-`, not `help`), FRAMING one of `--to`'s values: what ArgumentParser decodes from it, every other option at its default, checked
    /// by the command's own `validate()`. `nil` for any other line (another option, a pipe, a
    /// value ArgumentParser would refuse, a combination `validate()` refuses), which then goes
    /// to ArgumentParser with its messages.
    ///
    /// Convert is the command run most often on many files; this skips ArgumentParser's
    /// reflection over its 16 options (Docs/performance.md, "Startup").
    static func parseConvert(_ arguments: ArraySlice<String>) -> Convert? {
        var input: String?
        var output: String?
        var framing: OutputFraming?
        var extradata: String?
        var extradataOut: String?
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--to":
                guard framing == nil, let value = rest.popFirst(), isPlainValue(value),
                      let parsed = OutputFraming(argument: value) else { return nil }
                framing = parsed
            case "-o", "--output":
                guard output == nil, let value = rest.popFirst(), isPlainValue(value) else { return nil }
                output = value
            case "--extradata":
                guard extradata == nil, let value = rest.popFirst(), isPlainValue(value) else { return nil }
                extradata = value
            case "--extradata-out":
                guard extradataOut == nil, let value = rest.popFirst(), isPlainValue(value) else { return nil }
                extradataOut = value
            default:
                guard input == nil, isPlainValue(argument) else { return nil }
                input = argument
            }
        }
        guard let input else { return nil }
        var command = Convert(input: input, to: framing, output: output)
        command.extradata = extradata
        command.extradataOut = extradataOut
        do { try command.validate(); try command.mp4.validate() } catch { return nil }
        return command
    }
}

extension Convert {
    /// `nalu convert [--to framing] input [-o output]`, every other option at its default: what
    /// ArgumentParser decodes from it.
    init(input: String, to framing: OutputFraming?, output: String?) {
        self.init()
        inputArgument = input
        toOption = framing
        outputArgument = output
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
