/// What `nalu edit` changes in the parameter sets: the VUI's colour description, range, sample
/// aspect ratio and timing, the level, and the cropping window — the fields FFmpeg's
/// `h264_metadata` / `hevc_metadata` bitstream filters set. `nil` leaves a field as it is.
///
/// ```swift
/// var edits = ParameterSetEdits()
/// edits.colourPrimaries = 9; edits.transferCharacteristics = 16; edits.matrixCoefficients = 9
/// let edited = try edits.apply(to: sps)          // an AVCSequenceParameterSet
/// let nal = edited.nalUnit(header: original[0])
/// ```
public struct ParameterSetEdits: Hashable, Sendable {
    /// `colour_primaries` (ITU-T H.273 / Table E-3), 0...255.
    public var colourPrimaries: Int?
    /// `transfer_characteristics` (Table E-4), 0...255.
    public var transferCharacteristics: Int?
    /// `matrix_coefficients` / `matrix_coeffs` (Table E-5), 0...255.
    public var matrixCoefficients: Int?
    /// `video_full_range_flag`: `true` full ("pc") range, `false` limited ("tv").
    public var fullRange: Bool?
    /// The sample aspect ratio, written as a Table E-1 index when one matches, else as
    /// `Extended_SAR` (255) with `sar_width`/`sar_height` (each 1...65535 in lowest terms).
    public var sampleAspectRatio: Rational?
    /// The frame rate written in the VUI timing (and the H.265 VPS timing):
    /// H.264 `num_units_in_tick` = denominator, `time_scale` = 2 × numerator (as x264 writes it);
    /// H.265 `num_units_in_tick` = denominator, `time_scale` = numerator.
    public var frameRate: Rational?
    /// The level (`level_idc`, `general_level_idc`).
    public var level: Level?
    /// The cropping window in luma samples from each edge of the coded picture (replacing any
    /// cropping there is): H.264 `frame_crop_*_offset`, H.265 `conf_win_*_offset`, each a
    /// multiple of the crop unit.
    public var crop: Crop?

    public init() {}

    /// Whether nothing is edited.
    public var isEmpty: Bool { self == ParameterSetEdits() }

    /// Whether the VUI changes.
    var editsVUI: Bool {
        colourPrimaries != nil || transferCharacteristics != nil || matrixCoefficients != nil || fullRange != nil
            || sampleAspectRatio != nil || frameRate != nil
    }

    /// A level as `X.Y`, or H.264's level 1b.
    public struct Level: Hashable, Sendable, CustomStringConvertible {
        /// The major number (1...6, or 8 for H.265 level 8.5).
        public var major: Int
        /// The minor number (0...9).
        public var minor: Int
        /// H.264 level 1b (Table A-1).
        public var is1b: Bool

        public init(major: Int, minor: Int, is1b: Bool = false) {
            self.major = major
            self.minor = minor
            self.is1b = is1b
        }

        /// Parses "4", "4.1", "1b" (also "1.b"); `nil` for anything else.
        public init?(_ text: String) {
            if text == "1b" || text == "1.b" || text == "1B" { self.init(major: 1, minor: 0, is1b: true); return }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let major = Int(parts[0]), (1...9).contains(major) else { return nil }
            var minor = 0
            if parts.count == 2 {
                guard parts[1].count == 1, let value = Int(parts[1]), (0...9).contains(value) else { return nil }
                minor = value
            }
            self.init(major: major, minor: minor)
        }

        public var description: String { is1b ? "1b" : (minor == 0 ? "\(major)" : "\(major).\(minor)") }

        /// The H.264 levels of Table A-1.
        static let avcLevels: Set<Int> = [10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62]
        /// The H.265 levels of Table A.8 (`general_level_idc` / 3).
        static let hevcLevels: Set<Int> = [30, 60, 63, 90, 93, 120, 123, 150, 153, 156, 180, 183, 186, 255]

        /// `level_idc` for H.264 (10 × the level; 1b handled by the caller).
        var avcLevelIdc: Int { major * 10 + minor }
        /// `general_level_idc` for H.265 (30 × the level).
        var hevcLevelIdc: Int { major * 30 + minor * 3 }
    }

    /// A cropping window in luma samples.
    public struct Crop: Hashable, Sendable {
        public var left: Int
        public var right: Int
        public var top: Int
        public var bottom: Int

