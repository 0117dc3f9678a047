public import NALU

/// How the encoder spends bits.
public enum RateControl: Hashable, Sendable, CustomStringConvertible {
    /// Average bitrate in bits per second (x264/x265 ABR).
    case bitrate(Int)
    /// Constant rate factor (quality); lower is better, 23 (x264) / 28 (x265) are the defaults.
    case crf(Double)
    /// Constant quantiser.
    case qp(Int)

    public var description: String {
        switch self {
        case .bitrate(let bps): "bitrate \(bps) bit/s"
        case .crf(let value): "crf \(value)"
        case .qp(let value): "qp \(value)"
        }
    }
}

/// Everything a backend needs to open an encoder. Defaults follow a mobile capture pipeline:
/// 30 fps, a keyframe every 5 s, B-frames on (preset default count), 5 Mbit/s average bitrate,
/// the profile that carries the input (H.264 High, High 10, High 4:2:2 or High 4:4:4 Predictive;
/// HEVC Main, Main 10, Main 4:2:2 10 or Main 4:4:4 (10): ``EncoderProfile/default(codec:pixelFormat:)``),
/// Annex-B output with parameter sets repeated before every keyframe.
///
/// Settings are applied by the backends in the order x264 and x265 require: the preset and tune
/// defaults first, then these fields, then the profile's restrictions.
public struct EncoderConfiguration: Hashable, Sendable {
    public var codec: Codec
    public var width: Int
    public var height: Int
    /// Layout of the frames the session will be given.
    public var pixelFormat: PixelFormat = .i420
    /// Frames per second, e.g. `Rational(30000, 1001)`.
    public var frameRate: Rational = Rational(30, 1)
    /// The unit of ``Frame/pts`` and of packet timestamps; `nil` means one tick per frame
    /// (the inverse of ``frameRate``).
    public var timeBase: Rational? = nil
    public var rateControl: RateControl = .bitrate(5_000_000)
    /// VBV maximum rate in bits per second (`nil`: unconstrained).
    public var vbvMaxBitrate: Int? = nil
    /// VBV buffer size in bits (`nil`: unconstrained).
    public var vbvBufferSize: Int? = nil
    /// Distance between keyframes in frames (`nil`: 5 seconds of frames).
    public var gopLength: Int? = nil
    /// Upper bound on the distance between keyframes in seconds; the keyframe interval is the
    /// smaller of this and ``gopLength``.
    public var maxKeyframeIntervalSeconds: Double? = nil
    /// Consecutive B-frames: `nil` uses the preset's count (B-frames on), 0 turns them off.
    public var bFrames: Int? = nil
    /// Open GOPs (x264 `--open-gop`, x265 CRA keyframes). Off by default so every keyframe is an IDR.
    public var openGOP: Bool = false
    /// Insert extra keyframes at scene cuts (the libraries' default). Off gives exact GOP spacing.
    public var sceneCutDetection: Bool = true
    /// x264: `baseline`, `main`, `high`, `high10`, `high422`, `high444`; x265: `main`, `main10`,
    /// `mainstillpicture`, `main422-10`, `main444-8`, `main444-10` (``EncoderProfile``). A
    /// profile that cannot carry ``pixelFormat`` is refused by ``validate()``.
    /// `nil`: the smallest that carries the input (``EncoderProfile/default(codec:pixelFormat:)``).
    public var profile: String? = nil
    /// Level as `"4.1"`, `"41"` or `"1b"`; `nil` lets the encoder choose.
    public var level: String? = nil
    /// Speed/quality preset (`ultrafast` … `placebo`); `nil`: the library default,
    /// ``defaultPreset``.
    public var preset: String? = nil
    /// The preset of every nalu API that re-encodes when none is given (`nalu encode`,
    /// ``NALUExport/ExportSession``, ``NALUSmartCut/SmartTrimmer``, ``NALUSmartCut/SmartCutList``):
    /// `medium`, x264's and x265's own default (issue 39: one default everywhere).
    public static let defaultPreset = "medium"
    /// Tuning, e.g. `zerolatency`, `film`, `psnr`; `nil`: none.
    public var tune: String? = nil
    /// Worker threads; `nil` or 0: the library decides.
    public var threads: Int? = nil
    /// How many frames will be encoded, when known (x264 `i_frame_total`, x265 `totalFrames`).
    /// A hint: x265's ABR rate control plans with it, as the CLIs do when the input size is known.
    /// Any count is accepted; the backends pass at most 2^31 − 1, the libraries' `int`.
    public var expectedFrameCount: Int64? = nil
    /// Annex-B start codes or 4-byte big-endian length prefixes.
    public var outputFormat: StreamFormat = .annexB
    /// Repeat the parameter sets in-band before every keyframe (so any keyframe, and every
    /// rebuilt stream, is decodable on its own).
    public var repeatParameterSets: Bool = true
    /// Settings for the encoder library's own parser (x264: `x264_param_parse`, x265:
    /// `x265_param_parse`), applied in order after every field above and before the profile.
    /// An unknown name or a bad value is ``EncoderError/Code/invalidConfiguration`` from the
    /// factory's `validate`, before any frame. Backends without such a parser refuse a non-empty list.
    public var extraParameters: [EncoderParameter] = []
    /// Have the library measure each picture's PSNR against its source (x264 `analyse.b_psnr`,
    /// x265 `bEnablePsnr`); packets carry it in ``EncodedPacket/quality``. Costs some speed.
    public var computePSNR: Bool = false
    /// Have the library measure each picture's luma SSIM (x264 `analyse.b_ssim`, x265 `bEnableSsim`).
    public var computeSSIM: Bool = false
    /// Interlaced coding (issue 41 item 15): `nil` codes progressive pictures. With
    /// ``NALU/Interlace/Layout/interleavedFrames`` each frame given holds two interleaved fields
    /// (as a decoder outputs 1080i H.264): x264 codes them MBAFF (`--interlaced`, `--tff` or
    /// `--bff`) with picture timing SEI saying the field order. With
    /// ``NALU/Interlace/Layout/separateFields`` each frame given is one field, in output order,
    /// at the field rate (as a decoder outputs field-coded H.265): x265 codes them as field
    /// pictures (`--interlace tff|bff`: `field_seq_flag` 1, `pic_struct` per field). A backend
    /// that cannot code the layout refuses it (``EncoderError/Code/unsupported``) instead of
    /// writing progressive pictures: OpenH264 codes neither, x264 no separate fields, x265 no
    /// interleaved frames. The Baseline profile cannot carry interlaced coding (ITU-T H.264
    /// A.2.1: `frame_mbs_only_flag` 1).
    public var interlace: Interlace? = nil

