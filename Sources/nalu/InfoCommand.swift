import ArgumentParser
import NALUMedia

/// `nalu info`: what a stream is, in one screen or one JSON object.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Summarise a stream: format, codec, profile, level, size, chroma, bit depth, frame rate, NAL and access-unit counts.",
        discussion: "Reads the whole stream once, in constant memory: Annex-B, length-prefixed or MP4/MOV (told by content, also on standard input); parameter sets are taken from the last SPS seen (and its VPS/PPS)."
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let report = try StreamInfoReport(source: try inputOptions.openSource())
        let out = try StandardOutput()
        if json { try out.line(report.json.prettyText) } else { try out.write(report.text) }
        try out.flush()
    }
}
