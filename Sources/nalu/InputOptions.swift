import ArgumentParser
import NALU
import NALUIO
import NALUMedia
import NALUTS

/// `--codec h264|hevc`.
enum CodecOption: String, ExpressibleByArgument, CaseIterable {
    case h264, hevc

    var codec: Codec { self == .h264 ? .h264 : .hevc }
}

/// Options shared by every command that reads an elementary stream.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Input stream Annex-B, length-prefixed, MP4/MOV or MPEG-TS (told by content), or - for standard input (the default when it is a pipe).", valueName: "file"))
    var inputArgument: String?

    @Option(help: "Codec of the input (h264|hevc); detected from the NAL headers when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("Length-prefixed input: bytes in each NAL length field (1|2|4). Implies length-prefixed framing.", valueName: "n"))
    var lengthSize: Int?

    @Option(help: ArgumentHelp("avcC/hvcC record with the parameter sets of length-prefixed input (implies length-prefixed framing).", valueName: "file"))
    var extradata: String?

    @Option(help: ArgumentHelp("MPEG-TS input: the PID of the video stream to read (decimal or 0x hex); default the first H.264/H.265 stream of the PMT.", valueName: "pid"))
    var pid: PIDOption?

    func validate() throws {
        if let lengthSize, ![1, 2, 4].contains(lengthSize) {
            throw ValidationError("--length-size must be 1, 2 or 4 (3 is reserved by ISO/IEC 14496-15).")
        }
    }

    /// The record given with `--extradata`, parsed.
    func record() throws -> DecoderConfigurationRecord? {
        try extradata.map { try DecoderConfigurationRecord(contentsOf: $0, codec: codec?.codec) }
    }

    /// Opens the input once: its container (Annex-B, length-prefixed, MP4/MOV) from its content.
    func openSource() throws -> MediaSource {
        try openMediaSource(input, MediaSourceOptions(codec: codec?.codec, lengthSize: lengthSize, record: try record(), pid: pid?.value))
    }
}

/// Opens `path` as a ``MediaSource``; options that contradict the input (the library names the
/// option as the error's field) are usage errors.
func openMediaSource(_ path: String, _ options: MediaSourceOptions) throws -> MediaSource {
    var options = options
    // A transport stream's damage is stepped over, not fatal: said on standard error.
    options.onTransportStreamWarning = { warning in StandardError.write("nalu: warning: \(path): \(warning)\n") }
    do {
        return try MediaSource(path: path, options: options)
    } catch {
        // `MediaSource.init` throws `NALUError` (typed).
        guard error.code == .invalidValue, error.field.hasPrefix("--") else { throw error }
        throw ValidationError("\(error.field): \(error.detail ?? "does not apply to this input")")
    }
}

/// `--pid N`: a transport stream PID, decimal or `0x` hexadecimal, 0…0x1FFF (``NALUTS/TransportStream/pid(parsing:)``).
struct PIDOption: ExpressibleByArgument {
    let value: UInt16

    init?(argument: String) {
        guard let pid = TransportStream.pid(parsing: argument) else { return nil }
        value = pid
    }
}
