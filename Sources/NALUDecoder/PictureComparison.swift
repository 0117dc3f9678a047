#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NALUEncoder

/// One plane of samples to compare: 8-bit bytes or 16-bit little-endian words.
public struct PlaneSamples {
    public var base: UnsafeRawPointer
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    /// 8, or 9…16 for samples stored in 16-bit words.
    public var bitDepth: Int

    public init(base: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, bitDepth: Int) {
        self.base = base
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.bitDepth = bitDepth
    }

    /// The largest sample value: 255, 1023….
    public var peak: Int { (1 << bitDepth) - 1 }

    @inline(__always)
    func sample(_ x: Int, _ y: Int) -> Int {
        if bitDepth <= 8 { return Int(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self)) }
        return Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: y * bytesPerRow + 2 * x, as: UInt16.self)))
    }
}

/// PSNR and SSIM of one picture against its reference, computed as ffmpeg's `psnr` and `ssim`
/// filters do (libavfilter vf_psnr.c, vf_ssim.c), so the numbers agree with theirs.
public struct PictureDistortion: Sendable, Hashable {
    /// Sum of squared differences of each plane.
    public var squaredError: [UInt64]
    /// Samples in each plane.
    public var samples: [Int]
    /// Peak sample value of each plane.
    public var peaks: [Int]
    /// SSIM of each plane (ffmpeg: mean over 8×8 windows stepped by 4 of the SSIM formula with
    /// C1 = (0.01·peak)², C2 = (0.03·peak)²).
    public var ssim: [Double]

    /// Compares `distorted` with `reference` plane by plane (same sizes and depths).
    public init(reference: [PlaneSamples], distorted: [PlaneSamples]) {
        squaredError = []
        samples = []
        peaks = []
        ssim = []
        for (a, b) in zip(reference, distorted) {
            squaredError.append(Self.squaredError(a, b))
            samples.append(a.width * a.height)
            peaks.append(a.peak)
            ssim.append(Self.ssim(a, b))
        }
    }

    /// Mean squared error of plane `index`.
    public func meanSquaredError(_ index: Int) -> Double { Double(squaredError[index]) / Double(max(1, samples[index])) }

    /// PSNR of plane `index` in dB (`+inf` when identical): 10·log10(peak² / MSE).
    public func psnr(_ index: Int) -> Double { PictureDistortion.psnr(mse: meanSquaredError(index), peak: peaks[index]) }

    /// The planes' weights: their share of all samples (ffmpeg's `planeweight`, `coefs`).
    public var weights: [Double] {
        let total = Double(samples.reduce(0, +))
        return samples.map { Double($0) / max(1, total) }
    }

    /// The sample-weighted mean squared error (ffmpeg's per-frame `mse` for "average").
    public var weightedMeanSquaredError: Double {
        zip(weights, samples.indices).reduce(0) { $0 + $1.0 * meanSquaredError($1.1) }
    }

    /// ffmpeg's per-frame "average" PSNR: from the weighted MSE, against the weighted peak.
    public var psnrAverage: Double { PictureDistortion.psnr(mse: weightedMeanSquaredError, peak: weightedPeak) }

    /// ffmpeg's `average_max`: the peaks weighted by plane share, rounded.
    public var weightedPeak: Int { Int((zip(weights, peaks).reduce(0) { $0 + $1.0 * Double($1.1) }).rounded()) }

    /// ffmpeg's per-frame "All" SSIM: the planes' SSIM weighted by their share of samples.
    public var ssimAll: Double {
        // Σ samples·ssim / Σ samples: exactly 1 for identical pictures.
        let total = Double(samples.reduce(0, +))
        return zip(samples, ssim).reduce(0) { $0 + Double($1.0) * $1.1 } / max(1, total)
    }

    /// 10·log10(peak² / mse); `+inf` for 0.
    public static func psnr(mse: Double, peak: Int) -> Double {
        guard mse > 0 else { return .infinity }
        return 10 * log10(Double(peak) * Double(peak) / mse)
    }

