import Foundation
import NALUTestSupport
import Testing

/// Paths and child processes for the samples' tests.
enum SamplesTestSupport: ProcessTestSupport {
    static let scratchPrefix = "nalu-samples"

    /// `ffprobe -v error ARGS` standard output as text.
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/env", ["ffprobe", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.text
    }

    /// `ffmpeg -v error ARGS` standard output (raw bytes).
    static func ffmpeg(_ arguments: [String]) throws -> Data {
        let result = try run("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffmpeg \(arguments): \(result.stderr)")
        return result.data
    }

    /// PSNR in dB of two byte strings of the same length (8-bit samples); infinity when equal.
    static func psnr(_ a: Data, _ b: Data) -> Double {
        guard a.count == b.count, !a.isEmpty else { return -1 }
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
