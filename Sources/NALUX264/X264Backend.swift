internal import CX264
public import Logging
import NALU
public import NALUEncoder

/// Creates H.264 encoders backed by libx264.
///
/// Settings are applied in the order x264 requires: `x264_param_default_preset` (preset and
/// tune), then the configuration's fields, then `x264_param_apply_profile`. ``validate(_:)`` runs
/// those steps without opening an encoder, so bad settings fail before any frame.
///
/// x264's log lines go to ``logger`` (x264's `pf_log` callback; levels mapped, and x264 asked
/// only for the lines the logger's level keeps), never to stderr: the application's logging
/// backend decides what is shown. (`x264_param_apply_profile` alone still prints a rejected
/// profile to stderr before ``validate(_:)`` throws; x264 gives that function no callback.)
public struct X264BackendFactory: EncoderBackendFactory {
    /// Where the encoders' log lines go (``defaultLogger`` when not given).
    public var logger: Logger

    public init(logger: Logger = X264BackendFactory.defaultLogger) {
        self.logger = logger
    }

    /// The logger used when none is given: label `nalu.x264`, the logging system's handler, level
    /// `.warning` (so x264's informational lines, such as its end-of-encode statistics, are
    /// not asked for unless you pass a logger with a lower level).
    public static var defaultLogger: Logger {
        var logger = Logger(label: "nalu.x264")
        logger.logLevel = .warning
        return logger
    }

    public var name: String { "x264" }

    /// The libx264 API build number this module was compiled against (`X264_BUILD`).
    public static var build: Int { Int(nalu_x264_build()) }

    /// Loads libx264 if not yet loaded, and says whether it could be (`nalu doctor --encoders`).
    package static var libraryStatus: EncoderLibraryStatus {
        do throws(EncoderError) {
            let library = try X264Library.load()
            return EncoderLibraryStatus(encoder: "x264", fileName: library.fileName, version: "API build \(build)")
        } catch {
            return EncoderLibraryStatus(encoder: "x264", fileName: error.field, error: error)
        }
    }

    public func validate(_ configuration: EncoderConfiguration) throws(EncoderError) {
        guard configuration.codec == .h264 else {
            throw EncoderError(.unsupported, field: "codec", detail: "x264 encodes H.264, not \(configuration.codec)")
        }
        try configuration.validate()
        let library = try X264Library.load()
        var param = try X264Encoder.makeParameters(configuration, library: library)
        library.paramCleanup(&param)
    }

    public func makeBackend(for configuration: EncoderConfiguration) throws(EncoderError) -> any EncoderBackend {
        try validate(configuration)
        return try X264Encoder(configuration: configuration, logger: logger)
    }
}

/// One open libx264 encoder. Owns the `x264_t` handle; `deinit` closes it. Every x264 call of
/// the package is in this file, through ``X264Library`` (loaded at first use).
final class X264Encoder: EncoderBackend {
    private let library: X264Library
    private let handle: OpaquePointer
    private var param: x264_param_t
    private var picture = x264_picture_t()
    private var pictureOut = x264_picture_t()
    private let configuration: EncoderConfiguration
    /// P010 input made planar and low-aligned (x264 reads 10-bit samples in the low bits).
    private let converter: PlanarConverter?
    /// x264 keeps a pointer to it (`p_log_private`) for the encoder's life.
    private let logRelay: X264LogRelay
    let parameterSets: [[UInt8]]

    var reorderDepth: Int {
        param.i_bframe > 0 ? (param.i_bframe > 1 && param.i_bframe_pyramid != 0 ? 2 : 1) : 0
    }

    var canEncodeAfterFlush: Bool {
        // Flushing (x264_encoder_encode with no picture) stops x264's lookahead thread, so the
        // handle cannot take frames afterwards.
        false
    }

