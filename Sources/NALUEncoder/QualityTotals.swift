#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU

/// The per-picture PSNR and SSIM an encoder library measured (``EncodedPacket/quality``,
/// ``EncoderConfiguration/computePSNR``), summed over a run as the x264 and x265 CLIs report
/// them.
public struct QualityTotals: Sendable {
    /// The mean PSNR in dB of each plane and of the pictures' averages, and the global PSNR.
    public struct PSNR: Sendable, Hashable {
        /// The luma plane's mean PSNR.
        public var y: Double
        /// The chroma planes' mean PSNRs.
        public var u: Double, v: Double
        /// The mean of the pictures' average PSNR (sample-weighted over the planes).
        public var average: Double
        /// Each library's own: x264's PSNR of the squared error summed over all frames
        /// (recovered from each frame's average PSNR), x265's mean of the frames' (6·Y + U + V) / 8.
        public var global: Double
    }

    private let codec: Codec
    private var psnrFrames = 0
    private var sumY = 0.0, sumU = 0.0, sumV = 0.0, sumAverage = 0.0
    /// Σ 10^(−average/10): the frames' mean squared error relative to the peak, for x264's Global.
    private var sumRelativeError = 0.0
    private var ssimFrames = 0
    private var sumSSIM = 0.0

    /// Totals for an encode of `codec` (which decides the global PSNR's definition).
    public init(codec: Codec) { self.codec = codec }

    /// Adds a packet's measurements.
    public mutating func take(_ packet: EncodedPacket) {
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

    /// The means, when any picture was measured.
    public var psnr: PSNR? {
        guard psnrFrames > 0 else { return nil }
        let count = Double(psnrFrames)
        let average = sumAverage / count
        let global = codec == .hevc ? average : min(100, -10 * log10(sumRelativeError / count))
        return PSNR(y: sumY / count, u: sumU / count, v: sumV / count, average: average, global: global)
    }

    /// The mean SSIM and it in dB (−10·log10(1 − SSIM), 100 for identical pictures), when any
    /// picture was measured.
    public var ssim: (all: Double, decibels: Double)? {
        guard ssimFrames > 0 else { return nil }
        let all = sumSSIM / Double(ssimFrames)
        return (all, all < 1 ? -10 * log10(1 - all) : 100)
    }
}
