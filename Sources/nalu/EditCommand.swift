import ArgumentParser
import NALU
import NALUIO
import NALUMP4
import NALUExport
import NALUMedia
import NALUTS

/// `--color-range tv|pc`.
enum ColourRangeOption: String, ExpressibleByArgument, CaseIterable {
    case tv, pc
}

/// `--aud insert|strip` of `nalu edit`.
enum EditAUDOption: String, ExpressibleByArgument, CaseIterable {
    case insert, strip
}

/// `nalu edit`: rewrite VUI/level/cropping, delimiters, SEI and filler, pictures untouched.
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit stream metadata (colour, range, SAR, frame rate, level, cropping, AUD, SEI, filler) without re-encoding.",
        discussion: """
        What FFmpeg's h264_metadata / hevc_metadata bitstream filters do, streaming: every SPS (and \
        H.265 VPS) is parsed, edited and written back with a bit writer (other fields bit-exact), in \
        band and in the avcC/hvcC record of MP4 or --extradata input; the pictures are untouched. \
        Colour names are ffprobe's (bt709, smpte170m, bt470bg, bt2020, bt2020nc, smpte2084, \
        arib-std-b67, …) or code points. --crop L,R,T,B is in luma samples from the coded picture's \
        edges (a multiple of the chroma subsampling). The output framing is --to, else what the \
        output's name says (.h264/.h265: Annex-B, .mp4/.mov: MP4), else the input's.
        """
    )

    @Argument(help: ArgumentHelp("Input stream (Annex-B, length-prefixed with --extradata, MP4/MOV), or - for standard input.", valueName: "input"))
    var inputArgument: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file, or - for standard output.", valueName: "file"))
    var outputArgument: String?

    @Option(name: .customLong("to"), help: "Output: annexb, avcc, mp4, ts or m2ts (default: from the output's name, else the input's framing).")
    var toOption: OutputFraming?

    @Option(help: "Codec of the input (h264|hevc); detected when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("avcC/hvcC record of length-prefixed input.", valueName: "file"))
    var extradata: String?

    @Option(help: ArgumentHelp("Write the edited avcC/hvcC record here (avcc output).", valueName: "file"))
    var extradataOut: String?

    @Option(help: ArgumentHelp("Bytes per NAL length of length-prefixed input (default: from --extradata, or 4).", valueName: "n"))
    var lengthSize: Int?

    @Option(name: .customLong("color-primaries"), help: ArgumentHelp("colour_primaries: bt709, bt470bg, smpte170m, bt2020, … or 0-255.", valueName: "name"))
    var colorPrimaries: String?

    @Option(name: .customLong("color-transfer"), help: ArgumentHelp("transfer_characteristics: bt709, smpte2084, arib-std-b67, … or 0-255.", valueName: "name"))
    var colorTransfer: String?

    @Option(name: .customLong("color-space"), help: ArgumentHelp("matrix_coefficients: bt709, bt470bg, smpte170m, bt2020nc, … or 0-255.", valueName: "name"))
    var colorSpace: String?

    @Option(name: .customLong("color-range"), help: "video_full_range_flag: tv (limited) or pc (full).")
    var colorRange: ColourRangeOption?

    @Option(help: ArgumentHelp("Sample aspect ratio, e.g. 1:1, 4:3, 40:33.", valueName: "N:D"))
    var sar: String?

    @Option(help: ArgumentHelp("Frame rate written in the VUI (and H.265 VPS) timing: 25, 29.97, 30000/1001.", valueName: "rate"))
    var fps: FrameRate?

    @Option(help: ArgumentHelp("Level: 3, 3.1, 4.1, 1b (H.264); warns when the stream exceeds it.", valueName: "X.Y"))
    var level: String?

    @Option(help: ArgumentHelp("Cropping in luma samples from the coded picture's left, right, top, bottom edges.", valueName: "L,R,T,B"))
    var crop: String?

    @Option(help: "Access unit delimiters: insert (Annex-B output) or strip.")
    var aud: EditAUDOption?

    @Option(help: ArgumentHelp("SEI: strip (all), strip=TYPES or keep=TYPES (payload type numbers or names, comma-separated).", valueName: "mode"))
    var sei: String?

    @Flag(help: "Remove filler data NAL units and filler payload SEI messages.")
    var stripFiller = false

    @Flag(help: "MP4/MOV input: leave the audio out (MP4 output copies the other tracks unchanged, MPEG-TS output every AAC, AC-3 and MPEG audio track; elementary output cannot hold audio and exits 2 without this flag).")
    var noAudio = false
    @OptionGroup var otherTracks: OtherTracksOption

    @OptionGroup var mp4: MP4OutputOptions

    @Flag(help: "Print what was done to standard error.")
    var verbose = false

    func validate() throws {
        if let lengthSize, ![1, 2, 4].contains(lengthSize) {
            throw ValidationError("--length-size must be 1, 2 or 4 (3 is reserved by ISO/IEC 14496-15).")
        }
        _ = try options()
    }

    /// The edits the options ask for (the library reads each value).
    func options() throws -> StreamEditOptions {
        do {
            var edits = ParameterSetEdits()
            edits.colourPrimaries = try colorPrimaries.map { text throws(NALUError) in try ColourNames.codePoint(parsing: text, in: ColourNames.primaries, field: "--color-primaries") }
            edits.transferCharacteristics = try colorTransfer.map { text throws(NALUError) in try ColourNames.codePoint(parsing: text, in: ColourNames.transfer, field: "--color-transfer") }
            edits.matrixCoefficients = try colorSpace.map { text throws(NALUError) in try ColourNames.codePoint(parsing: text, in: ColourNames.space, field: "--color-space") }
            edits.fullRange = colorRange.map { $0 == .pc }
            edits.sampleAspectRatio = try sar.map { text throws(NALUError) in try ParameterSetEdits.sampleAspectRatio(parsing: text) }
            edits.frameRate = fps?.rational
            edits.level = try level.map { text throws(NALUError) in try ParameterSetEdits.Level(parsing: text) }
            edits.crop = try crop.map { text throws(NALUError) in try ParameterSetEdits.Crop(parsing: text) }
            let seiEdit = try sei.map { text throws(NALUError) in try SEIEdit(parsing: text) } ?? .keepAll
            return StreamEditOptions(parameterSets: edits, sei: seiEdit, stripFiller: stripFiller)
        } catch {
            throw CLIError.usage(error.field, error.detail ?? "not a value", hint: StreamEditing.hint(for: error))
        }
    }

    func run() throws {
        let options = try options()
        var record: DecoderConfigurationRecord?
        if let extradata { record = try DecoderConfigurationRecord(contentsOf: extradata, codec: codec?.codec) }
        var sourceOptions = MediaSourceOptions(codec: codec?.codec, lengthSize: lengthSize, record: record, codecFromFileName: false)
        sourceOptions.maxNALUnitSize = mp4.maxAccessUnitSize
        let source = try openMediaSource(input, sourceOptions)
        let to = OutputFraming(chosen: toOption, outputPath: outputArgument, input: source.container)
        if to == .mp4 { try mp4.check(codec: source.codec) }
        let delimiters = aud.flatMap { AccessUnitDelimiterPolicy(rawValue: $0.rawValue) } ?? .keep
        do {
            try StreamEditing.validate(format: to, accessUnitDelimiters: delimiters, writesRecord: extradataOut != nil)
        } catch {
            throw CLIError.usage(error.field, error.detail ?? "does not apply", hint: StreamEditing.hint(for: error))
        }
        // MP4 to MP4 copies the other tracks (not other video, and not the audio with
        // --no-audio); MP4 to MPEG-TS every AAC, AC-3 and MPEG audio track. What is left is named; audio left
        // without --no-audio makes the exit status 2 (``NotCarried``).
        let editing = try StreamEditing(source: source, outputPath: output, format: to, options: options, carriesAudio: !noAudio)
        let lost = source.carriageLoss(carried: editing.carried.trackIDs, noAudio: noAudio, to: to.carriageTarget, input: input)
        editing.accessUnitDelimiters = delimiters
        editing.writesRecord = extradataOut != nil
        editing.mp4 = mp4.muxerOptions(frameRate: nil)
        editing.maxAccessUnitSize = mp4.maxAccessUnitSize
        let file = try FileSink(path: output)
        // An edit that cannot be coded names its option: a usage error.
        let result = try mappingOptionErrors { try editing.run(output: file) }
        if let extradataOut, let bytes = result.report.record { try FileSink.writeWhole(bytes, to: extradataOut) }
        try file.commit()
        for warning in result.warnings { StandardError.write("nalu: warning: \(warning)\n") }
        for note in result.report.notes { StandardError.write("nalu: note: \(note)\n") }
        if verbose { StandardError.write("nalu: \(result.summary)\n") }
        try lost?.fail(noOtherTracks: otherTracks.noOtherTracks)
    }
}

extension Edit: CommandIO {
    var input: String { resolvedInputPath(inputArgument) }
    var output: String { outputArgument ?? "-" }
    var outputs: [(option: String, path: String)] {
        [("-o", output)] + (extradataOut.map { [("--extradata-out", $0)] } ?? [])
    }
    var otherInputs: [String] { extradata.map { [$0] } ?? [] }
    var writesBinary: Bool { true }
    var example: String { "nalu edit clip.h264 --color-primaries bt709 --color-transfer bt709 --color-space bt709 -o out.h264" }
}
