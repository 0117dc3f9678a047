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
    @Argument(help: ArgumentHelp("Input stream (Annex-B or length-prefixed), or - for standard input (the default when it is a pipe).", valueName: "file"))
    var inputArgument: String?

    @Option(help: "Codec of the input (h264|hevc); detected from the NAL headers when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("Length-prefixed input: bytes in each NAL length field (1|2|4). Implies length-prefixed framing.", valueName: "n"))
    var lengthSize: Int?

    @Option(help: ArgumentHelp("avcC/hvcC record with the parameter sets of length-prefixed input (implies length-prefixed framing).", valueName: "file"))
    var extradata: String?

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

    /// The record given with `--extradata`, parsed.
    func record() throws -> DecoderConfigurationRecord? {
        try extradata.map { try loadDecoderConfigurationRecord($0, codec: codec?.codec) }
    }

    /// Opens the input and detects what is not given; `record` (from `--extradata`) fixes the
    /// codec and length size.
    func openReader(record: DecoderConfigurationRecord? = nil) throws -> ElementaryStreamReader<FileSource> {
        let source = try FileSource(path: input)
        let format: StreamFormat? = lengthSize != nil || record != nil ? .lengthPrefixed : nil
        let length = lengthSize ?? record?.lengthSize
        let knownCodec = codec?.codec ?? record?.codec
        do {
            return try ElementaryStreamReader(source, format: format, lengthSize: length, codec: knownCodec)
        } catch let error as NALUError where error.code == .unrecognisedFormat && error.field == "codec" {
            guard let hinted = codecFromExtension else { throw error }
            return try ElementaryStreamReader(try FileSource(path: input), format: format, lengthSize: length, codec: hinted)
        }
    }

    /// A splitter that knows the record's parameter sets.
    func splitter(for codec: Codec, record: DecoderConfigurationRecord?) throws -> AccessUnitSplitter {
        var splitter = AccessUnitSplitter(codec: codec)
        for unit in record?.parameterSets ?? [] { try splitter.addParameterSet(unit) }
        return splitter
    }
}

/// Reads and parses an avcC/hvcC record file; errors name the file.
func loadDecoderConfigurationRecord(_ path: String, codec: Codec?) throws -> DecoderConfigurationRecord {
    let bytes = try readWholeFile(path, limit: 1 << 20)
    do {
        if let codec { return try DecoderConfigurationRecord(parsing: bytes, codec: codec) }
        return try DecoderConfigurationRecord(parsing: bytes)
    } catch {
        throw NALUError(error.code, field: "\(path): \(error.field)", byteOffset: error.byteOffset, detail: error.detail)
    }
}