    init(configuration: EncoderConfiguration, logger: Logger) throws(EncoderError) {
        self.configuration = configuration
        let library = try X264Library.load()
        self.library = library
        converter = configuration.pixelFormat == .p010le
            ? try PlanarConverter(format: .p010le, width: configuration.width, height: configuration.height) : nil
        let logRelay = X264LogRelay(logger: logger)
        self.logRelay = logRelay
        var param = try Self.makeParameters(configuration, library: library)
        logRelay.attach(to: &param)
        // x264 turns PSNR/SSIM off below log level info (x264_validate_parameters); ask for info
        // then, and let the logger's level drop the lines it does not keep.
        if configuration.computePSNR || configuration.computeSSIM { param.i_log_level = max(param.i_log_level, X264_LOG_INFO) }
        guard let handle = library.encoderOpen(&param) else {
            library.paramCleanup(&param)
            throw EncoderError(.backendCreationFailed, field: "x264_encoder_open", detail: "libx264 returned no encoder (its reason went to the factory's logger)")
        }
        self.handle = handle
        self.param = param

        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let status = library.encoderHeaders(handle, &nals, &count)
        var units: [[UInt8]] = []
        if status >= 0, let nals {
            for index in 0..<Int(max(0, count)) {
                let nal = nals[index]
                guard let payload = nal.p_payload, nal.i_payload > 0 else { continue }
                let bytes = UnsafeRawBufferPointer(start: payload, count: Int(nal.i_payload))
                units.append(Self.stripFraming(bytes, annexB: configuration.outputFormat == .annexB))
            }
        }
        parameterSets = EncoderFraming.parameterSets(units, codec: .h264)
        guard status >= 0, !parameterSets.isEmpty else {
            library.encoderClose(handle)
            library.paramCleanup(&self.param)
            throw EncoderError(.backendCreationFailed, field: "x264_encoder_headers", libraryStatus: status)
        }

        library.pictureInit(&picture)
        library.pictureInit(&pictureOut)
        let depthFlag = configuration.pixelFormat.bitDepth > 8 ? X264_CSP_HIGH_DEPTH : 0
        if configuration.pixelFormat == .nv12 {
            picture.img.i_csp = X264_CSP_NV12
            picture.img.i_plane = 2
        } else {
            picture.img.i_csp = Self.planarCSP(configuration.pixelFormat.chromaSubsampling) | depthFlag
            picture.img.i_plane = 3
        }
    }

    deinit {
        library.encoderClose(handle)
        library.paramCleanup(&param)
    }

    /// preset/tune defaults → configuration fields → profile, as x264.h prescribes.
    static func makeParameters(_ c: EncoderConfiguration, library: X264Library) throws(EncoderError) -> x264_param_t {
        var p = x264_param_t()
        let preset = (c.preset ?? "medium").lowercased()
        let status: Int32 = preset.withCString { presetName in
            if let tune = c.tune?.lowercased() {
                return tune.withCString { library.paramDefaultPreset(&p, presetName, $0) }
            }
            return library.paramDefaultPreset(&p, presetName, nil)
        }
        guard status >= 0 else {
            throw EncoderError(.invalidConfiguration, field: "preset/tune", detail: "x264 rejects preset \"\(preset)\"\(c.tune.map { " with tune \"\($0)\"" } ?? "")", libraryStatus: status)
        }
        p.i_log_level = X264_LOG_WARNING
        p.i_width = Int32(c.width)
        p.i_height = Int32(c.height)
        // The coded chroma format (chroma_format_idc); x264 converts NV12 pictures to it.
        p.i_csp = planarCSP(c.pixelFormat.chromaSubsampling)
        p.i_bitdepth = Int32(c.pixelFormat.bitDepth)
        p.i_fps_num = UInt32(c.frameRate.numerator)
        p.i_fps_den = UInt32(c.frameRate.denominator)
        let timeBase = c.effectiveTimeBase
        p.i_timebase_num = UInt32(clamping: timeBase.numerator)
        p.i_timebase_den = UInt32(clamping: timeBase.denominator)
        // Constant frame rate input, as the x264 CLI sets for raw video: rate control uses the
        // frame rate, timestamps pass through.
        p.b_vfr_input = 0
        p.i_keyint_max = Int32(c.keyframeInterval)
        if p.i_keyint_min > p.i_keyint_max { p.i_keyint_min = p.i_keyint_max }
        p.b_open_gop = c.openGOP ? 1 : 0
        if !c.sceneCutDetection { p.i_scenecut_threshold = 0 }
        if let bFrames = c.bFrames { p.i_bframe = Int32(bFrames) }
        switch c.rateControl {
        case .bitrate(let bps):
            p.rc.i_rc_method = X264_RC_ABR
            p.rc.i_bitrate = Int32(max(1, bps / 1000))
        case .crf(let value):
            p.rc.i_rc_method = X264_RC_CRF
            p.rc.f_rf_constant = Float(value)
        case .qp(let value):
            p.rc.i_rc_method = X264_RC_CQP
            p.rc.i_qp_constant = Int32(value)
        }
        if let maxRate = c.vbvMaxBitrate, let buffer = c.vbvBufferSize {
            p.rc.i_vbv_max_bitrate = Int32(max(1, maxRate / 1000))
            p.rc.i_vbv_buffer_size = Int32(max(1, buffer / 1000))
        }
        if let level = try c.levelIdc() { p.i_level_idc = Int32(level) }
        if let threads = c.threads { p.i_threads = Int32(threads) }
        if let frames = c.expectedFrameCount { p.i_frame_total = Int32(clamping: frames) }
        p.b_repeat_headers = c.repeatParameterSets ? 1 : 0
        p.b_annexb = c.outputFormat == .annexB ? 1 : 0
        p.analyse.b_psnr = c.computePSNR ? 1 : 0
        p.analyse.b_ssim = c.computeSSIM ? 1 : 0
        if let interlace = c.interlace {
            // x264 codes interlaced frames MBAFF (`--interlaced`), never single field pictures.
            guard interlace.layout == .interleavedFrames else {
                library.paramCleanup(&p)
                throw EncoderError(.unsupported, field: "interlace",
                                   detail: "x264 codes interlaced video as frames of two interleaved fields (MBAFF), not as separate field pictures; weave the fields into frames, or use x265")
            }
            p.b_interlaced = 1
            p.b_tff = interlace.fieldOrder == .topFieldFirst ? 1 : 0
            // Picture timing SEI with pic_struct 3/4 (ITU-T H.264 Table D-1): players read the
            // field order from it (as ffprobe's field_order does).
            p.b_pic_struct = 1
            // x264 has no weighted P prediction with interlacing (it warns and turns it off).
            p.analyse.i_weighted_pred = X264_WEIGHTP_NONE
        }

