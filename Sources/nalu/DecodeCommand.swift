import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUIO
import NALUExport
import NALUMedia

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
        let decoding = try InputDecoder.opening(path: inputOptions.input, source: source, decoder: decoder, threadCount: threads)
        let sink = try FileSink(path: output)
        let y4m = output.lowercased().hasSuffix(".y4m")
        let requested = pixFmt.flatMap { PixelFormat(name: $0) }
        var written = 0
        var problems = 0
        var first: (width: Int, height: Int, format: PixelFormat)?
        var failure: (any Error)?
        do {
            if frames != 0 {
                try decoding.run(problem: { error in
                    problems += 1
                    if problems <= 20 { StandardError.write("nalu: warning: \(inputOptions.input): \(error)\n") }
                }) { frame in
                    try checkSameShape(frame, index: written, first: &first)
                    let format = try outputFormat(for: frame, requested: requested)
                    if written == 0, y4m {
                        guard format.y4mColourSpace != nil else {
                            throw CLIError.usage("--pix-fmt", "\(format.ffmpegName) cannot be carried in Y4M", hint: "write raw planes (.yuv) instead")
                        }
                        try sink.write(Array(Y4MWriter.header(for: frame, format: format, frameRate: decoding.frameRate()).utf8))
                    }
                    if y4m { try sink.write(Array("FRAME\n".utf8)) }
                    try FrameWriter.write(frame, as: format, to: sink)
                    written += 1
                    return frames.map { written < $0 } ?? true
                }
            }
            for problem in decoding.session.problems.prefix(20) {
                StandardError.write("nalu: warning: \(inputOptions.input): \(problem)\n")
            }
            if written == 0, frames != 0, let loss = decoding.lossSummary {
                // Nothing decodable: no file (an empty Y4M is no Y4M).
                throw CLIError(inputOptions.input, loss, status: ExitStatus.dataError)
            }
            try sink.commit()
        } catch {
            failure = error
        }
        if let failure {
            sink.discard()
            throw failure
        }
        // Everything decodable is written; what was not is an error (nothing lost silently).
        if let loss = decoding.lossSummary {
            throw CLIError(inputOptions.input, loss, status: ExitStatus.dataError)
        }
    }

    /// Refuses a frame whose size or sampling differs from the first frame's: a Y4M header
    /// states one size and chroma format for every frame, and a raw file's reader assumes one
    /// (issue 40 item 11: a 640x360 header over 1280x720 frames, exit 0).
    private func checkSameShape(_ frame: DecodedFrame, index: Int, first: inout (width: Int, height: Int, format: PixelFormat)?) throws {
        guard let known = first else {
            first = (frame.width, frame.height, frame.pixelFormat)
            return
        }
        guard frame.width != known.width || frame.height != known.height || frame.pixelFormat != known.format else { return }
        let kind = output.lowercased().hasSuffix(".y4m") ? "the Y4M header's" : "the first frame's"
        throw CLIError(inputOptions.input,
                       "frame \(index) (access unit \(frame.accessUnitIndex)) is \(frame.width)x\(frame.height) \(frame.pixelFormat.ffmpegName), \(kind) \(known.width)x\(known.height) \(known.format.ffmpegName): a \(output.lowercased().hasSuffix(".y4m") ? "Y4M" : "raw") output holds frames of one size and format",
                       hint: "split the input where it changes (nalu trim), or re-encode it to one size with nalu encode --scale \(known.width)x\(known.height)",
                       status: ExitStatus.dataError)
    }

    /// The format frames are written in: `--pix-fmt` when it is the decoded one or its
    /// semi-planar form, else a usage error (no scaling or dithering is done).
    private func outputFormat(for frame: DecodedFrame, requested: PixelFormat?) throws -> PixelFormat {
        guard let requested, requested != frame.pixelFormat else { return frame.pixelFormat }
        if requested.isSemiPlanar, requested.planarEquivalent == frame.pixelFormat { return requested }
        throw CLIError.usage("--pix-fmt", "cannot convert the decoded \(frame.pixelFormat.ffmpegName) to \(requested.ffmpegName)",
                             hint: "decoded frames are written as \(frame.pixelFormat.ffmpegName)\(frame.pixelFormat.chromaSubsampling == .yuv420 ? " or its semi-planar form" : "")")
    }
}

/// Writes a frame's planes as ffmpeg's `rawvideo` lays them out.
enum FrameWriter {
    static func write(_ frame: DecodedFrame, as format: PixelFormat, to sink: FileSink) throws {
        if format == frame.pixelFormat {
            try frame.withBytes { try sink.write($0) }
            return
        }
        // Semi-planar: Y, then U and V interleaved (10-bit: every sample in the high bits).
        if format.bitDepth == 8 {
            try frame.withPlane(0) { try sink.write($0) }
        } else {
            var luma = frame.planeBytes(0)
            for sample in 0..<(luma.count / 2) {
                let value = (UInt16(luma[2 * sample]) | UInt16(luma[2 * sample + 1]) << 8) << 6
                luma[2 * sample] = UInt8(truncatingIfNeeded: value)
                luma[2 * sample + 1] = UInt8(truncatingIfNeeded: value >> 8)
            }
            try sink.write(luma)
        }
        let u = frame.planeBytes(1)
        let v = frame.planeBytes(2)
        var interleaved = [UInt8](repeating: 0, count: u.count * 2)
        if format.bitDepth == 8 {
            for index in 0..<u.count {
                interleaved[2 * index] = u[index]
                interleaved[2 * index + 1] = v[index]
            }
        } else {
            for sample in 0..<(u.count / 2) {
                let uValue = (UInt16(u[2 * sample]) | UInt16(u[2 * sample + 1]) << 8) << 6
                let vValue = (UInt16(v[2 * sample]) | UInt16(v[2 * sample + 1]) << 8) << 6
                interleaved[4 * sample] = UInt8(truncatingIfNeeded: uValue)
                interleaved[4 * sample + 1] = UInt8(truncatingIfNeeded: uValue >> 8)
                interleaved[4 * sample + 2] = UInt8(truncatingIfNeeded: vValue)
                interleaved[4 * sample + 3] = UInt8(truncatingIfNeeded: vValue >> 8)
            }
        }
        try sink.write(interleaved)
    }
}

extension Decode: CommandIO {
    var inputArgument: String? { inputOptions.inputArgument }
    var otherInputs: [String] { inputOptions.extradata.map { [$0] } ?? [] }
    var outputs: [(option: String, path: String)] { [("-o", output)] }
    var writesBinary: Bool { true }
    var example: String { "nalu decode clip.mp4 -o clip.y4m, or nalu decode clip.h264 | ffplay -f rawvideo …" }
}
