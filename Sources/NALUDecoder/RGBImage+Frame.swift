public import NALUEncoder

extension RGBImage {
    /// The RGB image of a planar Y′CbCr picture (4:2:0, 4:2:2 or 4:4:4; 8 or 10 bits), read as
    /// `colour` says (H.264/H.265 E.2.1 VUI):
    ///
    /// - the matrix: `matrix_coefficients` 1 is BT.709, 9 and 10 BT.2020, anything else
    ///   (5, 6, unspecified) BT.601 (Rec. ITU-T H.273 8.3, equations 38–40 with the table's
    ///   K_R, K_B), as players read an untagged standard-definition picture;
    /// - the range: `video_full_range_flag` 1 is full range (0…2ⁿ−1), else limited (luma
    ///   16…235, chroma 16…240 scaled by 2ⁿ⁻⁸: H.273 equations 20–25).
    ///
    /// Chroma is interpolated (cubic, as libswscale's `bicubic` with `full_chroma_int`) to every
    /// luma sample at the siting of
    /// `chroma_sample_loc_type` 0 (Figure E-1: co-sited with the left luma column, midway
    /// between two rows in 4:2:0); each result is rounded and clamped to 0…255. No transfer
    /// function is applied: the values are the coded R′G′B′, as ffmpeg's `rgb24` gives them.
    /// - Throws: ``DecoderError`` `.unsupported` naming `pixelFormat` for semi-planar frames
    ///   (NV12, P010) or a plane missing.
    public init(frame: Frame, colour: ColourDescription) throws(DecoderError) {
        let format = frame.pixelFormat
        guard !format.isSemiPlanar, let yPlane = frame.plane(0), let uPlane = frame.plane(1), let vPlane = frame.plane(2) else {
            throw DecoderError(.unsupported, field: "pixelFormat", detail: "\(format.ffmpegName): planar Y′CbCr only")
        }
        guard (1...Self.maxSide).contains(frame.width), (1...Self.maxSide).contains(frame.height) else {
            throw DecoderError(.unsupported, field: "size", detail: "\(frame.width)x\(frame.height)")
        }
        let width = frame.width, height = frame.height
        let subWidth = format.chromaSubsampling.subWidth, subHeight = format.chromaSubsampling.subHeight
        let chromaWidth = format.rowBytes(plane: 1, width: width) / format.bytesPerSample
        let chromaHeight = format.rows(plane: 1, height: height)
        let coefficients = Self.coefficients(matrix: colour.matrix)
        let depth = format.bitDepth
        let scale = Double(1 << (depth - 8))
        let full = colour.fullRange == true
        // Normalised Y′ in 0…1 and Cb, Cr in −0.5…0.5 (H.273 equations 20–25 inverted).
        let (yOffset, yRange, cRange) = full
            ? (0.0, Double((1 << depth) - 1), Double((1 << depth) - 1))
            : (16 * scale, 219 * scale, 224 * scale)
        let cOffset = Double(1 << (depth - 1))
        let wide = format.bytesPerSample == 2

        func sample(_ plane: Frame.Plane, _ x: Int, _ y: Int) -> Double {
            if wide {
                let offset = y * plane.bytesPerRow + x * 2
                let low = plane.baseAddress.load(fromByteOffset: offset, as: UInt8.self)
                let high = plane.baseAddress.load(fromByteOffset: offset + 1, as: UInt8.self)
                return Double(Int(high) << 8 | Int(low))
            }
            return Double(plane.baseAddress.load(fromByteOffset: y * plane.bytesPerRow + x, as: UInt8.self))
        }
        // Chroma at every luma position: vertical then horizontal cubic interpolation (the
        // positions of chroma_sample_loc_type 0: co-sited horizontally, midway vertically in 4:2:0).
        let vertical = Self.taps(count: height, sourceCount: chromaHeight) { subHeight == 2 ? (Double($0) - 0.5) / 2 : Double($0) }
        let horizontal = Self.taps(count: width, sourceCount: chromaWidth) { Double($0) / Double(subWidth) }
        func upsampled(_ plane: Frame.Plane) -> [Double] {
            var columns = [Double](repeating: 0, count: chromaWidth * height)
            for y in 0..<height {
                let (first, weights) = vertical[y]
                for x in 0..<chromaWidth {
                    var sum = 0.0
                    for k in 0..<4 { sum += weights[k] * sample(plane, x, min(max(first + k, 0), chromaHeight - 1)) }
                    columns[y * chromaWidth + x] = sum
                }
            }
            var full = [Double](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let (first, weights) = horizontal[x]
                    var sum = 0.0
                    for k in 0..<4 { sum += weights[k] * columns[y * chromaWidth + min(max(first + k, 0), chromaWidth - 1)] }
                    full[y * width + x] = sum
                }
            }
            return full
        }
        func byte(_ value: Double) -> UInt8 { UInt8(min(max((value * 255).rounded(), 0), 255)) }

        let (kr, kb) = coefficients
        let kg = 1 - kr - kb
        let cbPlane = upsampled(uPlane), crPlane = upsampled(vPlane)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var index = 0
        for y in 0..<height {
            for x in 0..<width {
                let luma = (sample(yPlane, x, y) - yOffset) / yRange
                let cb = (cbPlane[y * width + x] - cOffset) / cRange
                let cr = (crPlane[y * width + x] - cOffset) / cRange
                // H.273 equations 38–40 solved for R′, G′, B′.
                let r = luma + 2 * (1 - kr) * cr
                let b = luma + 2 * (1 - kb) * cb
                let g = (luma - kr * r - kb * b) / kg
                pixels[index] = byte(r)
                pixels[index + 1] = byte(g)
                pixels[index + 2] = byte(b)
                index += 3
            }
        }
        self.init(unchecked: width, height: height, pixels: pixels)
    }

    /// The picture of `frame` as RGB (``init(frame:colour:)`` with its own colour description).
    public init(_ frame: DecodedFrame) throws(DecoderError) {
        try self.init(frame: frame.frame(), colour: frame.colour)
    }

    /// For each of `count` output samples at source position `position(i)`, the first of the four
    /// source samples it reads and their weights (Keys' cubic convolution, a = −0.6, as
    /// libswscale's bicubic; normalised; indexes past the edges are clamped by the caller).
    static func taps(count: Int, sourceCount: Int, position: (Int) -> Double) -> [(first: Int, weights: [Double])] {
        (0..<count).map { index in
            let at = position(index)
            let base = Int(at.rounded(.down))
            var weights = (0..<4).map { k in cubic(at - Double(base - 1 + k)) }
            let total = weights.reduce(0, +)
            if total != 0 { weights = weights.map { $0 / total } }
            return (base - 1, weights)
        }
    }

    /// K_R and K_B of Rec. ITU-T H.273 Table 4 for `matrix_coefficients`.
    static func coefficients(matrix: Int?) -> (kr: Double, kb: Double) {
        switch matrix {
        case 1: (0.2126, 0.0722)           // BT.709
        case 9, 10: (0.2627, 0.0593)       // BT.2020
        case 4: (0.30, 0.11)               // FCC
        case 7: (0.212, 0.087)             // SMPTE 240M
        default: (0.299, 0.114)            // BT.601 (5, 6) and unspecified
        }
    }
}
