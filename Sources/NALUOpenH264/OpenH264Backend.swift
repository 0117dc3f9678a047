internal import COpenH264
public import Logging
import NALU
public import NALUEncoder

/// Creates H.264 encoders backed by Cisco's OpenH264 (BSD-2-Clause), for applications that
/// cannot ship the GPL x264.
///
/// OpenH264 encodes the Constrained Baseline profile (CAVLC, no B-frames, progressive, 8-bit
/// 4:2:0). Mapped settings: bitrate (`RC_BITRATE_MODE`, live changes through `SetOption
/// ENCODER_OPTION_BITRATE`), constant QP (rate control off, min = max QP), keyframe interval
/// (`uiIntraPeriod`), forced IDR (`ForceIntraFrame`), scene-cut detection, level, threads, preset
/// (`iComplexityMode`: ultrafast…faster low, fast/medium medium, slow… high), Annex-B or
/// length-prefixed output, parameter sets before every IDR or not at all. NV12 input is
/// de-interleaved into I420 (OpenH264 takes I420 only).
///
/// Settings it cannot honour are refused by ``validate(_:)`` with
/// ``EncoderError/Code/invalidConfiguration`` (B-frames, CRF, open GOP, VBV, a profile other
/// than Baseline, a tune other than `zerolatency`) or ``EncoderError/Code/unsupported``
/// (10-bit input, HEVC), never silently ignored.
///
/// OpenH264's log lines go to ``logger`` (its trace callback, levels mapped), never to stderr.
public struct OpenH264BackendFactory: EncoderBackendFactory {
    /// Where the encoders' log lines go (``defaultLogger`` when not given).
    public var logger: Logger

    public init(logger: Logger = OpenH264BackendFactory.defaultLogger) {
        self.logger = logger
    }

    /// The logger used when none is given: label `nalu.openh264`, level `.warning`.
    public static var defaultLogger: Logger {
        var logger = Logger(label: "nalu.openh264")
        logger.logLevel = .warning
        return logger
    }

    public var name: String { "openh264" }

    /// The OpenH264 library version, e.g. `"2.3.1"` (`WelsGetCodecVersion`); empty when the
    /// library cannot be loaded (it is opened at first use).
    public static var version: String {
        guard let library = try? OpenH264Library.load() else { return "" }
        let version = library.codecVersion()
        return "\(version.uMajor).\(version.uMinor).\(version.uRevision)"
    }

    /// Loads libopenh264 if not yet loaded, and says whether it could be (`nalu doctor --encoders`).
    package static var libraryStatus: EncoderLibraryStatus {
        do throws(EncoderError) {
            let library = try OpenH264Library.load()
            return EncoderLibraryStatus(encoder: "openh264", fileName: library.fileName, version: version)
        } catch {
            return EncoderLibraryStatus(encoder: "openh264", fileName: error.field, error: error)
        }
    }

    public func validate(_ configuration: EncoderConfiguration) throws(EncoderError) {
        _ = try OpenH264Encoder.makeParameters(configuration)
        _ = try OpenH264Library.load()
    }

    public func makeBackend(for configuration: EncoderConfiguration) throws(EncoderError) -> any EncoderBackend {
        try OpenH264Encoder(configuration: configuration, logger: logger)
    }
}

/// One open OpenH264 encoder. Owns the `ISVCEncoder`; `deinit` uninitialises and destroys it.
/// Every OpenH264 call of the package is in this file (the library's own functions through
/// ``OpenH264Library``, loaded at first use).
final class OpenH264Encoder: EncoderBackend {
    private let library: OpenH264Library
    private let encoder: UnsafeMutablePointer<ISVCEncoder?>
    private let configuration: EncoderConfiguration
    private let logRelay: OpenH264LogRelay
    private var picture = SSourcePicture()
    private var info = SFrameBSInfo()
    /// I420 chroma planes for NV12 input (OpenH264 takes I420 only); empty otherwise.
    private var chromaU: [UInt8] = []
    private var chromaV: [UInt8] = []
    let parameterSets: [[UInt8]]

