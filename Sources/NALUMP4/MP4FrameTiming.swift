package import NALU

/// The media timescale and frame duration ``MP4Muxer`` gives a constant frame rate: the rate's
/// numerator doubled until at least 10000 ticks a second, FFmpeg's choice (30 fps → 15360, 512
/// ticks a frame; 25 fps → 12800, 512). Shared so that an edit list can be made before the muxer
/// starts (`nalu trim`).
package struct MP4FrameTiming: Sendable {
    package var timescale: UInt32
    package var frameDuration: UInt32

    /// - Throws: ``NALUError`` `.invalidValue` for a rate that is not positive or does not fit
    ///   31 bits, `.doesNotFit` when the timescale or the duration would not.
    package init(frameRate: Rational) throws(NALUError) {
        let rate = frameRate.reduced
        guard rate.numerator > 0, rate.denominator > 0, rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max) else {
            throw NALUError(.invalidValue, field: "frame rate", detail: "\(rate)")
        }
        var timescale = UInt64(rate.numerator)
        var multiple: UInt64 = 1
        while timescale < 10_000 {
            timescale *= 2
            multiple *= 2
        }
        let duration = UInt64(rate.denominator) * multiple
        guard timescale <= UInt64(Int32.max), duration <= UInt64(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "timescale", detail: "frame rate \(rate)")
        }
        self.timescale = UInt32(timescale)
        frameDuration = UInt32(duration)
    }
}
