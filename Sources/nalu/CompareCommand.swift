import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport

/// `nalu compare REF DIST` (issue 33): PSNR and SSIM per frame and overall.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Measure PSNR and SSIM of a distorted video against its reference.",
        discussion: """
        Reads two inputs nalu reads (compressed ones are decoded; .y4m is read as it is), \
        matches their frames in presentation order, and prints PSNR (Y, U, V, the sample-weighted \
        average as ffmpeg's psnr filter reports it, and the global PSNR from all squared errors \
        summed, as x264 reports it) and SSIM (Y and all planes, and in dB, as ffmpeg's ssim \
        filter computes it), per frame with --frames-detail and --json, and overall. Inputs must \
        have the same size and pixel format; inputs with different frame counts compare their \
        common frames and exit 65 unless --shortest. An infinite PSNR (identical planes) prints \
        as inf, and as null in JSON. No frame to compare exits 65 with no figures; damaged NAL \
        units left out or pictures not decoded print the figures of the rest, then exit 65.
        """
    )

    @Argument(help: ArgumentHelp("The reference (any input nalu reads, or .y4m).", valueName: "ref"))
    var reference: String
    @Argument(help: ArgumentHelp("The distorted video (any input nalu reads, or .y4m).", valueName: "dist"))
    var distorted: String
    @Flag(help: "Print JSON: psnr.{y,u,v,average,global}, ssim.{y,all,db} and frames (per frame).")
    var json = false
    @Flag(name: .customLong("frames-detail"), help: "Print a line per frame (text output).")
    var framesDetail = false
    @Flag(help: "Compare the common frames when the frame counts differ, without failing.")
    var shortest = false
    @Option(help: "Decoder library for compressed inputs: avcodec (default) or de265.")
    var decoder: DecoderName = .avcodec

    func run() throws {
        let ref = try input(reference)
        let dist = try input(distorted)
        defer {
            ref.cancel()
            dist.cancel()
        }
        var perFrame: [JSON] = []
        let out = try StandardOutput()
        let comparison = try commandLine(input: reference) {
            try VideoComparison(reference: ref, distorted: dist) { index, picture in
                if json {
                    perFrame.append(JSON(VideoComparison.fields(frame: index, picture)))
                } else if framesDetail {
                    try out.line(VideoComparison.line(frame: index, picture))
                }
            }
        }
        if json {
            try out.line(JSON.object(comparison.fields.map { ($0.0, JSON($0.1)) } + [("frames", .array(perFrame))]).text)
        } else {
            for line in comparison.lines { try out.line(line) }
        }
        try out.flush()
        // Frames that could not be decoded were not compared: the figures above are of the rest.
        if let loss = ref.loss ?? dist.loss { throw loss }
        if comparison.referenceEnded != comparison.distortedEnded, !shortest {
            let (short, long) = comparison.referenceEnded ? (reference, distorted) : (distorted, reference)
            throw CLIError(long, "has more frames than \(short) (\(comparison.frames) compared)", hint: "--shortest compares the common frames without failing",
                           status: ExitStatus.dataError)
        }
    }

    /// Opens one input (Y4M read as it is, anything else decoded); its errors in the command line's form.
    private func input(_ path: String) throws -> ComparisonInput {
        do {
            return try commandLine(input: path) { try ComparisonInput(path: path, factory: decoder.factory, warning: Diagnostics.libraryWarning) }
        } catch let error as NALUError where error.code == .invalidValue && error.field.hasPrefix("--") {
            throw ValidationError("\(error.field): \(error.detail ?? "does not apply to this input")")
        }
    }
}

extension Compare: CommandIO {
    var inputArgument: String? { reference }
    var inputIsOptional: Bool { false }
    var otherInputs: [String] { [distorted] }
    var outputs: [(option: String, path: String)] { [("standard output", "-")] }
    var writesBinary: Bool { false }
    var example: String { "nalu compare source.y4m encoded.mp4 --json" }
}