    /// OpenH264 has no B-frames: decoding order is display order.
    var reorderDepth: Int { 0 }
    /// OpenH264 holds no frames, so there is nothing a flush could end.
    var canEncodeAfterFlush: Bool { true }

    init(configuration: EncoderConfiguration, logger: Logger) throws(EncoderError) {
        var param = try Self.makeParameters(configuration)
        let library = try OpenH264Library.load()
        self.library = library
        self.configuration = configuration
        logRelay = OpenH264LogRelay(logger: logger)
        var created: UnsafeMutablePointer<ISVCEncoder?>?
        let status = library.createEncoder(&created)
        guard status == 0, let created, created.pointee != nil else {
            throw EncoderError(.backendCreationFailed, context: "WelsCreateSVCEncoder", libraryStatus: status)
        }
        encoder = created
        _ = nalu_oh264_set_log(encoder, logRelay.traceLevel, openH264Trace, Unmanaged.passUnretained(logRelay).toOpaque())
        // GetDefaultParams fills what makeParameters left at zero; then apply ours again on top.
        var defaults = SEncParamExt()
        _ = nalu_oh264_default_params(encoder, &defaults)
        param = Self.merge(defaults: defaults, param, configuration)
        let initStatus = nalu_oh264_initialize(encoder, &param)
        guard initStatus == Int32(cmResultSuccess.rawValue) else {
            library.destroyEncoder(encoder)
            // OpenH264 refuses parameters it cannot encode (e.g. a size beyond its levels): final.
            guard initStatus == Int32(cmInitParaError.rawValue) else {
                throw EncoderError(.backendCreationFailed, context: "OpenH264 InitializeExt", libraryStatus: initStatus)
            }
            throw EncoderError(.unsupported, context: "encoder", detail: "OpenH264 refuses these settings (its reason went to the factory's logger)", libraryStatus: initStatus)
        }
        // Re-apply the logging: InitializeExt resets the trace level to the parameters' default.
        _ = nalu_oh264_set_log(encoder, logRelay.traceLevel, openH264Trace, Unmanaged.passUnretained(logRelay).toOpaque())

        var headers = SFrameBSInfo()
        let headerStatus = nalu_oh264_encode_parameter_sets(encoder, &headers)
        let units = headerStatus == 0 ? Self.nalUnits(headers) : []
        parameterSets = EncoderFraming.parameterSets(units.map { Array($0) }, codec: .h264)
        guard !parameterSets.isEmpty else {
            _ = nalu_oh264_uninitialize(encoder)
            library.destroyEncoder(encoder)
            throw EncoderError(.backendCreationFailed, context: "OpenH264 EncodeParameterSets", libraryStatus: headerStatus)
        }

        picture.iColorFormat = Int32(videoFormatI420.rawValue)
        picture.iPicWidth = Int32(configuration.width)
        picture.iPicHeight = Int32(configuration.height)
        if configuration.pixelFormat == .nv12 {
            let chroma = (configuration.width / 2) * (configuration.height / 2)
            chromaU = [UInt8](repeating: 0, count: chroma)
            chromaV = [UInt8](repeating: 0, count: chroma)
        }
    }

    deinit {
        _ = nalu_oh264_uninitialize(encoder)
        library.destroyEncoder(encoder)
    }

    /// OpenH264's parameters for `c`, or the setting it cannot honour as a typed error.
    /// The structure still lacks OpenH264's defaults for fields nalu does not set; see
    /// ``merge(defaults:_:_:)``.
    /// The smallest width and height OpenH264 opens an encoder for (its `WelsEncoderParamValidation`).
    static let minimumSide = 16

