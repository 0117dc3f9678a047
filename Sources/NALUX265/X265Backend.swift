internal import CX265
public import Logging
import NALU
public import NALUEncoder

/// Creates HEVC encoders backed by libx265 (8-bit, or 10-bit through the multi-library API).
///
/// Settings are applied in the order x265 requires: `param_default_preset` (preset and tune),
/// then the configuration's fields, then `param_apply_profile`. ``validate(_:)`` runs those steps
/// without opening an encoder, so bad settings fail before any frame.
///
/// Logging: libx265 (up to 3.5, API build 199) has no log callback in its public API; it prints
/// to stderr itself. So its lines cannot reach ``logger``; instead x265's `logLevel` follows the
/// logger's level, and a logger set to `.critical` (the CLI's `--quiet`) makes x265 print
/// nothing: `.trace` → full, `.debug` → info (x265's banner), `.info`/`.notice`/`.warning` →
/// warning (for example "Source height < 720p"), `.error` → error, `.critical` → none.
public struct X265BackendFactory: EncoderBackendFactory {
    /// Whose level decides what libx265 prints (``defaultLogger`` when not given).
    public var logger: Logger

    public init(logger: Logger = X265BackendFactory.defaultLogger) {
        self.logger = logger
    }

    /// The logger used when none is given: label `nalu.x265`, the logging system's handler, level
    /// `.warning` (so x265's informational lines, such as its end-of-encode statistics, are
    /// not asked for unless you pass a logger with a lower level).
    public static var defaultLogger: Logger {
        var logger = Logger(label: "nalu.x265")
        logger.logLevel = .warning
        return logger
    }

    /// The x265 `logLevel` for a logger level (see the type's documentation).
    static func x265LogLevel(for level: Logger.Level) -> Int32 {
        switch level {
        case .trace: X265_LOG_FULL
        case .debug: X265_LOG_INFO
        case .info, .notice, .warning: X265_LOG_WARNING
        case .error: X265_LOG_ERROR
        case .critical: X265_LOG_NONE
        }
    }

    public var name: String { "x265" }

    /// The libx265 API build number this module was compiled against (`X265_BUILD`).
    public static var build: Int { Int(nalu_x265_build()) }

    /// Whether libx265 can encode at `bitDepth` (8, 10 or 12); `false` when the library cannot be
    /// loaded (it is opened at first use).
    public static func supports(bitDepth: Int) -> Bool {
        guard let library = try? X265Library.load() else { return false }
        return library.apiGet(Int32(bitDepth)) != nil
    }

    /// Loads libx265 if not yet loaded, and says whether it could be and at which bit depths it
    /// encodes (`nalu doctor --encoders`).
    package static var libraryStatus: EncoderLibraryStatus {
        do throws(EncoderError) {
            let library = try X265Library.load()
            let depths = [8, 10, 12].filter { library.apiGet(Int32($0)) != nil }.map { "\($0)" }
            return EncoderLibraryStatus(encoder: "x265", fileName: library.fileName,
                                        version: "API build \(build), \(depths.joined(separator: "/"))-bit")
        } catch {
            return EncoderLibraryStatus(encoder: "x265", fileName: error.field, error: error)
        }
    }

    public func validate(_ configuration: EncoderConfiguration) throws(EncoderError) {
        guard configuration.codec == .hevc else {
            throw EncoderError(.unsupported, field: "codec", detail: "x265 encodes HEVC, not \(configuration.codec)")
        }
        try configuration.validate()
        let api = try X265Encoder.api(bitDepth: configuration.pixelFormat.bitDepth)
        let param = try X265Encoder.makeParameters(configuration, api: api, logLevel: Self.x265LogLevel(for: logger.logLevel))
        api.pointee.param_free?(param)
    }

    public func makeBackend(for configuration: EncoderConfiguration) throws(EncoderError) -> any EncoderBackend {
        try validate(configuration)
        return try X265Encoder(configuration: configuration, logLevel: Self.x265LogLevel(for: logger.logLevel))
    }
}

/// One open libx265 encoder. Owns the `x265_encoder` handle, its parameters and pictures;
/// `deinit` closes and frees them. Every x265 call of the package is in this file, through the
/// `x265_api` table of ``X265Library`` (loaded at first use).
final class X265Encoder: EncoderBackend {
    private let api: UnsafePointer<x265_api>
    private let encoder: OpaquePointer
    private let param: UnsafeMutablePointer<x265_param>
    private let pictureIn: UnsafeMutablePointer<x265_picture>
    private let pictureOut: UnsafeMutablePointer<x265_picture>
    /// U and V planes for NV12 input, which x265 does not take directly.
    private let chroma: UnsafeMutableRawBufferPointer?
    private let configuration: EncoderConfiguration
    /// P010 input made planar and low-aligned (x265 reads planar, low-aligned samples).
    private let converter: PlanarConverter?
    let parameterSets: [[UInt8]]

