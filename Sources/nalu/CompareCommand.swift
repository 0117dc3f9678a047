import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUMedia

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
        let ref = try CompareInput(path: reference, decoder: decoder, options: MediaSourceOptions())
        let dist = try CompareInput(path: distorted, decoder: decoder, options: MediaSourceOptions())
        defer {
            ref.cancel()
            dist.cancel()
        }
        var total = SequenceDistortion()
        var perFrame: [JSON] = []
        let out = try StandardOutput()
        var index = 0
        var refEnded = false
        var distEnded = false
        while true {
            let a = try ref.next()
            let b = try dist.next()
            guard let a, let b else {
                refEnded = a == nil
                distEnded = b == nil
                break
            }
            guard a.pixelFormat == b.pixelFormat, a.width == b.width, a.height == b.height else {
                throw CLIError(distorted, "frame \(index) is \(b.width)x\(b.height) \(b.pixelFormat.ffmpegName), the reference's \(a.width)x\(a.height) \(a.pixelFormat.ffmpegName)",
                               status: ExitStatus.dataError)
            }
            guard !a.pixelFormat.isSemiPlanar else {
                throw CLIError(reference, "semi-planar \(a.pixelFormat.ffmpegName) is not compared", status: ExitStatus.dataError)
            }
            let picture = a.withPlaneSamples { refPlanes in
                b.withPlaneSamples { distPlanes in PictureDistortion(reference: refPlanes, distorted: distPlanes) }
            }
            total.add(picture)
            if json {
                perFrame.append(.object([
                    ("n", .int(Int64(index + 1))),
                    ("psnr", .object([("y", Self.number(picture.psnr(0))), ("u", Self.number(picture.psnr(1))),
                                      ("v", Self.number(picture.psnr(2))), ("average", Self.number(picture.psnrAverage))])),
                    ("ssim", .object([("y", Self.number(picture.ssim[0])), ("all", Self.number(picture.ssimAll)),
                                      ("db", Self.number(PictureDistortion.decibels(ssim: picture.ssimAll)))])),
                ]))
            } else if framesDetail {
                try out.line("n:\(index + 1) psnr y:\(Self.text(picture.psnr(0))) u:\(Self.text(picture.psnr(1))) v:\(Self.text(picture.psnr(2))) average:\(Self.text(picture.psnrAverage)) ssim y:\(Self.text(picture.ssim[0])) all:\(Self.text(picture.ssimAll)) (\(Self.text(PictureDistortion.decibels(ssim: picture.ssimAll))))")
            }
            index += 1
        }
        guard index > 0 else {
            // Nothing compared: no PSNR to report (an infinite one would say "identical").
            if let loss = ref.loss ?? dist.loss { throw loss }
            let empty = refEnded ? reference : distorted
            throw CLIError(empty, "no frame to compare: it has none", status: ExitStatus.dataError)
        }
        if json {
            try out.line(JSON.object([
                ("psnr", .object([("y", Self.number(total.psnr(0))), ("u", Self.number(total.psnr(1))), ("v", Self.number(total.psnr(2))),
                                  ("average", Self.number(total.psnrAverage)), ("global", Self.number(total.psnrGlobal))])),
                ("ssim", .object([("y", Self.number(total.ssim(0))), ("all", Self.number(total.ssimAll)), ("db", Self.number(total.ssimDecibels))])),
                ("frames", .array(perFrame)),
            ]).text)
        } else {
            try out.line("PSNR y:\(Self.text(total.psnr(0))) u:\(Self.text(total.psnr(1))) v:\(Self.text(total.psnr(2))) average:\(Self.text(total.psnrAverage)) global:\(Self.text(total.psnrGlobal))")
            try out.line("SSIM Y:\(Self.text(total.ssim(0))) All:\(Self.text(total.ssimAll)) (\(Self.text(total.ssimDecibels)))")
            try out.line("frames: \(index)")
        }
        try out.flush()
        // Frames that could not be decoded were not compared: the figures above are of the rest.
        if let loss = ref.loss ?? dist.loss { throw loss }
        if refEnded != distEnded, !shortest {
            let (short, long) = refEnded ? (reference, distorted) : (distorted, reference)
            throw CLIError(long, "has more frames than \(short) (\(index) compared)", hint: "--shortest compares the common frames without failing",
                           status: ExitStatus.dataError)
        }
    }

    /// Six decimals (PSNR in dB, SSIM 0…1), or `null` for an infinite PSNR.
    private static func number(_ value: Double) -> JSON { value.isFinite ? .decimal(text(value)) : .null }

    private static func text(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : "inf" }
        var text = String(Double(Int64((value * 1_000_000).rounded())) / 1_000_000)
        if !text.contains(".") { text += ".0" }
        return text
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