    static func makeParameters(_ c: EncoderConfiguration) throws(EncoderError) -> SEncParamExt {
        guard c.codec == .h264 else {
            throw EncoderError(.unsupported, context: "codec", detail: "OpenH264 encodes H.264, not \(c.codec)")
        }
        guard c.pixelFormat.bitDepth == 8, c.pixelFormat.chromaSubsampling == .yuv420 else {
            throw EncoderError(.unsupported, context: "pixelFormat", detail: "OpenH264 encodes 8-bit 4:2:0 only, not \(c.pixelFormat)")
        }
        // WelsEncoderParamValidation refuses a side below 16 on every open; the session would
        // retry the creation and give up (issue 32 item 10): one configuration error instead.
        guard c.width >= Self.minimumSide, c.height >= Self.minimumSide else {
            throw EncoderError(.invalidConfiguration, field: "size",
                               detail: "OpenH264 encodes pictures of at least \(Self.minimumSide)x\(Self.minimumSide), not \(c.width)x\(c.height)")
        }
        // Constrained Baseline has frame_mbs_only_flag 1 (ITU-T H.264 A.2.1): no field or MBAFF
        // coding. Interlaced frames are refused, not coded as progressive pictures.
        if c.interlace != nil {
            throw EncoderError(.unsupported, field: "interlace",
                               detail: "OpenH264 codes progressive frames only (Constrained Baseline); use x264, or encode the frames as progressive on purpose")
        }
        if let profile = c.profile, profile.lowercased() != "baseline" {
            throw EncoderError(.invalidConfiguration, context: "profile", detail: "OpenH264 encodes Constrained Baseline only, not \(profile)")
        }
        if let bFrames = c.bFrames, bFrames > 0 {
            throw EncoderError(.invalidConfiguration, context: "bFrames", detail: "OpenH264 encodes Constrained Baseline, which has no B-frames; use 0")
        }
        if case .crf = c.rateControl {
            throw EncoderError(.invalidConfiguration, context: "crf", detail: "OpenH264 has no constant rate factor; use a bitrate or a constant QP")
        }
        if c.openGOP {
            throw EncoderError(.invalidConfiguration, context: "openGOP", detail: "OpenH264 starts every GOP with an IDR picture")
        }
        if c.vbvMaxBitrate != nil || c.vbvBufferSize != nil {
            throw EncoderError(.invalidConfiguration, context: "vbv", detail: "OpenH264 has no VBV buffer to configure; give a bitrate only")
        }
        if let tune = c.tune, tune.lowercased() != "zerolatency" {
            throw EncoderError(.invalidConfiguration, context: "tune", detail: "OpenH264 has no tune \"\(tune)\" (it always encodes with zero latency)")
        }
        if c.computePSNR || c.computeSSIM {
            throw EncoderError(.unsupported, context: c.computePSNR ? "psnr" : "ssim", detail: "OpenH264 does not measure PSNR or SSIM")
        }
        if let first = c.extraParameters.first {
            throw EncoderError(.invalidConfiguration, context: "extraParameters", detail: "OpenH264 has no parameter parser; \"\(first)\" cannot be applied")
        }
        // The shared checks (size, rates, ranges), as Baseline: no B-frames by default.
        var shared = c
        shared.profile = "baseline"
        shared.bFrames = 0
        try shared.validate()
        // OpenH264's limits (ParamValidationExt): level 5.2's 36864 macroblocks a picture, and a
        // rate control that plans with at most 60 frames a second (a faster rate would silently
        // overshoot the bitrate).
        guard c.width * c.height <= 36864 * 256 else {
            throw EncoderError(.invalidConfiguration, context: "size", detail: "\(c.width)x\(c.height) is larger than OpenH264's 9437184 pixels (36864 macroblocks, level 5.2)")
        }
        if case .bitrate = c.rateControl, c.frameRate.doubleValue > 60 {
            throw EncoderError(.invalidConfiguration, context: "frameRate", detail: "OpenH264's rate control plans with at most 60 fps, not \(c.frameRate); use a constant QP at this rate")
        }
        let level = try c.levelIdc()
        if let level, level > 52 {
            throw EncoderError(.invalidConfiguration, context: "level", detail: "OpenH264 supports levels up to 5.2, not \(c.level ?? "")")
        }

        var p = SEncParamExt()
        p.iUsageType = CAMERA_VIDEO_REAL_TIME
        p.iPicWidth = Int32(c.width)
        p.iPicHeight = Int32(c.height)
        p.fMaxFrameRate = Float(c.frameRate.doubleValue)
        p.iTemporalLayerNum = 1
        p.iSpatialLayerNum = 1
        p.sSpatialLayers.0.iVideoWidth = p.iPicWidth
        p.sSpatialLayers.0.iVideoHeight = p.iPicHeight
        p.sSpatialLayers.0.fFrameRate = p.fMaxFrameRate
        p.sSpatialLayers.0.uiProfileIdc = PRO_BASELINE
        p.sSpatialLayers.0.uiLevelIdc = ELevelIdc(rawValue: UInt32(level ?? 0))
        p.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
        switch c.rateControl {
        case .bitrate(let bps):
            p.iRCMode = RC_BITRATE_MODE
            p.iTargetBitrate = Int32(bps)
            p.sSpatialLayers.0.iSpatialBitrate = Int32(bps)
        case .qp(let qp):
            p.iRCMode = RC_OFF_MODE
            p.sSpatialLayers.0.iDLayerQp = Int32(qp)
            p.iMinQp = Int32(qp)
            p.iMaxQp = Int32(qp)
        case .crf:
            break
        }
        p.uiIntraPeriod = UInt32(clamping: c.keyframeInterval)
        p.bEnableSceneChangeDetect = c.sceneCutDetection
        p.iMultipleThreadIdc = UInt16(clamping: c.threads ?? 0)
        switch c.preset?.lowercased() ?? "medium" {
        case "ultrafast", "superfast", "veryfast", "faster": p.iComplexityMode = LOW_COMPLEXITY
        case "fast", "medium": p.iComplexityMode = MEDIUM_COMPLEXITY
        default: p.iComplexityMode = HIGH_COMPLEXITY
        }
        return p
    }