    /// x265 requires every call after a flush to be a flush (x265.h), so a flushed encoder is
    /// replaced.
    var canEncodeAfterFlush: Bool { false }

    var reorderDepth: Int {
        param.pointee.bframes > 0 ? (param.pointee.bframes > 1 && param.pointee.bBPyramid != 0 ? 2 : 1) : 0
    }

    static func api(bitDepth: Int) throws(EncoderError) -> UnsafePointer<x265_api> {
        guard let api = try X265Library.load().apiGet(Int32(bitDepth)) else {
            throw EncoderError(.unsupported, field: "x265_api_get", detail: "libx265 has no \(bitDepth)-bit encoder")
        }
        return api
    }

    init(configuration: EncoderConfiguration, logLevel: Int32) throws(EncoderError) {
        self.configuration = configuration
        converter = configuration.pixelFormat == .p010le
            ? try PlanarConverter(format: .p010le, width: configuration.width, height: configuration.height) : nil
        let api = try Self.api(bitDepth: configuration.pixelFormat.bitDepth)
        self.api = api
        let param = try Self.makeParameters(configuration, api: api, logLevel: logLevel)
        guard let pictureIn = api.pointee.picture_alloc?(),
              let pictureOut = api.pointee.picture_alloc?() else {
            api.pointee.param_free?(param)
            throw EncoderError(.backendCreationFailed, field: "x265 allocation")
        }
        guard let encoder = api.pointee.encoder_open?(param) else {
            api.pointee.param_free?(param)
            api.pointee.picture_free?(pictureIn)
            api.pointee.picture_free?(pictureOut)
            throw EncoderError(.backendCreationFailed, field: "x265_encoder_open", detail: "libx265 returned no encoder (its reason, if the factory's logger level lets x265 print, is on stderr)")
        }
        self.param = param
        self.pictureIn = pictureIn
        self.pictureOut = pictureOut
        self.encoder = encoder
        if configuration.pixelFormat == .nv12 {
            let chromaBytes = (configuration.width / 2) * (configuration.height / 2) * 2
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chromaBytes), alignment: 64)
            chroma = buffer
        } else {
            chroma = nil
        }

        var nals: UnsafeMutablePointer<x265_nal>?
        var count: UInt32 = 0
        let status = api.pointee.encoder_headers?(encoder, &nals, &count) ?? -1
        var units: [[UInt8]] = []
        if status >= 0, let nals {
            for index in 0..<Int(count) {
                let nal = nals[index]
                guard let payload = nal.payload, nal.sizeBytes > 0 else { continue }
                units.append(Self.stripFraming(UnsafeRawBufferPointer(start: payload, count: Int(nal.sizeBytes)), annexB: configuration.outputFormat == .annexB))
            }
        }
        parameterSets = EncoderFraming.parameterSets(units, codec: .hevc)
        guard status >= 0, !parameterSets.isEmpty else {
            // deinit does not run for a partly initialised object: release here.
            api.pointee.encoder_close?(encoder)
            api.pointee.param_free?(param)
            api.pointee.picture_free?(pictureIn)
            api.pointee.picture_free?(pictureOut)
            chroma?.deallocate()
            throw EncoderError(.backendCreationFailed, field: "x265_encoder_headers", libraryStatus: status)
        }

        api.pointee.picture_init?(param, pictureIn)
        api.pointee.picture_init?(param, pictureOut)
        pictureIn.pointee.colorSpace = Self.colourSpace(configuration.pixelFormat.chromaSubsampling)
        pictureIn.pointee.bitDepth = Int32(configuration.pixelFormat.bitDepth)
    }

    deinit {
        api.pointee.encoder_close?(encoder)
        api.pointee.param_free?(param)
        api.pointee.picture_free?(pictureIn)
        api.pointee.picture_free?(pictureOut)
        chroma?.deallocate()
    }

    /// preset/tune defaults → configuration fields → profile, as x265.h prescribes. The caller
    /// frees the result with `param_free`.
    static func makeParameters(_ c: EncoderConfiguration, api: UnsafePointer<x265_api>, logLevel: Int32) throws(EncoderError) -> UnsafeMutablePointer<x265_param> {
        guard let p = api.pointee.param_alloc?() else {
            throw EncoderError(.backendCreationFailed, field: "x265_param_alloc")
        }
        let preset = (c.preset ?? "medium").lowercased()
        let status: Int32 = preset.withCString { presetName in
            if let tune = c.tune?.lowercased() {
                return tune.withCString { api.pointee.param_default_preset?(p, presetName, $0) ?? -1 }
            }
            return api.pointee.param_default_preset?(p, presetName, nil) ?? -1
        }
        guard status >= 0 else {
            api.pointee.param_free?(p)
            throw EncoderError(.invalidConfiguration, field: "preset/tune", detail: "x265 rejects preset \"\(preset)\"\(c.tune.map { " with tune \"\($0)\"" } ?? "")", libraryStatus: status)
        }
        func parse(_ name: String, _ value: String) throws(EncoderError) {
            let result = name.withCString { n in value.withCString { v in api.pointee.param_parse?(p, n, v) ?? -1 } }
            guard result == 0 else {
                api.pointee.param_free?(p)
                throw EncoderError(.invalidConfiguration, field: name, detail: "x265 rejects \"\(value)\"", libraryStatus: result)
            }
        }
        p.pointee.logLevel = logLevel
        p.pointee.sourceWidth = Int32(c.width)
        p.pointee.sourceHeight = Int32(c.height)
        p.pointee.internalCsp = colourSpace(c.pixelFormat.chromaSubsampling)
        p.pointee.internalBitDepth = Int32(c.pixelFormat.bitDepth)
        p.pointee.fpsNum = UInt32(c.frameRate.numerator)
        p.pointee.fpsDenom = UInt32(c.frameRate.denominator)
        p.pointee.keyframeMax = Int32(c.keyframeInterval)
        if p.pointee.keyframeMin > p.pointee.keyframeMax { p.pointee.keyframeMin = p.pointee.keyframeMax }
        p.pointee.bOpenGOP = c.openGOP ? 1 : 0
        if !c.sceneCutDetection { p.pointee.scenecutThreshold = 0 }
        if let bFrames = c.bFrames { p.pointee.bframes = Int32(bFrames) }
        switch c.rateControl {
        case .bitrate(let bps):
            p.pointee.rc.rateControlMode = Int32(X265_RC_ABR.rawValue)
            p.pointee.rc.bitrate = Int32(max(1, bps / 1000))
        case .crf(let value):
            p.pointee.rc.rateControlMode = Int32(X265_RC_CRF.rawValue)
            p.pointee.rc.rfConstant = value
        case .qp(let value):
            p.pointee.rc.rateControlMode = Int32(X265_RC_CQP.rawValue)
            p.pointee.rc.qp = Int32(value)
        }
        if let maxRate = c.vbvMaxBitrate, let buffer = c.vbvBufferSize {
            p.pointee.rc.vbvMaxBitrate = Int32(max(1, maxRate / 1000))
            p.pointee.rc.vbvBufferSize = Int32(max(1, buffer / 1000))
        }
        if let level = try c.levelIdc() {
            try parse("level-idc", level % 10 == 0 ? "\(level / 10)" : "\(level / 10).\(level % 10)")
        }
        if let threads = c.threads, threads > 0 { try parse("pools", "\(threads)") }
        if let frames = c.expectedFrameCount { p.pointee.totalFrames = Int32(clamping: frames) }
        p.pointee.bRepeatHeaders = c.repeatParameterSets ? 1 : 0
        p.pointee.bAnnexB = c.outputFormat == .annexB ? 1 : 0
        if let interlace = c.interlace {
            // libx265 takes field pictures in output order (`--interlace`, x265.h `interlaceMode`):
            // it writes field_seq_flag 1 and a pic_struct per field (ITU-T H.265 E.3.1, D.3.3).
            // Splitting frames into fields is its CLI's job (`--field`), not the library's.
            guard interlace.layout == .separateFields else {
                api.pointee.param_free?(p)
                throw EncoderError(.unsupported, field: "interlace",
                                   detail: "x265 codes interlaced video as separate field pictures, not frames of two interleaved fields; give it fields at the field rate, or use x264")
            }
            p.pointee.interlaceMode = interlace.fieldOrder == .topFieldFirst ? 1 : 2
        }
        p.pointee.bEnablePsnr = c.computePSNR ? 1 : 0
        p.pointee.bEnableSsim = c.computeSSIM ? 1 : 0
        // x265 turns PSNR/SSIM off below log level info (x265_encoder_open), and has no log
        // callback: measuring makes it print its info lines (banner, statistics) on stderr.
        if c.computePSNR || c.computeSSIM { p.pointee.logLevel = max(p.pointee.logLevel, X265_LOG_INFO) }

        // --x265-params: after nalu's settings, before the profile (as the x265 CLI orders them).
        // Parameters naming files go through LibraryFileParameters first (issue 32 item 2).
        do throws(EncoderError) {
            try LibraryFileParameters.check(c.extraParameters, table: LibraryFileParameters.x265, field: "x265-params")
        } catch {
            api.pointee.param_free?(p)
            throw error
        }
        for parameter in c.extraParameters {
            let result = parameter.name.withCString { n in parameter.value.withCString { v in api.pointee.param_parse?(p, n, v) ?? -1 } }
            guard result == 0 else {
                api.pointee.param_free?(p)
                let detail = result == X265_PARAM_BAD_NAME ? "unknown option \"\(parameter.name)\""
                    : "bad value \"\(parameter.value)\" for \"\(parameter.name)\""
                throw EncoderError(.invalidConfiguration, context: "x265-params", detail: detail, libraryStatus: result)
            }
        }
        let profile = c.effectiveProfile
        let profileStatus = profile.withCString { api.pointee.param_apply_profile?(p, $0) ?? -1 }
        guard profileStatus >= 0 else {
            api.pointee.param_free?(p)
            throw EncoderError(.invalidConfiguration, field: "profile", detail: "x265 cannot apply profile \"\(profile)\" to these settings", libraryStatus: profileStatus)
        }
        return p
    }

    /// libx265 (3.5, `Encoder::finishFrameStats`) divides each chroma plane's squared error by a
    /// quarter of the luma samples whatever the chroma format: right for 4:2:0, but 4:2:2
    /// planes hold twice and 4:4:4 planes four times as many samples, so its U and V PSNR read
    /// 10·log10(2) = 3.01 dB and 10·log10(4) = 6.02 dB low (the x265 CLI prints the same low
    /// figures). The dB to add back.
    static func chromaPSNROffset(_ chroma: PixelFormat.ChromaSubsampling) -> Double {
        switch chroma {
        case .yuv420: 0
        case .yuv422: 3.010299956639812
        case .yuv444: 6.020599913279624
        }
    }

    /// A chroma PSNR from x265 with `offset` added, except x265's 99.99 for a plane without error.
    static func correctedChromaPSNR(_ value: Double, offset: Double) -> Double {
        value >= 99.99 ? value : value + offset
    }

    /// x265's colour space (`X265_CSP_I420`, `I422`, `I444`) for a chroma format.
    static func colourSpace(_ chroma: PixelFormat.ChromaSubsampling) -> Int32 {
        switch chroma {
        case .yuv420: X265_CSP_I420
        case .yuv422: X265_CSP_I422
        case .yuv444: X265_CSP_I444
        }
    }

    /// A NAL unit from x265 without its start code (Annex-B) or 4-byte length.
    private static func stripFraming(_ bytes: UnsafeRawBufferPointer, annexB: Bool) -> [UInt8] {
        if !annexB { return Array(bytes.dropFirst(4)) }
        var index = 0
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        if index < bytes.count, bytes[index] == 1 { index += 1 }
        return Array(bytes[index...])
    }

    func encode(_ frame: Frame, forceKeyframe: Bool, into packets: inout [EncodedPacket]) throws(EncoderError) {
        let frame = converter?.convert(frame) ?? frame
        let picture = pictureIn
        picture.pointee.planes.0 = UnsafeMutableRawPointer(mutating: frame.plane0.baseAddress)
        picture.pointee.stride.0 = Int32(frame.plane0.bytesPerRow)
        if frame.pixelFormat == .nv12, let chroma, let base = chroma.baseAddress {
            // Split the interleaved UV plane into the U and V planes x265 reads.
            let chromaWidth = frame.width / 2
            let chromaHeight = frame.height / 2
            let u = base.assumingMemoryBound(to: UInt8.self)
            let v = u + chromaWidth * chromaHeight
            let source = frame.plane1.baseAddress.assumingMemoryBound(to: UInt8.self)
            for row in 0..<chromaHeight {
                let line = source + row * frame.plane1.bytesPerRow
                let uRow = u + row * chromaWidth
                let vRow = v + row * chromaWidth
                for column in 0..<chromaWidth {
                    uRow[column] = line[2 * column]
                    vRow[column] = line[2 * column + 1]
                }
            }
            picture.pointee.planes.1 = UnsafeMutableRawPointer(u)
            picture.pointee.planes.2 = UnsafeMutableRawPointer(v)
            picture.pointee.stride.1 = Int32(chromaWidth)
            picture.pointee.stride.2 = Int32(chromaWidth)
        } else if let plane2 = frame.plane2 {
            // x265 reads the input picture during this call only and never writes to it.
            picture.pointee.planes.1 = UnsafeMutableRawPointer(mutating: frame.plane1.baseAddress)
            picture.pointee.stride.1 = Int32(frame.plane1.bytesPerRow)
            picture.pointee.planes.2 = UnsafeMutableRawPointer(mutating: plane2.baseAddress)
            picture.pointee.stride.2 = Int32(plane2.bytesPerRow)
        }
        picture.pointee.pts = frame.pts
        picture.pointee.sliceType = forceKeyframe ? X265_TYPE_IDR : X265_TYPE_AUTO
        var nals: UnsafeMutablePointer<x265_nal>?
        var count: UInt32 = 0
        let status = api.pointee.encoder_encode?(encoder, &nals, &count, picture, pictureOut) ?? -1
        picture.pointee.planes = (nil, nil, nil)
        guard status >= 0 else {
            throw EncoderError(.encodeFailed, field: "x265_encoder_encode", detail: "frame pts \(frame.pts)", libraryStatus: status)
        }
        if status > 0, let nals, count > 0 { packets.append(makePacket(nals, count: Int(count))) }
    }

    func flush(into packets: inout [EncodedPacket]) throws(EncoderError) {
        var iterations = 0
        while iterations < 100_000 {
            iterations += 1
            var nals: UnsafeMutablePointer<x265_nal>?
            var count: UInt32 = 0
            let status = api.pointee.encoder_encode?(encoder, &nals, &count, nil, pictureOut) ?? -1
            guard status >= 0 else {
                throw EncoderError(.encodeFailed, field: "x265_encoder_encode (flush)", libraryStatus: status)
            }
            guard status > 0 else { return }
            if let nals, count > 0 { packets.append(makePacket(nals, count: Int(count))) }
        }
    }

    /// Always `false`: libx265 (measured with 3.5, API build 199) accepts a new ABR bitrate in
    /// `x265_encoder_reconfig` and returns 0, but keeps encoding at the old rate (1.5 Mbit/s
    /// asked down to 400 kbit/s stayed at about 1.5 Mbit/s, with or without VBV). The session
    /// therefore rebuilds the encoder with the new rate, starting with an IDR, and reports the
    /// change as not live. `BitrateChangeTests` measures the rate from packet sizes.
    func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool {
        false
    }

    /// Copies one access unit out of x265's buffers (they are reused by the next call).
    private func makePacket(_ nals: UnsafeMutablePointer<x265_nal>, count: Int) -> EncodedPacket {
        var size = 0
        for index in 0..<count { size += Int(nals[index].sizeBytes) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var types: [UInt8] = []
        types.reserveCapacity(count)
        for index in 0..<count {
            let nal = nals[index]
            types.append(UInt8(truncatingIfNeeded: nal.type))
            guard let payload = nal.payload, nal.sizeBytes > 0 else { continue }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: payload, count: Int(nal.sizeBytes)))
        }
        let out = pictureOut.pointee
        let type: PictureType?
        switch out.sliceType {
        case X265_TYPE_IDR, X265_TYPE_I: type = .i
        case X265_TYPE_P: type = .p
        case X265_TYPE_BREF, X265_TYPE_B: type = .b
        default: type = nil
        }
        var packet = EncodedPacket(bytes: bytes, pts: out.pts, dts: out.dts,
                                   keyframe: EncoderFraming.keyframeClass(nalTypes: types, codec: .hevc, libraryKeyframe: false),
                                   pictureType: type)
        if param.pointee.bEnablePsnr != 0 || param.pointee.bEnableSsim != 0 {
            let stats = out.frameData
            var quality = PictureQuality()
            if param.pointee.bEnablePsnr != 0 {
                quality.psnrY = stats.psnrY
                let offset = Self.chromaPSNROffset(configuration.pixelFormat.chromaSubsampling)
                if offset > 0 {
                    let u = Self.correctedChromaPSNR(stats.psnrU, offset: offset)
                    let v = Self.correctedChromaPSNR(stats.psnrV, offset: offset)
                    quality.psnrU = u
                    quality.psnrV = v
                    // x265's own weighting, (6·Y + U + V) / 8, of the corrected planes.
                    quality.psnrAverage = (6 * stats.psnrY + u + v) / 8
                } else {
                    quality.psnrU = stats.psnrU
                    quality.psnrV = stats.psnrV
                    quality.psnrAverage = stats.psnr
                }
            }
            if param.pointee.bEnableSsim != 0 { quality.ssim = stats.ssim }
            packet.quality = quality
        }
        return packet
    }
}