    public init(codec: Codec, width: Int, height: Int) {
        self.codec = codec
        self.width = width
        self.height = height
    }

    /// The time base in effect: ``timeBase`` or one tick per frame.
    public var effectiveTimeBase: Rational {
        timeBase ?? Rational(frameRate.denominator, frameRate.numerator)
    }

    /// The maximum distance between keyframes in frames: ``gopLength`` (default 5 s of frames),
    /// capped by ``maxKeyframeIntervalSeconds``. At least 1.
    public var keyframeInterval: Int {
        let numerator = max(1, frameRate.numerator)
        let denominator = max(1, frameRate.denominator)
        // 5 seconds of frames, rounded to the nearest frame (integer arithmetic: no libm).
        let (fiveSeconds, overflow) = numerator.multipliedReportingOverflow(by: 5)
        let (rounded, overflow2) = fiveSeconds.addingReportingOverflow(denominator / 2)
        var interval = gopLength ?? (overflow || overflow2 ? Int.max : Int(clamping: rounded / denominator))
        if let seconds = maxKeyframeIntervalSeconds, seconds.isFinite, seconds > 0 {
            let limit = seconds * Double(numerator) / Double(denominator)
            if limit < Double(interval) { interval = Int(limit) }
        }
        return max(1, interval)
    }

