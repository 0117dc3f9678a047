/// The pixel layout of input frames: chroma subsampling, bit depth and plane arrangement.
///
/// | Case | ffmpeg `pix_fmt` | Y4M `C` tag | Planes (W×H picture) |
/// |---|---|---|---|
/// | ``i420`` (``yuv420p``) | `yuv420p` | `420jpeg` (also `420mpeg2`, `420paldv`, `420`) | Y W×H, U and V W/2×H/2 |
/// | ``nv12`` | `nv12` | — | Y W×H, interleaved UV W×H/2 bytes (U first) |
/// | ``yuv422p`` | `yuv422p` | `422` | Y W×H, U and V W/2×H |
/// | ``yuv444p`` | `yuv444p` | `444` | Y, U and V W×H |
/// | ``yuv420p10le`` | `yuv420p10le` | `420p10` | as `yuv420p`, 16-bit little-endian samples 0…1023 |
/// | ``yuv422p10le`` | `yuv422p10le` | `422p10` | as `yuv422p`, 16-bit samples |
/// | ``yuv444p10le`` | `yuv444p10le` | `444p10` | as `yuv444p`, 16-bit samples |
/// | ``p010le`` | `p010le` | — | as `nv12`, 16-bit little-endian words, the 10 bits in the high bits |
///
/// Chroma subsampling sets which sizes are allowed: 4:2:0 needs an even width and height, 4:2:2
/// an even width, 4:4:4 any size (H.264 Table 6-1 `SubWidthC`/`SubHeightC`, H.265 Table 6-1).
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 8-bit planar 4:2:0 Y, U, V (ffmpeg's `yuv420p`; ``yuv420p`` is another name for it).
    case i420
    /// 8-bit Y plane followed by one interleaved U/V plane, 4:2:0.
    case nv12
    /// 10-bit planar 4:2:0; each sample a little-endian 16-bit word holding a value 0…1023.
    case yuv420p10le
    /// 8-bit planar 4:2:2: chroma planes half the luma width, full height.
    case yuv422p
    /// 8-bit planar 4:4:4: three full-size planes.
    case yuv444p
    /// 10-bit planar 4:2:2 (16-bit little-endian samples 0…1023).
    case yuv422p10le
    /// 10-bit planar 4:4:4 (16-bit little-endian samples 0…1023).
    case yuv444p10le
    /// 10-bit semi-planar 4:2:0, laid out as ``nv12`` with 16-bit little-endian words whose high
    /// 10 bits hold the sample (value << 6), as hardware decoders and cameras deliver it. The
    /// backends convert it to planar ``yuv420p10le`` (one copy per frame) for the libraries.
    case p010le

    /// ffmpeg's name for ``i420``.
    public static var yuv420p: PixelFormat { .i420 }

    /// How the chroma planes are subsampled against luma, with `chroma_format_idc`
    /// (H.264 and H.265 Table 6-1).
    public enum ChromaSubsampling: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// 4:2:0: chroma at half the luma width and height.
        case yuv420 = 1
        /// 4:2:2: chroma at half the luma width, full height.
        case yuv422 = 2
        /// 4:4:4: chroma at full resolution.
        case yuv444 = 3

        /// `chroma_format_idc`: 1, 2 or 3.
        public var chromaFormatIdc: Int { rawValue }
        /// `SubWidthC`: 2 for 4:2:0 and 4:2:2, 1 for 4:4:4.
        public var subWidth: Int { self == .yuv444 ? 1 : 2 }
        /// `SubHeightC`: 2 for 4:2:0, 1 otherwise.
        public var subHeight: Int { self == .yuv420 ? 2 : 1 }

        public var description: String {
            switch self {
            case .yuv420: "4:2:0"
            case .yuv422: "4:2:2"
            case .yuv444: "4:4:4"
            }
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The format named `name`, as ffmpeg (`yuv422p10le`), x264 (`i420`, `i422`, `i444`) or the
    /// Y4M `C` tag (`422p10`) spell it, case-insensitively; `nil` for any other name.
    public init?(name: String) {
        let lower = name.lowercased()
        if let format = PixelFormat(rawValue: lower) { self = format; return }
        switch lower {
        case "yuv420p", "iyuv": self = .i420
        case "i422": self = .yuv422p
        case "i444": self = .yuv444p
        case "yuv420p10": self = .yuv420p10le
        case "yuv422p10": self = .yuv422p10le
        case "yuv444p10": self = .yuv444p10le
        default:
            guard let format = PixelFormat(y4mColourSpace: lower) else { return nil }
            self = format
        }
    }

    /// The format a Y4M `C` tag names (`420jpeg`, `420mpeg2`, `420paldv`, `420`, `422`, `444`,
    /// `420p10`, `422p10`, `444p10`); `nil` for the others (`mono`, `444alpha`, 9-, 12- and
    /// 16-bit forms).
    public init?(y4mColourSpace tag: String) {
        switch tag {
        case "420jpeg", "420mpeg2", "420paldv", "420": self = .i420
        case "422": self = .yuv422p
        case "444": self = .yuv444p
        case "420p10": self = .yuv420p10le
        case "422p10": self = .yuv422p10le
        case "444p10": self = .yuv444p10le
        default: return nil
        }
    }

    /// The Y4M `C` tag that announces this format (`420jpeg` for ``i420``, as ffmpeg writes it),
    /// or `nil` for ``nv12``, which Y4M cannot carry.
    public var y4mColourSpace: String? {
        switch self {
        case .i420: "420jpeg"
        case .nv12: nil
        case .yuv420p10le: "420p10"
        case .yuv422p: "422"
        case .yuv444p: "444"
        case .yuv422p10le: "422p10"
        case .yuv444p10le: "444p10"
        case .p010le: nil
        }
    }

    /// The name ffmpeg and ffprobe use (`pix_fmt`): `yuv420p` for ``i420``, else ``rawValue``.
    public var ffmpegName: String { self == .i420 ? "yuv420p" : rawValue }

    /// The Y4M `C` tags this reader understands, for messages.
    static let y4mColourSpaces = ["420jpeg", "420mpeg2", "420paldv", "420", "422", "444", "420p10", "422p10", "444p10"]

    /// The chroma format the samples have (and the stream is coded in).
    public var chromaSubsampling: ChromaSubsampling {
        switch self {
        case .i420, .nv12, .yuv420p10le, .p010le: .yuv420
        case .yuv422p, .yuv422p10le: .yuv422
        case .yuv444p, .yuv444p10le: .yuv444
        }
    }

    /// Bits per sample in the coded stream (8 or 10).
    public var bitDepth: Int {
        switch self {
        case .yuv420p10le, .yuv422p10le, .yuv444p10le, .p010le: 10
        case .i420, .nv12, .yuv422p, .yuv444p: 8
        }
    }

    /// Bytes per stored sample (1 or 2).
    public var bytesPerSample: Int { bitDepth > 8 ? 2 : 1 }
    /// Number of planes (3, or 2 for the semi-planar ``nv12`` and ``p010le``).
    public var planeCount: Int { isSemiPlanar ? 2 : 3 }
    /// Whether U and V share one interleaved plane (``nv12``, ``p010le``).
    public var isSemiPlanar: Bool { self == .nv12 || self == .p010le }
    /// The planar format with the same samples: ``i420`` for ``nv12``, ``yuv420p10le`` for
    /// ``p010le``, else the format itself.
    public var planarEquivalent: PixelFormat {
        switch self {
        case .nv12: .i420
        case .p010le: .yuv420p10le
        default: self
        }
    }

    public var description: String { rawValue }

    /// "4:2:2 8-bit", for messages.
    public var summary: String { "\(chromaSubsampling) \(bitDepth)-bit" }

    /// Whether a `width`×`height` picture fits the chroma subsampling: positive, and a whole
    /// number of chroma samples in each direction.
    public func allowsSize(width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && width % chromaSubsampling.subWidth == 0 && height % chromaSubsampling.subHeight == 0
    }

    /// What ``allowsSize(width:height:)`` asks, for messages: "a positive, even 4:2:0 size".
    var sizeRequirement: String {
        switch chromaSubsampling {
        case .yuv420: "a positive, even 4:2:0 size"
        case .yuv422: "a positive 4:2:2 size (even width)"
        case .yuv444: "a positive size"
        }
    }

    /// The minimum bytes per row of `plane` for a frame `width` pixels wide (a width
    /// ``allowsSize(width:height:)`` accepts).
    public func rowBytes(plane: Int, width: Int) -> Int {
        let samples = plane == 0 || isSemiPlanar ? width : width / chromaSubsampling.subWidth
        return samples * bytesPerSample
    }

    /// Rows in `plane` for a frame `height` pixels high.
    public func rows(plane: Int, height: Int) -> Int { plane == 0 ? height : height / chromaSubsampling.subHeight }

    /// Bytes in one tightly packed frame, or `nil` if the size overflows `Int` or does not fit
    /// the chroma subsampling.
    public func frameSize(width: Int, height: Int) -> Int? {
        guard allowsSize(width: width, height: height) else { return nil }
        let (luma, o1) = width.multipliedReportingOverflow(by: height)
        guard !o1 else { return nil }
        // Chroma samples per picture: 1/2 (4:2:0), 1 (4:2:2) or 2 (4:4:4) luma pictures.
        let (chroma, o2) = (luma / (chromaSubsampling.subWidth * chromaSubsampling.subHeight)).multipliedReportingOverflow(by: 2)
        let (samples, o3) = luma.addingReportingOverflow(chroma)
        let (bytes, o4) = samples.multipliedReportingOverflow(by: bytesPerSample)
        guard !o2, !o3, !o4 else { return nil }
        return bytes
    }
}