    /// SSIM in dB as ffmpeg prints it: −10·log10(1 − ssim).
    public static func decibels(ssim: Double) -> Double {
        guard ssim < 1 else { return .infinity }
        return -10 * log10(1 - ssim)
    }

    static func squaredError(_ a: PlaneSamples, _ b: PlaneSamples) -> UInt64 {
        var total: UInt64 = 0
        let width = min(a.width, b.width)
        let height = min(a.height, b.height)
        if a.bitDepth <= 8 && b.bitDepth <= 8 {
            for y in 0..<height {
                let rowA = a.base + y * a.bytesPerRow
                let rowB = b.base + y * b.bytesPerRow
                var row: UInt64 = 0
                for x in 0..<width {
                    let d = Int(rowA.load(fromByteOffset: x, as: UInt8.self)) - Int(rowB.load(fromByteOffset: x, as: UInt8.self))
                    row &+= UInt64(d * d)
                }
                total &+= row
            }
        } else {
            for y in 0..<height {
                for x in 0..<width {
                    let d = a.sample(x, y) - b.sample(x, y)
                    total &+= UInt64(d * d)
                }
            }
        }
        return total
    }

    /// ffmpeg's `ssim_plane`: sums over 4×4 blocks, SSIM of each 2×2 group of blocks.
    static func ssim(_ a: PlaneSamples, _ b: PlaneSamples) -> Double {
        let blocksWide = min(a.width, b.width) >> 2
        let blocksHigh = min(a.height, b.height) >> 2
        guard blocksWide > 1, blocksHigh > 1 else { return 1 }
        let peak = Double(a.peak)
        let c1 = (0.01 * 0.01 * peak * peak * 64).rounded(.toNearestOrAwayFromZero)
        let c2 = (0.03 * 0.03 * peak * peak * 64 * 63).rounded(.toNearestOrAwayFromZero)
        var previous = [(Int64, Int64, Int64, Int64)](repeating: (0, 0, 0, 0), count: blocksWide)
        var current = previous
        func sums(row: Int, into line: inout [(Int64, Int64, Int64, Int64)]) {
            for block in 0..<blocksWide {
                var s1: Int64 = 0, s2: Int64 = 0, ss: Int64 = 0, s12: Int64 = 0
                for y in (4 * row)..<(4 * row + 4) {
                    for x in (4 * block)..<(4 * block + 4) {
                        let p = Int64(a.sample(x, y))
                        let q = Int64(b.sample(x, y))
                        s1 += p
                        s2 += q
                        ss += p * p + q * q
                        s12 += p * q
                    }
                }
                line[block] = (s1, s2, ss, s12)
            }
        }
        var total = 0.0
        sums(row: 0, into: &previous)
        for row in 1..<blocksHigh {
            sums(row: row, into: &current)
            for block in 0..<(blocksWide - 1) {
                let s1 = Double(previous[block].0 + previous[block + 1].0 + current[block].0 + current[block + 1].0)
                let s2 = Double(previous[block].1 + previous[block + 1].1 + current[block].1 + current[block + 1].1)
                let ss = Double(previous[block].2 + previous[block + 1].2 + current[block].2 + current[block + 1].2)
                let s12 = Double(previous[block].3 + previous[block + 1].3 + current[block].3 + current[block + 1].3)
                let variance = ss * 64 - s1 * s1 - s2 * s2
                let covariance = s12 * 64 - s1 * s2
                total += (2 * s1 * s2 + c1) * (2 * covariance + c2) / ((s1 * s1 + s2 * s2 + c1) * (variance + c2))
            }
            swap(&previous, &current)
        }
        return total / Double((blocksHigh - 1) * (blocksWide - 1))
    }
}

/// The totals over a sequence of pictures, as ffmpeg's filters print them at the end and as
/// x264 reports "Global" PSNR.
public struct SequenceDistortion: Sendable, Hashable {
    public private(set) var frames = 0
    private var meanSquaredErrorSums: [Double] = []
    private var weightedMeanSquaredErrorSum = 0.0
    private var squaredErrorTotal: UInt64 = 0
    private var sampleTotal: UInt64 = 0
    private var ssimSums: [Double] = []
    private var ssimAllSum = 0.0
    private var peak = 255

