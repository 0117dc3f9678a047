import ArgumentParser
import NALU
import NALUIO

/// `--codec h264|hevc`.
enum CodecOption: String, ExpressibleByArgument, CaseIterable {
    case h264, hevc

    var codec: Codec { self == .h264 ? .h264 : .hevc }
}

/// Options shared by every command that reads an elementary stream.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Input stream (Annex-B or length-prefixed), or - for standard input.", valueName: "file"))
    var input: String

    @Option(help: "Codec of the input (h264|hevc); detected from the NAL headers when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("Length-prefixed input: bytes in each NAL length field (1|2|4). Implies length-prefixed framing.", valueName: "n"))
    var lengthSize: Int?

    func validate() throws {
        if let lengthSize, ![1, 2, 4].contains(lengthSize) {
            throw ValidationError("--length-size must be 1, 2 or 4 (3 is reserved by ISO/IEC 14496-15).")
        }
    }

    /// The codec suggested by the file name, if any (`.h264`/`.264`/`.avc` or `.h265`/`.265`/`.hevc`).
    var codecFromExtension: Codec? {
        let lower = input.lowercased()
        if [".h264", ".264", ".avc", ".jsv", ".26l"].contains(where: lower.hasSuffix) { return .h264 }
        if [".h265", ".265", ".hevc", ".bit"].contains(where: lower.hasSuffix) { return .hevc }
        return nil
    }

    /// Opens the input and detects what is not given.
    func openReader() throws -> ElementaryStreamReader<FileSource> {
        let source = try FileSource(path: input)
        let format: StreamFormat? = lengthSize != nil ? .lengthPrefixed : nil
        do {
            return try ElementaryStreamReader(source, format: format, lengthSize: lengthSize, codec: codec?.codec)
        } catch let error as NALUError where error.code == .unrecognisedFormat && error.field == "codec" {
            guard let hinted = codecFromExtension else { throw error }
            return try ElementaryStreamReader(try FileSource(path: input), format: format, lengthSize: lengthSize, codec: hinted)
        }
    }
}

/// Buffered standard output.
final class StandardOutput {
    private let sink: FileSink

    init() throws { sink = try FileSink(path: "-", bufferSize: 1 << 16) }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
    }

    func line(_ text: String) throws { try write(text + "\n") }

    func flush() throws { try sink.drain() }

    deinit { try? sink.drain() }
}
