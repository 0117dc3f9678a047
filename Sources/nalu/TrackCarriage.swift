import ArgumentParser
import NALU
import NALUExport
import NALUMedia
import NALUTS

/// Audio an output could not hold although `--no-audio` was not given, subtitle, timecode and
/// data tracks not carried, or programs of a transport stream input not read although `--pid`
/// did not choose one (``NALUExport/CarriageLoss``): the output is written, then ``fail()``
/// exits with status 2 (Docs/cli.md), so a script sees the loss.
typealias NotCarried = CarriageLoss

extension CarriageLoss {
    static let status: Int32 = 2

    func fail() throws { throw CLIError(input, message, hint: hint, status: Self.status) }

    /// ``fail()``, unless `--no-other-tracks` left the other video tracks and data streams out on
    /// purpose (a note names them) and nothing else is lost.
    func fail(noOtherTracks: Bool) throws {
        guard noOtherTracks, !unheld.isEmpty else { return try fail() }
        StandardError.write("nalu: note: \(input): \(unheld.joined(separator: ", ")) not carried (--no-other-tracks)\n")
        try leavingOutOtherTracks()?.fail()
    }
}

extension OutputFraming {
    /// The library's output format for this framing with the MP4 options given (`frameRate`:
    /// `--fps`, where the output has no times of its own).
    func format(_ mp4: MP4OutputOptions, frameRate: Rational? = nil) -> CutOutputFormat {
        cutOutputFormat(mp4: mp4.muxerOptions(frameRate: frameRate), maxAccessUnitSize: mp4.maxAccessUnitSize, frameRate: frameRate)
    }
}

/// Prints a cut's or join's notes and warnings, its summary with `--verbose`; exit status 2 for what it did not carry.
func report(_ result: CutResult, verbose: Bool, noOtherTracks: Bool) throws {
    for message in result.messages { StandardError.write("nalu: \(message.kind): \(message.text)\n") }
    if verbose { StandardError.write("nalu: \(result.summary)\n") }
    try result.loss?.fail(noOtherTracks: noOtherTracks)
}

/// `--no-other-tracks`, beside `--no-audio` on the commands that cut, join and convert.
struct OtherTracksOption: ParsableArguments {
    @Flag(name: .customLong("no-other-tracks"),
          help: "Leave other video tracks and a transport stream's data streams out on purpose (exit 0); else not carrying them is exit status 2.")
    var noOtherTracks = false
}

/// Runs a library call, its errors about an option (field `--start`…) as usage errors: `opening` inputs, an option that
/// does not apply to them (standard input that must be a file, two codecs: 65); else a value the input refutes (an empty range).
func mappingOptionErrors<T>(opening: Bool = false, _ body: () throws -> T) throws -> T {
    do {
        return try ExportError.unwrapping(body)
    } catch let error as NALUError where opening && error.field == "concat" {
        throw CLIError("concat", error.detail ?? "the inputs differ", status: ExitStatus.dataError)
    } catch let error as NALUError where opening && error.field == "standard input" {
        throw CLIError.usage("standard input", error.detail ?? "read twice", hint: "give it as a file; MP4 may come through a pipe")
    } catch let error as NALUError where opening && error.code == .invalidValue && error.field.hasPrefix("--") {
        throw ValidationError("\(error.field): \(error.detail ?? "does not apply to this input")")
    } catch let error as NALUError where !opening && error.field.hasPrefix("--") {
        throw CLIError.usage(error.field, error.detail ?? "\(error.code)")
    }
}