        // --x264-params: after nalu's settings, before the profile (as the x264 CLI orders them).
        // Parameters naming files go through LibraryFileParameters first (issue 32 item 2).
        do throws(EncoderError) {
            try LibraryFileParameters.check(c.extraParameters, table: LibraryFileParameters.x264, field: "x264-params")
        } catch {
            library.paramCleanup(&p)
            throw error
        }
        for parameter in c.extraParameters {
            let result = parameter.name.withCString { name in parameter.value.withCString { library.paramParse(&p, name, $0) } }
            guard result == 0 else {
                library.paramCleanup(&p)
                let detail = result == X264_PARAM_BAD_NAME ? "unknown option \"\(parameter.name)\""
                    : "bad value \"\(parameter.value)\" for \"\(parameter.name)\""
                throw EncoderError(.invalidConfiguration, context: "x264-params", detail: detail, libraryStatus: result)
            }
        }
        let profile = c.effectiveProfile
        let profileStatus = profile.withCString { library.paramApplyProfile(&p, $0) }
        guard profileStatus >= 0 else {
            library.paramCleanup(&p)
            throw EncoderError(.invalidConfiguration, field: "profile", detail: "x264 cannot apply profile \"\(profile)\" to these settings", libraryStatus: profileStatus)
        }
        return p
    }

    /// x264's planar colour space for a chroma format.
    static func planarCSP(_ chroma: PixelFormat.ChromaSubsampling) -> Int32 {
        switch chroma {
        case .yuv420: X264_CSP_I420
        case .yuv422: X264_CSP_I422
        case .yuv444: X264_CSP_I444
        }
    }

    /// A NAL unit from x264 without its start code (Annex-B) or 4-byte length.
    private static func stripFraming(_ bytes: UnsafeRawBufferPointer, annexB: Bool) -> [UInt8] {
        if !annexB { return Array(bytes.dropFirst(4)) }
        var index = 0
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        if index < bytes.count, bytes[index] == 1 { index += 1 }
        return Array(bytes[index...])
    }

    func encode(_ frame: Frame, forceKeyframe: Bool, into packets: inout [EncodedPacket]) throws(EncoderError) {
        let frame = converter?.convert(frame) ?? frame
        // x264 reads the input picture during this call only and never writes to it.
        picture.img.plane.0 = UnsafeMutableRawPointer(mutating: frame.plane0.baseAddress).assumingMemoryBound(to: UInt8.self)
        picture.img.i_stride.0 = Int32(frame.plane0.bytesPerRow)
        picture.img.plane.1 = UnsafeMutableRawPointer(mutating: frame.plane1.baseAddress).assumingMemoryBound(to: UInt8.self)
        picture.img.i_stride.1 = Int32(frame.plane1.bytesPerRow)
        if let plane2 = frame.plane2, frame.pixelFormat.planeCount == 3 {
            picture.img.plane.2 = UnsafeMutableRawPointer(mutating: plane2.baseAddress).assumingMemoryBound(to: UInt8.self)
            picture.img.i_stride.2 = Int32(plane2.bytesPerRow)
        } else {
            picture.img.plane.2 = nil
            picture.img.i_stride.2 = 0
        }
        picture.i_type = forceKeyframe ? X264_TYPE_IDR : X264_TYPE_AUTO
        picture.i_pts = frame.pts
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = library.encoderEncode(handle, &nals, &count, &picture, &pictureOut)
        // Do not keep pointers to the caller's memory.
        picture.img.plane = (nil, nil, nil, nil)
        guard size >= 0 else {
            throw EncoderError(.encodeFailed, field: "x264_encoder_encode", detail: "frame pts \(frame.pts)", libraryStatus: size)
        }
        if size > 0, let nals { packets.append(makePacket(nals, count: Int(count), size: Int(size))) }
    }

    func flush(into packets: inout [EncodedPacket]) throws(EncoderError) {
        var guardCount = 0
        while library.encoderDelayedFrames(handle) > 0 && guardCount < 100_000 {
            guardCount += 1
            var nals: UnsafeMutablePointer<x264_nal_t>?
            var count: Int32 = 0
            let size = library.encoderEncode(handle, &nals, &count, nil, &pictureOut)
            guard size >= 0 else {
                throw EncoderError(.encodeFailed, field: "x264_encoder_encode (flush)", libraryStatus: size)
            }
            if size > 0, let nals { packets.append(makePacket(nals, count: Int(count), size: Int(size))) }
        }
    }

    func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool {
        // x264 changes the bitrate live only in ABR mode with VBV on before and after
        // (x264_encoder_reconfig ignores i_bitrate otherwise).
        guard case .bitrate(let bps) = configuration.rateControl, param.rc.i_rc_method == X264_RC_ABR,
              param.rc.i_vbv_max_bitrate > 0, param.rc.i_vbv_buffer_size > 0 else { return false }
        var updated = param
        updated.rc.i_bitrate = Int32(max(1, bps / 1000))
        if let maxRate = configuration.vbvMaxBitrate, let buffer = configuration.vbvBufferSize {
            updated.rc.i_vbv_max_bitrate = Int32(max(1, maxRate / 1000))
            updated.rc.i_vbv_buffer_size = Int32(max(1, buffer / 1000))
        }
        guard library.encoderReconfig(handle, &updated) == 0 else { return false }
        param.rc = updated.rc
        return true
    }

    /// Copies one access unit out of x264's buffers (they are reused by the next call).
    private func makePacket(_ nals: UnsafeMutablePointer<x264_nal_t>, count: Int, size: Int) -> EncodedPacket {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var hasIDR = false
        for index in 0..<count {
            let nal = nals[index]
            if nal.i_type == 5 { hasIDR = true }
            guard let payload = nal.p_payload, nal.i_payload > 0 else { continue }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: payload, count: Int(nal.i_payload)))
        }
        let keyframe: KeyframeClass? = hasIDR ? .idr : (pictureOut.b_keyframe != 0 ? .recoveryPoint(count: 0) : nil)
        let type: PictureType?
        switch pictureOut.i_type {
        case X264_TYPE_IDR, X264_TYPE_I, X264_TYPE_KEYFRAME: type = .i
        case X264_TYPE_P: type = .p
        case X264_TYPE_BREF, X264_TYPE_B: type = .b
        default: type = nil
        }
        var packet = EncodedPacket(bytes: bytes, pts: pictureOut.i_pts, dts: pictureOut.i_dts, keyframe: keyframe, pictureType: type)
        if param.analyse.b_psnr != 0 || param.analyse.b_ssim != 0 {
            let prop = pictureOut.prop
            var quality = PictureQuality()
            if param.analyse.b_psnr != 0 {
                quality.psnrY = prop.f_psnr.0
                quality.psnrU = prop.f_psnr.1
                quality.psnrV = prop.f_psnr.2
                quality.psnrAverage = prop.f_psnr_avg
            }
            if param.analyse.b_ssim != 0 { quality.ssim = prop.f_ssim }
            packet.quality = quality
        }
        return packet
    }
}
