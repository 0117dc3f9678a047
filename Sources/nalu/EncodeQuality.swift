#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUEncoder

/// `--psnr` and `--ssim` (issue 17): the encoder library measures every picture; the summary
/// prints the means as the x264/x265 CLIs do, and `--stats-json` gains `"psnr"` and `"ssim"`.
struct QualityOptions: ParsableArguments {
    @Flag(help: "Have the encoder compute PSNR; print the means in the summary (as x264/x265 --psnr).")
    var psnr = false

    @Flag(help: "Have the encoder compute SSIM; print the mean in the summary (as x264/x265 --ssim).")
    var ssim = false
}

/// Sums the per-picture measurements of ``EncodedPacket/quality`` over a run.
final class QualityMeter {
    private let codec: Codec
    private var psnrFrames = 0
    private var sumY = 0.0, sumU = 0.0, sumV = 0.0, sumAverage = 0.0
    /// Σ 10^(−average/10): the frames' mean squared error relative to the peak, for x264's Global.
    private var sumRelativeError = 0.0
    private var ssimFrames = 0
    private var sumSSIM = 0.0

    init(codec: Codec) {
        self.codec = codec
    }

    func take(_ packet: EncodedPacket) {
        guard let quality = packet.quality else { return }
        if let y = quality.psnrY, let u = quality.psnrU, let v = quality.psnrV, let average = quality.psnrAverage {
            psnrFrames += 1
            sumY += y
            sumU += u
            sumV += v
            sumAverage += average
            sumRelativeError += pow(10, -average / 10)
        }
        if let ssim = quality.ssim {
            ssimFrames += 1
            sumSSIM += ssim
        }
    }

    /// Adds `PSNR Mean Y:… U:… V:… Avg:… Global:…` and `SSIM Mean Y:… (… dB)` to the line and
    /// `"psnr": {"y", "u", "v", "average", "global"}`, `"ssim": {"all", "db"}` to the JSON.
    ///
    /// Global is each library's own: x264's PSNR of the squared error summed over all frames
    /// (recovered from each frame's average PSNR), x265's mean of the frames' (6·Y + U + V) / 8.
    func annotate(_ summary: inout EncodeSummary) {
        guard case .object(var members) = summary.object else { return }
        if psnrFrames > 0 {
            let count = Double(psnrFrames)
            let (y, u, v, average) = (sumY / count, sumU / count, sumV / count, sumAverage / count)
            let global = codec == .hevc ? average : min(100, -10 * log10(sumRelativeError / count))
            summary.line += "; PSNR Mean Y:\(decimal(y, 3)) U:\(decimal(u, 3)) V:\(decimal(v, 3)) Avg:\(decimal(average, 3)) Global:\(decimal(global, 3))"
            members.append(("psnr", JSON.object([("y", .double(y)), ("u", .double(u)), ("v", .double(v)),
                                                 ("average", .double(average)), ("global", .double(global))])))
        }
        if ssimFrames > 0 {
            let all = sumSSIM / Double(ssimFrames)
            let db = all < 1 ? -10 * log10(1 - all) : 100
            summary.line += "; SSIM Mean Y:\(decimal(all, 7)) (\(decimal(db, 3)) dB)"
            members.append(("ssim", JSON.object([("all", .double(all)), ("db", .double(db))])))
        }
        summary.object = .object(members)
    }
}
