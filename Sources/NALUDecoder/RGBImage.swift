/// A picture as 8-bit RGB samples (`rgb24`: R, G, B per pixel, rows top to bottom, no padding),
/// as a still-image file stores it: what ``DecodedFrame`` pictures become for a thumbnail
/// (``init(frame:colour:)``), turned upright (``rotated(counterClockwise:)``) and written as PNG
/// (``pngData``).
public struct RGBImage: Sendable, Hashable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// `width × height × 3` bytes: R, G, B of each pixel, row by row.
    public let pixels: [UInt8]

    /// The largest side an image may have (PNG allows 2³¹ − 1; pictures of H.264/H.265 levels
    /// stay far below): a bound on memory.
    public static let maxSide = 16_384

    /// An image of `pixels` (`width × height × 3` bytes, R G B).
    /// - Throws: ``DecoderError`` `.unsupported` naming `pixels` when the count does not match
    ///   or a side is outside 1…``maxSide``.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(DecoderError) {
        guard (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height), pixels.count == width * height * 3 else {
            throw DecoderError(.unsupported, field: "pixels",
                               detail: "\(pixels.count) bytes for \(width)x\(height) RGB (sides 1…\(Self.maxSide))")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(unchecked width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The image turned by `degrees` counter-clockwise (a multiple of 90; negative turns
    /// clockwise), as a display matrix's rotation turns a track (ISO/IEC 14496-12 8.3.2
    /// `tkhd.matrix`; the sign as ffprobe's `rotation` gives it). Exact: pixels are moved, not
    /// resampled.
    /// - Throws: ``DecoderError`` `.unsupported` naming `rotation` for an angle that is no
    ///   multiple of 90.
    public func rotated(counterClockwise degrees: Int) throws(DecoderError) -> RGBImage {
        guard degrees % 90 == 0 else {
            throw DecoderError(.unsupported, field: "rotation", detail: "\(degrees)° is no multiple of 90°")
        }
        let turns = ((degrees / 90) % 4 + 4) % 4
        guard turns != 0 else { return self }
        let (outWidth, outHeight) = turns == 2 ? (width, height) : (height, width)
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        // Where source pixel (x, y) lands.
                        let (tx, ty): (Int, Int)
                        switch turns {
                        case 1: (tx, ty) = (y, width - 1 - x)            // 90° counter-clockwise
                        case 2: (tx, ty) = (width - 1 - x, height - 1 - y)
                        default: (tx, ty) = (height - 1 - y, x)          // 270° counter-clockwise
                        }
                        let from = (y * width + x) * 3
                        let to = (ty * outWidth + tx) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return RGBImage(unchecked: outWidth, height: outHeight, pixels: out)
    }
}