        public init(left: Int, right: Int, top: Int, bottom: Int) {
            self.left = left
            self.right = right
            self.top = top
            self.bottom = bottom
        }
    }

    /// Checks that the colour description codes fit their 8-bit syntax elements (E.1.1, E.2.1).
    func checkColourCodes() throws(NALUError) {
        for (value, option) in [(colourPrimaries, "--color-primaries"), (transferCharacteristics, "--color-transfer"),
                                (matrixCoefficients, "--color-space")] {
            if let value, !(0...255).contains(value) {
                throw NALUError(.invalidValue, field: option, detail: "\(value) is not 0...255")
            }
        }
    }

    /// The `aspect_ratio_idc` and `sar_width`/`sar_height` for ``sampleAspectRatio`` (Table E-1).
    static func aspectRatioCode(_ ratio: Rational) throws(NALUError) -> (idc: Int, width: Int, height: Int) {
        guard ratio.numerator > 0, ratio.denominator > 0 else {
            throw NALUError(.invalidValue, field: "--sar", detail: "\(ratio.numerator):\(ratio.denominator) is not a positive ratio")
        }
        let reduced = ratio.reduced
        if let index = sarTable.firstIndex(where: { $0.0 == reduced.numerator && $0.1 == reduced.denominator }), index > 0 {
            return (index, 0, 0)
        }
        guard reduced.numerator <= 65535, reduced.denominator <= 65535 else {
            throw NALUError(.invalidValue, field: "--sar", detail: "\(reduced.numerator):\(reduced.denominator) does not fit sar_width/sar_height (16 bits each)")
        }
        return (255, Int(reduced.numerator), Int(reduced.denominator))
    }

    /// Table E-1 (the same in ITU-T H.264 and H.265): index → sample aspect ratio.
    static let sarTable: [(Int64, Int64)] = [
        (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]

    /// The timing terms for ``frameRate``: (`num_units_in_tick`, `time_scale`), each fitting 32 bits.
    static func timing(_ rate: Rational, timeScaleFactor: Int64) throws(NALUError) -> (UInt32, UInt32) {
        let reduced = rate.reduced
        guard reduced.numerator > 0, reduced.denominator > 0 else {
            throw NALUError(.invalidValue, field: "--fps", detail: "\(rate) is not a positive rate")
        }
        let (scale, overflow) = reduced.numerator.multipliedReportingOverflow(by: timeScaleFactor)
        guard !overflow, scale <= Int64(UInt32.max), reduced.denominator <= Int64(UInt32.max) else {
            throw NALUError(.invalidValue, field: "--fps", detail: "\(rate) does not fit num_units_in_tick/time_scale (32 bits each)")
        }
        return (UInt32(reduced.denominator), UInt32(scale))
    }

    /// Checks a crop against the coded size and crop unit; returns the offsets in crop units.
    static func cropUnits(_ crop: Crop, unitX: Int, unitY: Int, codedWidth: Int, codedHeight: Int,
                          chroma: String) throws(NALUError) -> (Int, Int, Int, Int) {
        let values = [("left", crop.left, unitX), ("right", crop.right, unitX), ("top", crop.top, unitY), ("bottom", crop.bottom, unitY)]
        for (name, value, unit) in values {
            guard value >= 0 else { throw NALUError(.invalidValue, field: "--crop", detail: "\(name) \(value) is negative") }
            guard value % unit == 0 else {
                throw NALUError(.invalidValue, field: "--crop",
                                detail: "\(name) \(value) is not a multiple of the crop unit \(unit) (\(chroma))")
            }
        }
        guard crop.left + crop.right < codedWidth, crop.top + crop.bottom < codedHeight,
              crop.left <= Int(UInt32.max - 1), crop.right <= Int(UInt32.max - 1),
              crop.top <= Int(UInt32.max - 1), crop.bottom <= Int(UInt32.max - 1) else {
            throw NALUError(.invalidValue, field: "--crop",
                            detail: "\(crop.left),\(crop.right),\(crop.top),\(crop.bottom) leaves no picture of the coded \(codedWidth)x\(codedHeight)")
        }
        return (crop.left / unitX, crop.right / unitX, crop.top / unitY, crop.bottom / unitY)
    }
}