    /// `ours` laid over OpenH264's `defaults`: the fields ``makeParameters(_:)`` sets, plus
    /// the ones that make the stream Constrained Baseline with fixed parameter set ids.
    static func merge(defaults: SEncParamExt, _ ours: SEncParamExt, _ c: EncoderConfiguration) -> SEncParamExt {
        var p = defaults
        p.iUsageType = ours.iUsageType
        p.iPicWidth = ours.iPicWidth
        p.iPicHeight = ours.iPicHeight
        p.fMaxFrameRate = ours.fMaxFrameRate
        p.iTemporalLayerNum = 1
        p.iSpatialLayerNum = 1
        p.sSpatialLayers.0 = ours.sSpatialLayers.0
        if p.sSpatialLayers.0.iMaxSpatialBitrate == 0 { p.sSpatialLayers.0.iMaxSpatialBitrate = Int32(UNSPECIFIED_BIT_RATE) }
        p.iRCMode = ours.iRCMode
        p.iTargetBitrate = ours.iTargetBitrate
        p.iMaxBitrate = Int32(UNSPECIFIED_BIT_RATE)
        if case .qp = c.rateControl {
            p.iMinQp = ours.iMinQp
            p.iMaxQp = ours.iMaxQp
        }
        p.uiIntraPeriod = ours.uiIntraPeriod
        p.bEnableSceneChangeDetect = ours.bEnableSceneChangeDetect
        p.iMultipleThreadIdc = ours.iMultipleThreadIdc
        p.iComplexityMode = ours.iComplexityMode
        p.iEntropyCodingModeFlag = 0
        p.iNumRefFrame = 1
        p.eSpsPpsIdStrategy = CONSTANT_ID
        p.bPrefixNalAddingCtrl = false
        p.bEnableSSEI = false
        p.bSimulcastAVC = false
        p.bEnableLongTermReference = false
        // Every input frame comes out: no frames dropped to meet the bitrate.
        p.bEnableFrameSkip = false
        p.bEnableFrameCroppingFlag = true
        return p
    }

