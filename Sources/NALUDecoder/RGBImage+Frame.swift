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
    /// Chroma is interpolated (bilinear) to every luma sample at the siting of
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
        /// Bilinear chroma at luma position (x, y).
        func chroma(_ plane: Frame.Plane, _ x: Int, _ y: Int) -> Double {
            // Chroma coordinates of the luma sample: co-sited horizontally, centred vertically in 4:2:0.
            let cx = Double(x) / Double(subWidth)
            let cy = subHeight == 2 ? (Double(y) - 0.5) / 2 : Double(y)
            let x0 = min(max(Int(cx.rounded(.down)), 0), chromaWidth - 1)
            let y0 = min(max(Int(cy.rounded(.down)), 0), chromaHeight - 1)
            let x1 = min(x0 + 1, chromaWidth - 1), y1 = min(y0 + 1, chromaHeight - 1)
            let fx = min(max(cx - Double(x0), 0), 1), fy = min(max(cy - Double(y0), 0), 1)
            let top = sample(plane, x0, y0) * (1 - fx) + sample(plane, x1, y0) * fx
            let bottom = sample(plane, x0, y1) * (1 - fx) + sample(plane, x1, y1) * fx
            return top * (1 - fy) + bottom * fy
        }
        func byte(_ value: Double) -> UInt8 { UInt8(min(max((value * 255).rounded(), 0), 255)) }

        let (kr, kb) = coefficients
        let kg = 1 - kr - kb
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var index = 0
        for y in 0..<height {
            for x in 0..<width {
                let luma = (sample(yPlane, x, y) - yOffset) / yRange
                let cb = (chroma(uPlane, x, y) - cOffset) / cRange
                let cr = (chroma(vPlane, x, y) - cOffset) / cRange
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