    /// The profile in effect: ``profile`` or the default for the codec and pixel format.
    public var effectiveProfile: String {
        if let profile { return profile.lowercased() }
        return EncoderProfile.default(codec: codec, pixelFormat: pixelFormat).name
    }

    /// `level_idc` for ``level``: 10 × the level (`"4.1"` → 41), `"1b"` → 9; `nil` when unset.
    public func levelIdc() throws(EncoderError) -> Int? {
        guard let level else { return nil }
        let text = level.lowercased()
        if text == "1b" { return 9 }
        let value: Int?
        if text.contains(".") {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), (0...9).contains(minor), (1...9).contains(major) {
                value = major * 10 + minor
            } else {
                value = nil
            }
        } else if let number = Int(text) {
            value = number < 10 ? number * 10 : number
        } else {
            value = nil
        }
        guard let value, (9...62).contains(value) else {
            throw EncoderError.invalid("level", "\"\(level)\" is not a level like 4.1, 41 or 1b")
        }
        return value
    }

    /// The CTU size x265 uses for ``preset``: 32 for `ultrafast` and `superfast`, else 64
    /// (x265 `x265_param_default_preset`); a picture must hold at least one in each direction.
    public var hevcCTUSize: Int {
        switch preset?.lowercased() {
        case "ultrafast", "superfast": 32
        default: 64
        }
    }

    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    static let x264Tunes = ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]
    static let x265Tunes = ["psnr", "ssim", "grain", "zerolatency", "fastdecode", "animation"]

    /// The presets every built-in backend accepts.
    public static var presets: [String] { x264Presets }

    /// Checks every field against the ranges x264 and x265 accept and against each other (for
    /// example B-frames with the Baseline profile, odd sizes, a 10-bit input with an 8-bit
    /// profile). Backends call this and add their own checks before any frame is encoded.
    public func validate() throws(EncoderError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw .invalid("size", "\(width)x\(height) must be between 2x2 and 16384x16384")
        }
        guard pixelFormat.allowsSize(width: width, height: height) else {
            throw .invalid("size", "\(width)x\(height): " + (pixelFormat.chromaSubsampling == .yuv420
                ? "width and height must be even for 4:2:0" : "the width must be even for 4:2:2"))
        }
        guard frameRate.numerator > 0, frameRate.denominator > 0,
              frameRate.numerator <= Int64(UInt32.max), frameRate.denominator <= Int64(UInt32.max) else {
            throw .invalid("frameRate", "\(frameRate) must be a positive ratio of 32-bit integers")
        }
        let fps = frameRate.doubleValue
        guard fps >= 0.01, fps <= 1000 else { throw .invalid("frameRate", "\(frameRate) must be between 0.01 and 1000 fps") }
        if let timeBase {
            guard timeBase.numerator > 0, timeBase.denominator > 0,
                  timeBase.numerator <= Int64(UInt32.max), timeBase.denominator <= Int64(UInt32.max) else {
                throw .invalid("timeBase", "\(timeBase) must be a positive ratio of 32-bit integers")
            }
        }
        let maxQP = pixelFormat.bitDepth == 10 ? 63 : 51
        switch rateControl {
        case .bitrate(let bps):
            guard bps >= 1000, bps <= 2_000_000_000 else { throw .invalid("bitrate", "\(bps) bit/s must be between 1 kbit/s and 2 Gbit/s") }
        case .crf(let value):
            guard value.isFinite, value >= 0, value <= Double(maxQP) else { throw .invalid("crf", "\(value) must be between 0 and \(maxQP)") }
        case .qp(let value):
            guard (0...maxQP).contains(value) else { throw .invalid("qp", "\(value) must be between 0 and \(maxQP)") }
        }
        if let vbvMaxBitrate, !(1000...2_000_000_000).contains(vbvMaxBitrate) {
            throw .invalid("vbvMaxBitrate", "\(vbvMaxBitrate) bit/s must be between 1 kbit/s and 2 Gbit/s")
        }
        if let vbvBufferSize, !(1000...2_000_000_000).contains(vbvBufferSize) {
            throw .invalid("vbvBufferSize", "\(vbvBufferSize) bits must be between 1 kbit and 2 Gbit")
        }
        if (vbvMaxBitrate == nil) != (vbvBufferSize == nil) {
            throw .invalid("vbv", "set both the VBV maximum rate and the VBV buffer size, or neither")
        }
        if let gopLength, !(1...100_000).contains(gopLength) {
            throw .invalid("gopLength", "\(gopLength) frames must be between 1 and 100000")
        }
        if let seconds = maxKeyframeIntervalSeconds, !(seconds.isFinite && seconds > 0 && seconds <= 3600) {
            throw .invalid("maxKeyframeIntervalSeconds", "\(seconds) must be between 0 and 3600 seconds")
        }
        if let bFrames, !(0...16).contains(bFrames) {
            throw .invalid("bFrames", "\(bFrames) must be between 0 and 16")
        }
        if let expectedFrameCount, expectedFrameCount < 0 {
            throw .invalid("expectedFrameCount", "\(expectedFrameCount) must not be negative")
        }
        if let threads, !(0...256).contains(threads) {
            throw .invalid("threads", "\(threads) must be between 0 (auto) and 256")
        }
        if let preset, !Self.x264Presets.contains(preset.lowercased()) {
            throw .invalid("preset", "unknown preset \"\(preset)\"; expected one of \(Self.x264Presets.joined(separator: ", "))")
        }
        let tunes = codec == .h264 ? Self.x264Tunes : Self.x265Tunes
        if let tune {
            // x264 accepts several tunings joined by ",./-+" (at most one psy tuning).
            for part in tune.lowercased().split(whereSeparator: { ",./-+".contains($0) }) where !tunes.contains(String(part)) {
                throw .invalid("tune", "unknown \(codec) tune \"\(part)\"; expected one of \(tunes.joined(separator: ", "))")
            }
        }
        try validateProfile()
        let profile = effectiveProfile
        switch codec {
        case .h264:
            if profile == "baseline", let bFrames, bFrames > 0 {
                throw .invalid("bFrames", "the Baseline profile does not allow B-frames")
            }
            // x264_param_apply_profile rejects lossless below High 4:4:4 Predictive.
            if profile != "high444" {
                switch rateControl {
                case .qp(0): throw .invalid("qp", "lossless (qp 0) needs the High 4:4:4 Predictive profile (high444)")
                case .crf(let value) where value <= 0: throw .invalid("crf", "lossless (crf 0) needs the High 4:4:4 Predictive profile (high444)")
                default: break
                }
            }
        case .hevc:
            // x265 codes a picture in whole CTUs and needs at least one in each direction.
            let ctu = hevcCTUSize
            if width < ctu || height < ctu {
                throw .invalid("size", "\(width)x\(height) is smaller than one \(ctu)x\(ctu) HEVC coding tree unit of the \(preset?.lowercased() ?? "medium") preset; "
                               + (ctu > 32 ? "use the ultrafast or superfast preset (32x32 CTUs) or a size of at least 64x64" : "use a size of at least 32x32"))
            }
            // libx265 (3.5, build 199) writes past its lookahead's cost arrays when a half-size
            // row has fewer than 4 blocks of 8 (valgrind: invalid writes in Lookahead::cuTree,
            // then glibc aborts; its own CLI too). Issue 40 item 1.
            if width < 50 {
                throw .invalid("size", "\(width)x\(height): libx265 corrupts its memory on pictures less than 50 samples wide; use a width of at least 50")
            }
        }
        if let interlace {
            if codec == .h264 && profile == "baseline" {
                throw .invalid("profile", "baseline codes progressive frames only (frame_mbs_only_flag 1); use main or high for interlaced frames")
            }
            // Each field of a 4:2:0 frame holds whole chroma rows: the frame height is a multiple of 4.
            if interlace.layout == .interleavedFrames && pixelFormat.chromaSubsampling == .yuv420 && height % 4 != 0 {
                throw .invalid("size", "\(width)x\(height): interlaced 4:2:0 frames need a height that is a multiple of 4")
            }
        }
        _ = try levelIdc()
    }
}