    /// The NAL units of one `SFrameBSInfo`, each with its 4-byte start code, in layer order.
    private static func nalUnits(_ info: SFrameBSInfo) -> [UnsafeRawBufferPointer] {
        var units: [UnsafeRawBufferPointer] = []
        withUnsafePointer(to: info.sLayerInfo) { tuple in
            let layers = UnsafeRawPointer(tuple).assumingMemoryBound(to: SLayerBSInfo.self)
            let layerCount = min(max(0, Int(info.iLayerNum)), Int(MAX_LAYER_NUM_OF_FRAME))
            for index in 0..<layerCount {
                let layer = layers[index]
                guard let buffer = layer.pBsBuf, let lengths = layer.pNalLengthInByte else { continue }
                var offset = 0
                for nal in 0..<max(0, Int(layer.iNalCount)) {
                    let length = max(0, Int(lengths[nal]))
                    units.append(UnsafeRawBufferPointer(start: buffer + offset, count: length))
                    offset += length
                }
            }
        }
        return units.map { unit in
            // Drop the start code: leading zero bytes and the 1.
            var start = 0
            while start < unit.count, unit[start] == 0 { start += 1 }
            if start < unit.count, unit[start] == 1 { start += 1 }
            return UnsafeRawBufferPointer(rebasing: unit[start...])
        }
    }

    func encode(_ frame: Frame, forceKeyframe: Bool, into packets: inout [EncodedPacket]) throws(EncoderError) {
        if forceKeyframe {
            let status = nalu_oh264_force_idr(encoder)
            guard status == 0 else {
                throw EncoderError(.encodeFailed, context: "OpenH264 ForceIntraFrame", detail: "frame pts \(frame.pts)", libraryStatus: status)
            }
        }
        // OpenH264 reads the input planes during this call only and never writes to them.
        picture.pData.0 = UnsafeMutablePointer(mutating: frame.plane0.baseAddress.assumingMemoryBound(to: UInt8.self))
        picture.iStride.0 = Int32(frame.plane0.bytesPerRow)
        let status: Int32
        if frame.pixelFormat == .nv12 {
            deinterleave(frame.plane1, width: frame.width / 2, height: frame.height / 2)
            let half = Int32(frame.width / 2)
            status = chromaU.withUnsafeMutableBufferPointer { u in
                chromaV.withUnsafeMutableBufferPointer { v in
                    picture.pData.1 = u.baseAddress
                    picture.pData.2 = v.baseAddress
                    picture.iStride.1 = half
                    picture.iStride.2 = half
                    return encodePicture(pts: frame.pts)
                }
            }
        } else if let plane2 = frame.plane2 {
            picture.pData.1 = UnsafeMutablePointer(mutating: frame.plane1.baseAddress.assumingMemoryBound(to: UInt8.self))
            picture.iStride.1 = Int32(frame.plane1.bytesPerRow)
            picture.pData.2 = UnsafeMutablePointer(mutating: plane2.baseAddress.assumingMemoryBound(to: UInt8.self))
            picture.iStride.2 = Int32(plane2.bytesPerRow)
            status = encodePicture(pts: frame.pts)
        } else {
            throw EncoderError(.frameMismatch, context: "frame", detail: "an I420 frame needs three planes")
        }
        // Do not keep pointers to the caller's memory.
        picture.pData = (nil, nil, nil, nil)
        guard status == Int32(cmResultSuccess.rawValue) else {
            throw EncoderError(.encodeFailed, context: "OpenH264 EncodeFrame", detail: "frame pts \(frame.pts)", libraryStatus: status)
        }
        if info.eFrameType == videoFrameTypeSkip || info.eFrameType == videoFrameTypeInvalid {
            logRelay.logger.warning("OpenH264 skipped the frame with pts \(frame.pts)", metadata: ["encoder": "openh264"])
            return
        }
        packets.append(makePacket(pts: frame.pts))
    }

    private func encodePicture(pts: Int64) -> Int32 {
        // OpenH264 timestamps are milliseconds.
        let timeBase = configuration.effectiveTimeBase
        let milliseconds = Double(pts) * Double(timeBase.numerator) * 1000 / Double(timeBase.denominator)
        picture.uiTimeStamp = milliseconds.isFinite && abs(milliseconds) < 9e18 ? Int64(milliseconds) : 0
        return nalu_oh264_encode_frame(encoder, &picture, &info)
    }

    /// NV12's interleaved CbCr plane into the I420 planes ``chromaU`` and ``chromaV``.
    private func deinterleave(_ plane: Frame.Plane, width: Int, height: Int) {
        let source = plane.baseAddress.assumingMemoryBound(to: UInt8.self)
        chromaU.withUnsafeMutableBufferPointer { u in
            chromaV.withUnsafeMutableBufferPointer { v in
                for row in 0..<height {
                    let line = source + row * plane.bytesPerRow
                    let out = row * width
                    for column in 0..<width {
                        u[out + column] = line[2 * column]
                        v[out + column] = line[2 * column + 1]
                    }
                }
            }
        }
    }

