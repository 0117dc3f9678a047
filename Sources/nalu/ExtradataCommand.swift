public import ArgumentParser
import NALU
import NALUIO
public import NALUMedia

/// `--format avcc|hvcc|annexb` for `nalu extradata` (``NALUMedia/ExtradataFormat``).
extension ExtradataFormat: ExpressibleByArgument {}

/// `nalu extradata`: the decoder configuration record of a stream.
struct Extradata: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extradata",
        abstract: "Write a stream's parameter sets as an avcC/hvcC record (what MP4, VideoToolbox and WebCodecs call extradata or description) or as Annex-B.",
        discussion: "Reads until the first slice after a complete set (VPS, SPS, PPS) has been seen; the record is what FFmpeg's MP4 muxer writes for the stream. MP4/MOV input (told by content, also on standard input) gives its sample entry's sets first."
    )

    @OptionGroup var inputOptions: InputOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file, or - for standard output.", valueName: "file"))
    var output: String = "-"

    @Option(help: "avcc (avcC or hvcC record), hvcc (the same), or annexb (start-code delimited parameter sets).")
    var format: ExtradataFormat = .avcc

    @Flag(name: .customLong("hvc1"), help: "hvcC for the hvc1 sample entry: array_completeness 1 (the default).")
    var hvc1 = false

    @Flag(name: .customLong("hev1"), help: "hvcC for the hev1 sample entry: array_completeness 0 (parameter sets may also be in band).")
    var hev1 = false

    @Option(help: ArgumentHelp("lengthSizeMinusOne + 1 to write in the record (1, 2 or 4).", valueName: "n"))
    var recordLengthSize: Int = 4

    func validate() throws {
        if hvc1 && hev1 { throw ValidationError("--hvc1 and --hev1 are exclusive.") }
        if ![1, 2, 4].contains(recordLengthSize) { throw ValidationError("--record-length-size must be 1, 2 or 4.") }
    }

    func run() throws {
        let collector = try ParameterSetCollector.collect(try inputOptions.openSource())
        try FileSink.writeWhole(try collector.extradata(format, lengthSize: recordLengthSize, arrayCompleteness: !hev1), to: output)
    }
}
