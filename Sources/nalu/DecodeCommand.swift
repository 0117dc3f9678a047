import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport

/// `nalu decode` (issue 33): decodes any input nalu reads to raw YUV or Y4M.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode H.264/H.265 to raw YUV or Y4M (libavcodec or libde265).",
        discussion: """
        Reads any input nalu reads (Annex-B, length-prefixed, MP4/MOV, MPEG-TS), decodes it with \
        libavcodec (--decoder avcodec, H.264 and H.265, the default) or libde265 (--decoder de265, \
        H.265, LGPL), and writes the frames in presentation order: raw planes (-o x.yuv or -, \
        byte for byte what `ffmpeg -i IN -f rawvideo -pix_fmt F` writes) or YUV4MPEG2 (-o x.y4m: \
        size, frame rate, chroma format and colour range in the header). The decoder libraries \
        are opened at first use; a missing one exits 69 naming its package. A decoder error \
        inside a picture is a warning naming the access unit and byte offset; access units that \
        could not be decoded at all make the exit status 65.
        """
    )

    @OptionGroup var inputOptions: InputOptions
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output: raw planes (.yuv, or - for standard output, the default when it is a pipe) or .y4m.", valueName: "file"))
    var outputArgument: String?
    @Option(name: .customLong("pix-fmt"), help: ArgumentHelp("Output pixel format (ffmpeg's names): the decoded one (default), or its semi-planar form (nv12 for yuv420p, p010le for yuv420p10le).", valueName: "format"))
    var pixFmt: String?
    @Option(help: ArgumentHelp("Stop after this many frames.", valueName: "n"))
    var frames: Int?
    @Option(help: "Decoder library: avcodec (H.264 and H.265, default) or de265 (H.265 only).")
    var decoder: DecoderName = .avcodec
    @Option(help: ArgumentHelp("Decoding threads (0: one per core).", valueName: "n"))
    var threads: Int = 0

    var output: String { outputArgument ?? "-" }

    func validate() throws {
        if let frames, frames < 0 { throw ValidationError("--frames must be 0 or more.") }
        if threads < 0 || threads > 64 { throw ValidationError("--threads must be 0…64.") }
        if let pixFmt, PixelFormat(name: pixFmt) == nil {
            throw ValidationError("--pix-fmt \(pixFmt): unknown; one of \(PixelFormat.allCases.map(\.ffmpegName).joined(separator: ", ")).")
        }
    }

    func run() throws {
        let source = try inputOptions.openSource()
        let decoding = try commandLine(input: inputOptions.input) {
            try InputDecoder(path: inputOptions.input, source: source, factory: decoder.factory, threadCount: threads)
        }
        _ = try commandLine(input: inputOptions.input) {
            try decoding.write(to: output, pixelFormat: pixFmt.flatMap { PixelFormat(name: $0) }, frames: frames,
                               warning: { StandardError.write("nalu: warning: \($0)\n") })
        }
    }
}

extension Decode: CommandIO {
    var inputArgument: String? { inputOptions.inputArgument }
    var otherInputs: [String] { inputOptions.extradata.map { [$0] } ?? [] }
    var outputs: [(option: String, path: String)] { [("-o", output)] }
    var writesBinary: Bool { true }
    var example: String { "nalu decode clip.mp4 -o clip.y4m, or nalu decode clip.h264 | ffplay -f rawvideo …" }
}