    public init() {}

    public mutating func add(_ picture: PictureDistortion) {
        if meanSquaredErrorSums.isEmpty {
            meanSquaredErrorSums = Array(repeating: 0, count: picture.samples.count)
            ssimSums = meanSquaredErrorSums
            peak = picture.weightedPeak
        }
        frames += 1
        for index in picture.samples.indices where index < meanSquaredErrorSums.count {
            meanSquaredErrorSums[index] += picture.meanSquaredError(index)
            ssimSums[index] += picture.ssim[index]
        }
        weightedMeanSquaredErrorSum += picture.weightedMeanSquaredError
        squaredErrorTotal &+= picture.squaredError.reduce(0, &+)
        sampleTotal &+= UInt64(picture.samples.reduce(0, +))
        ssimAllSum += picture.ssimAll
    }

    /// PSNR of plane `index` from its mean MSE over the frames (ffmpeg's final `y:`, `u:`, `v:`).
    public func psnr(_ index: Int) -> Double {
        guard frames > 0, index < meanSquaredErrorSums.count else { return .nan }
        return PictureDistortion.psnr(mse: meanSquaredErrorSums[index] / Double(frames), peak: planePeak)
    }

    private var planePeak: Int { peak }

    /// ffmpeg's final "average": PSNR of the mean weighted MSE.
    public var psnrAverage: Double {
        guard frames > 0 else { return .nan }
        return PictureDistortion.psnr(mse: weightedMeanSquaredErrorSum / Double(frames), peak: peak)
    }

    /// x264's "Global" PSNR: from the squared errors of every sample of every frame summed.
    public var psnrGlobal: Double {
        guard sampleTotal > 0 else { return .nan }
        return PictureDistortion.psnr(mse: Double(squaredErrorTotal) / Double(sampleTotal), peak: peak)
    }

    /// Mean SSIM of plane `index`.
    public func ssim(_ index: Int) -> Double {
        guard frames > 0, index < ssimSums.count else { return .nan }
        return ssimSums[index] / Double(frames)
    }

    /// ffmpeg's final "All": the mean of the frames' weighted SSIM.
    public var ssimAll: Double { frames > 0 ? ssimAllSum / Double(frames) : .nan }

    /// ffmpeg's final SSIM in dB: 10·log10(frames / (frames − Σ All)).
    public var ssimDecibels: Double { PictureDistortion.decibels(ssim: ssimAll) }
}

extension DecodedFrame {
    /// Calls `body` with the frame's planes as ``PlaneSamples``.
    /// - Throws: what `body` throws (typed: `Failure`).
    public func withPlaneSamples<Result, Failure: Error>(_ body: ([PlaneSamples]) throws(Failure) -> Result) throws(Failure) -> Result {
        try frame().withPlaneSamples(body)
    }
}

extension Frame {
    /// Calls `body` with the planes of a planar frame as ``PlaneSamples`` (semi-planar formats
    /// have none: convert them first).
    /// - Throws: what `body` throws (typed: `Failure`).
    public func withPlaneSamples<Result, Failure: Error>(_ body: ([PlaneSamples]) throws(Failure) -> Result) throws(Failure) -> Result {
        var planes: [PlaneSamples] = []
        if !pixelFormat.isSemiPlanar {
            for index in 0..<pixelFormat.planeCount {
                guard let plane = plane(index) else { continue }
                let samples = pixelFormat.rowBytes(plane: index, width: width) / pixelFormat.bytesPerSample
                planes.append(PlaneSamples(base: plane.baseAddress, width: samples, height: pixelFormat.rows(plane: index, height: height),
                                           bytesPerRow: plane.bytesPerRow, bitDepth: pixelFormat.bitDepth))
            }
        }
        // The planes point into this frame's memory: it lives until `body` returns.
        defer { withExtendedLifetime(self) {} }
        return try body(planes)
    }
}
