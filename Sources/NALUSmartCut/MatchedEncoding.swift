public import NALU
public import NALUEncoder
import NALUMedia

/// The encoder settings that make re-encoded pictures match a stream's own (issue 34, item 2):
/// codec, profile, level, bit depth and chroma format (the pixel format of the decoded
/// pictures), entropy coding mode (H.264 `entropy_coding_mode_flag`, 7.4.2.2), colour
/// description and range, sample aspect ratio and chroma sample location (VUI, E.2.1), frame rate
/// (VUI timing), all read from the parsed SPS and PPS; and interlacing (issue 41 item 15): an
/// H.264 source whose SPS allows field coding (`frame_mbs_only_flag` 0, 7.4.2.1.1) is
/// re-encoded interlaced (x264 MBAFF) with the source's own field order, so the re-encoded
/// pictures show their fields in the order the copied ones do.
public enum MatchedEncoding {
    /// A configuration for `count` pictures of `width`×`height` in `pixelFormat`, one closed GOP
    /// (an IDR picture first, no scene-cut keyframes), matching `sps` (and `pps`).
    ///
    /// - Parameter interlace: the source's interlacing (``NALUMedia/MediaSource/interlace(options:)``),
    ///   asked only when `sps` allows field coding: an H.264 source's
    ///   ``NALU/Interlace/Layout/interleavedFrames`` become the configuration's
    ///   ``NALUEncoder/EncoderConfiguration/interlace`` (its field order kept); `nil` there
    ///   (frames coded progressively by a field-capable SPS) codes progressive frames, as the source's are.
    /// - Throws: ``NALU/NALUError`` `.unsupported` for field-coded H.265 (`field_seq_flag` 1: a
    ///   re-encoded field picture's parity would follow x265's picture order count, not the
    ///   source's), and profiles no encoder here writes.
    public static func configuration(codec: Codec, sps: [UInt8], pps: [UInt8]?, width: Int, height: Int, pixelFormat: PixelFormat,
                                     frameRate: Rational, timeBase: Rational, count: Int, rateControl: RateControl,
                                     interlace: @autoclosure () throws(NALUError) -> Interlace? = nil) throws(NALUError) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: width, height: height)
        configuration.pixelFormat = pixelFormat
        configuration.frameRate = frameRate
        configuration.timeBase = timeBase
        configuration.rateControl = rateControl
        configuration.gopLength = min(100_000, max(1, count + 1))
        configuration.sceneCutDetection = false
        configuration.openGOP = false
        configuration.repeatParameterSets = true
        configuration.expectedFrameCount = Int64(count)
        var parameters: [EncoderParameter] = []
        let description: StreamDescription
        let signal: VideoSignalSummary
        switch codec {
        case .h264:
            let parsed = try AVCSequenceParameterSet(nalUnit: sps[...])
            description = StreamDescription(parsed)
            signal = VideoSignalSummary(parsed)
            let profile: String
            switch description.profileIdc {
            case 66: profile = "baseline"
            case 77, 88: profile = "main"
            case 100: profile = "high"
            case 110: profile = "high10"
            case 122: profile = "high422"
            case 244: profile = "high444"
            default: throw NALUError(.unsupported, field: "profile_idc", detail: "\(description.profileIdc): no matched encoding")
            }
            configuration.profile = profile
            if profile == "baseline" { configuration.bFrames = 0 }
            if let pps, profile != "baseline", let parsedPPS = try? AVCPictureParameterSet(nalUnit: pps[...], chromaFormatIdc: parsed.chromaFormatIdc),
               !parsedPPS.entropyCodingModeFlag {
                parameters.append(EncoderParameter(name: "cabac", value: "0"))
            }
            if description.levelIdc >= 10 { configuration.level = String(description.levelIdc) }
        case .hevc:
            let parsed = try HEVCSequenceParameterSet(nalUnit: sps[...])
            description = StreamDescription(parsed)
            signal = VideoSignalSummary(parsed)
            switch description.profileIdc {
            case 1: configuration.profile = pixelFormat.bitDepth == 10 ? "main10" : "main"
            case 2: configuration.profile = "main10"
            default: configuration.profile = nil
            }
            if description.levelIdc > 0 && description.levelIdc % 3 == 0 {
                let tenths = description.levelIdc / 3
                configuration.level = "\(tenths / 10).\(tenths % 10)"
            }
        }
        if description.interlaced {
            guard codec == .h264 else {
                throw NALUError(.unsupported, field: "field_seq_flag", detail: "field-coded H.265 (one field per picture) is not re-encoded by a smart cut; cut at keyframes (nalu trim without --smart)")
            }
            let source = try interlace()
            if let source, source.layout != .interleavedFrames {
                throw NALUError(.unsupported, field: "frame_mbs_only_flag", detail: "the source is \(source); a smart cut re-encodes H.264 interlaced frames only")
            }
            configuration.interlace = source
        }
        if signal.videoSignalTypePresent {
            if let name = ColourNames.primaries(signal.colourPrimaries) { parameters.append(.init(name: "colorprim", value: name)) }
            if let name = ColourNames.transfer(signal.transferCharacteristics) { parameters.append(.init(name: "transfer", value: name)) }
            if let name = ColourNames.space(signal.matrixCoefficients) { parameters.append(.init(name: "colormatrix", value: name)) }
            // x264_param_parse takes `fullrange` on/off; x265_param_parse `range` full/limited.
            parameters.append(codec == .h264 ? .init(name: "fullrange", value: signal.videoFullRange ? "on" : "off")
                                             : .init(name: "range", value: signal.videoFullRange ? "full" : "limited"))
        }
        if let sar = signal.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0 {
            parameters.append(.init(name: "sar", value: "\(sar.numerator):\(sar.denominator)"))
        }
        if let location = signal.chromaSampleLocType { parameters.append(.init(name: "chromaloc", value: "\(location)")) }
        configuration.extraParameters = parameters
        return configuration
    }
}