    func flush(into packets: inout [EncodedPacket]) throws(EncoderError) {
        // OpenH264 returns every picture from the EncodeFrame call that took it.
    }

    func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool {
        guard case .bitrate(let bps) = configuration.rateControl, case .bitrate = self.configuration.rateControl,
              configuration.vbvMaxBitrate == nil, configuration.vbvBufferSize == nil else { return false }
        return nalu_oh264_set_bitrate(encoder, Int32(clamping: bps), false) == 0
    }

    /// Copies one access unit out of OpenH264's buffers (they are reused by the next call).
    private func makePacket(pts: Int64) -> EncodedPacket {
        let units = Self.nalUnits(info)
        var nalUnits: [UnsafeRawBufferPointer] = []
        nalUnits.reserveCapacity(units.count)
        var hasIDR = false
        for unit in units {
            guard let header = unit.first else { continue }
            let type = AVCNALUnitType(rawValue: header)
            if type == .idrSlice { hasIDR = true }
            if !configuration.repeatParameterSets, type == .sps || type == .pps { continue }
            nalUnits.append(unit)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nalUnits.reduce(0) { $0 + $1.count + 4 })
        for unit in nalUnits {
            switch configuration.outputFormat {
            case .annexB:
                bytes.append(contentsOf: [0, 0, 0, 1])
            case .lengthPrefixed:
                let length = UInt32(truncatingIfNeeded: unit.count)
                bytes.append(contentsOf: [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                                          UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
            }
            bytes.append(contentsOf: unit)
        }
        let type: PictureType? = switch info.eFrameType {
        case videoFrameTypeIDR, videoFrameTypeI: .i
        case videoFrameTypeP, videoFrameTypeIPMixed: .p
        default: nil
        }
        return EncodedPacket(bytes: bytes, pts: pts, dts: pts, keyframe: hasIDR ? .idr : nil, pictureType: type)
    }
}

/// OpenH264's trace callback: hands the line to the ``OpenH264LogRelay`` in `context`.
private func openH264Trace(_ context: UnsafeMutableRawPointer?, _ level: Int32, _ message: UnsafePointer<CChar>?) {
    guard let context, let message else { return }
    Unmanaged<OpenH264LogRelay>.fromOpaque(context).takeUnretainedValue().log(level: level, message: message)
}

/// Routes one OpenH264 encoder's trace lines to a swift-log `Logger`, levels mapped error →
/// `.error`, warning → `.warning`, info → `.info`, debug and detail → `.debug`. OpenH264 is asked
/// only for the lines the logger would keep.
final class OpenH264LogRelay {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The OpenH264 trace level that produces exactly the lines the logger keeps.
    var traceLevel: Int32 {
        let level: Int32 = switch logger.logLevel {
        case .trace, .debug: Int32(WELS_LOG_DEBUG)
        case .info: Int32(WELS_LOG_INFO)
        case .notice, .warning: Int32(WELS_LOG_WARNING)
        case .error: Int32(WELS_LOG_ERROR)
        case .critical: Int32(WELS_LOG_QUIET)
        }
        return level
    }

    func log(level: Int32, message: UnsafePointer<CChar>) {
        var text = String(cString: message)
        while text.last == "\n" { text.removeLast() }
        var mapped: Logger.Level = switch level {
        case Int32(WELS_LOG_ERROR): .error
        case Int32(WELS_LOG_WARNING): .warning
        case Int32(WELS_LOG_INFO): .info
        default: .debug
        }
        // nalu turns frame skipping off on purpose (every input frame comes out); OpenH264 warns
        // about that choice at every initialisation, which is information, not a problem.
        if mapped == .warning, text.contains("without enabling skip frame") { mapped = .info }
        logger.log(level: mapped, "\(text)", metadata: ["encoder": "openh264"])
    }
}
