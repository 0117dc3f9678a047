extension RGBImage {
    /// The image resampled to `width × height` with a bicubic filter (Keys' cubic convolution,
    /// a = −0.6, as libswscale's default `SWS_BICUBIC` with B = 0, C = 0.6), widened by the
    /// scale factor when shrinking so every source pixel counts; separable, horizontal pass
    /// first. Pixel centres are aligned (a source pixel x covers x … x+1). Used for a picture's
    /// display size: its width times the sample aspect ratio (H.264/H.265 E.2.1
    /// `aspect_ratio_idc`, ISO/IEC 14496-12 12.1.4 `pasp`).
    /// - Throws: ``DecoderError`` `.unsupported` naming `size` for a side outside 1…``maxSide``.
    public func resized(width newWidth: Int, height newHeight: Int) throws(DecoderError) -> RGBImage {
        guard (1...Self.maxSide).contains(newWidth), (1...Self.maxSide).contains(newHeight) else {
            throw DecoderError(.unsupported, field: "size", detail: "\(newWidth)x\(newHeight) (sides 1…\(Self.maxSide))")
        }
        if newWidth == width && newHeight == height { return self }
        // Horizontal pass into floats, then vertical into bytes.
        let horizontal = Self.weights(from: width, to: newWidth)
        var middle = [Float](repeating: 0, count: newWidth * height * 3)
        for y in 0..<height {
            for x in 0..<newWidth {
                let (first, taps) = horizontal[x]
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (k, weight) in taps.enumerated() {
                    let source = (y * width + first + k) * 3
                    r += weight * Float(pixels[source])
                    g += weight * Float(pixels[source + 1])
                    b += weight * Float(pixels[source + 2])
                }
                let target = (y * newWidth + x) * 3
                middle[target] = r
                middle[target + 1] = g
                middle[target + 2] = b
            }
        }
        let vertical = Self.weights(from: height, to: newHeight)
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            let (first, taps) = vertical[y]
            for x in 0..<(newWidth * 3) {
                var sum: Float = 0
                for (k, weight) in taps.enumerated() { sum += weight * middle[(first + k) * newWidth * 3 + x] }
                out[y * newWidth * 3 + x] = UInt8(min(max(sum.rounded(), 0), 255))
            }
        }
        return RGBImage(unchecked: newWidth, height: newHeight, pixels: out)
    }

    /// For each output sample, the first source sample it reads and the normalised weights of
    /// it and the following ones (clamped at the edges, so the taps stay inside the source).
    static func weights(from source: Int, to target: Int) -> [(first: Int, taps: [Float])] {
        let ratio = Double(source) / Double(target)
        let stretch = max(1, ratio)  // the kernel widened when shrinking
        let support = 2 * stretch
        return (0..<target).map { index in
            let centre = (Double(index) + 0.5) * ratio - 0.5
            let low = Int((centre - support).rounded(.up))
            let high = Int((centre + support).rounded(.down))
            let first = max(0, low)
            let last = min(source - 1, max(high, first))
            var taps = [Float](repeating: 0, count: last - first + 1)
            var total = 0.0
            for position in low...max(low, high) {
                let weight = cubic((Double(position) - centre) / stretch)
                let clamped = min(max(position, first), last)
                taps[clamped - first] += Float(weight)
                total += weight
            }
            if total != 0 { for k in taps.indices { taps[k] = Float(Double(taps[k]) / total) } }
            return (first, taps)
        }
    }

    /// Keys' cubic convolution kernel with a = −0.6.
    static func cubic(_ x: Double) -> Double {
        let a = -0.6
        let t = abs(x)
        if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
        if t < 2 { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a }
        return 0
    }
}