extension MatchedEncoding {
    /// `configuration` (from ``configuration(codec:sps:pps:width:height:pixelFormat:frameRate:timeBase:count:rateControl:)``)
    /// for OpenH264, which encodes Constrained Baseline only (profile_idc 66 with
    /// constraint_set1_flag, ITU-T H.264 A.2.1.1) and has no parameter parser: a CRF becomes the
    /// same constant QP.
    /// - Throws: ``NALU/NALUError`` `.unsupported` when the source is not Constrained Baseline, or
    ///   its VUI carries a colour description, a sample aspect ratio other than 1:1 or a chroma
    ///   location, which OpenH264 cannot write (nothing the source says is dropped silently).
    public static func openH264(_ configuration: EncoderConfiguration, sps: [UInt8]) throws(NALUError) -> EncoderConfiguration {
        let parsed = try AVCSequenceParameterSet(nalUnit: sps[...])
        guard configuration.codec == .h264, parsed.profileIdc == 66, parsed.constraintSetFlags & 0x40 != 0 else {
            throw NALUError(.unsupported, field: "profile_idc",
                            detail: "OpenH264 encodes Constrained Baseline only; the source is profile \(parsed.profileIdc) (use x264)")
        }
        var configuration = configuration
        // What OpenH264 writes anyway: square pixels, limited range.
        let implied: Set<EncoderParameter> = [.init(name: "sar", value: "1:1"), .init(name: "fullrange", value: "off")]
        configuration.extraParameters.removeAll { implied.contains($0) }
        if let first = configuration.extraParameters.first {
            throw NALUError(.unsupported, field: "vui_parameters",
                            detail: "OpenH264 cannot write the source's \(first.name) (\(first.value)); use x264")
        }
        if case .crf(let value) = configuration.rateControl { configuration.rateControl = .qp(Int(value.rounded())) }
        configuration.bFrames = 0
        return configuration
    }
}
