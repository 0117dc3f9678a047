public import NALU

/// What the active SPS's VUI says about how a stream looks and plays, for either codec, with
/// the colour code points named as ffprobe names them (``ColourNames``).
///
/// ITU-T H.264 E.1.1/E.2.1 and ITU-T H.265 E.2.1/E.3.1. Optional members are `nil` when the
/// syntax element is absent from the bitstream (so `nalu info` leaves the key out, as ffprobe does
/// for unspecified values).
public struct VideoSignalSummary: Hashable, Sendable {
    /// One HRD: `"nal"` or `"vcl"`, with the first schedule's rate and buffer size.
    public struct HRD: Hashable, Sendable {
        public var kind: String
        /// `BitRate[0]` in bits per second (H.264 E.2.2, H.265 E.3.3).
        public var bitRate: UInt64
        /// `CpbSize[0]` in bits.
        public var cpbSize: UInt64
        /// `cbr_flag[0]`.
        public var cbr: Bool
    }

    public var vuiPresent = false
    /// `video_signal_type_present_flag`: whether `video_full_range_flag` was coded.
    public var videoSignalTypePresent = false
    public var videoFullRange = false
    /// `video_format` (Table E-2; 5 when absent).
    public var videoFormat = 5
    /// The coded code points (2 "unspecified" when absent).
    public var colourPrimaries = 2
    public var transferCharacteristics = 2
    public var matrixCoefficients = 2
    /// The sample aspect ratio, `nil` when absent or unspecified.
    public var sampleAspectRatio: Rational?
    /// `chroma_sample_loc_type_top_field` when `chroma_loc_info_present_flag`.
    public var chromaSampleLocType: Int?
    /// VUI timing: `num_units_in_tick`, `time_scale`, and (H.264) `fixed_frame_rate_flag`.
    public var numUnitsInTick: UInt32?
    public var timeScale: UInt32?
    public var fixedFrameRate: Bool?
    /// Bitstream restriction (`nil` when `bitstream_restriction_flag` is 0). H.265 has no
    /// `max_num_reorder_frames` in the VUI: its `sps_max_num_reorder_pics` and
    /// `sps_max_dec_pic_buffering_minus1 + 1` of the highest sub-layer are given instead.
    public var maxNumReorderFrames: Int?
    public var maxDecFrameBuffering: Int?
    /// The HRDs present (none when the VUI has no `hrd_parameters()`).
    public var hrd: [HRD] = []

    public init() {}

    /// From an H.264 SPS.
    public init(_ sps: AVCSequenceParameterSet) {
        guard let vui = sps.vuiParameters else { return }
        vuiPresent = true
        videoSignalTypePresent = vui.videoSignalTypePresentFlag
        videoFullRange = vui.videoFullRangeFlag
        videoFormat = Int(vui.videoFormat)
        colourPrimaries = Int(vui.colourPrimaries)
        transferCharacteristics = Int(vui.transferCharacteristics)
        matrixCoefficients = Int(vui.matrixCoefficients)
        sampleAspectRatio = vui.aspectRatioInfoPresentFlag ? vui.sampleAspectRatio : nil
        chromaSampleLocType = vui.chromaLocInfoPresentFlag ? vui.chromaSampleLocTypeTopField : nil
        if vui.timingInfoPresentFlag {
            numUnitsInTick = vui.numUnitsInTick
            timeScale = vui.timeScale
            fixedFrameRate = vui.fixedFrameRateFlag
        }
        maxNumReorderFrames = vui.maxNumReorderFrames
        maxDecFrameBuffering = vui.maxDecFrameBuffering
        for (kind, parameters) in [("nal", vui.nalHRDParameters), ("vcl", vui.vclHRDParameters)] {
            guard let parameters, let rate = parameters.bitRate(0), let size = parameters.cpbSize(0),
                  let first = parameters.schedules.first else { continue }
            hrd.append(HRD(kind: kind, bitRate: rate, cpbSize: size, cbr: first.cbrFlag))
        }
    }

    /// From an H.265 SPS.
    public init(_ sps: HEVCSequenceParameterSet) {
        if let ordering = sps.subLayerOrderingInfo.last {
            maxNumReorderFrames = ordering.maxNumReorderPics
            maxDecFrameBuffering = ordering.maxDecPicBufferingMinus1 + 1
        }
        guard let vui = sps.vuiParameters else { return }
        vuiPresent = true
        videoSignalTypePresent = vui.videoSignalTypePresentFlag
        videoFullRange = vui.videoFullRangeFlag
        videoFormat = vui.videoFormat
        colourPrimaries = vui.colourPrimaries
        transferCharacteristics = vui.transferCharacteristics
        matrixCoefficients = vui.matrixCoeffs
        sampleAspectRatio = vui.sampleAspectRatio
        chromaSampleLocType = vui.chromaLocInfoPresentFlag ? vui.chromaSampleLocTypeTopField : nil
        if vui.vuiTimingInfoPresentFlag {
            numUnitsInTick = vui.vuiNumUnitsInTick
            timeScale = vui.vuiTimeScale
        }
        if let parameters = vui.hrdParameters, let layer = parameters.subLayers.last {
            for (kind, cpbs) in [("nal", layer.nalHrdParameters), ("vcl", layer.vclHrdParameters)] {
                guard let first = cpbs?.first else { continue }
                // E.3.3: BitRate = (bit_rate_value_minus1 + 1) · 2^(6 + bit_rate_scale), CpbSize likewise
                // with 2^(4 + cpb_size_scale); the scales are u(4), so the shifts stay below 64.
                let rate = (UInt64(first.bitRateValueMinus1) + 1) << UInt64(6 + min(15, max(0, parameters.bitRateScale)))
                let size = (UInt64(first.cpbSizeValueMinus1) + 1) << UInt64(4 + min(15, max(0, parameters.cpbSizeScale)))
                hrd.append(HRD(kind: kind, bitRate: rate, cpbSize: size, cbr: first.cbrFlag))
            }
        }
    }

    /// ffprobe's `color_range`: present only when `video_signal_type_present_flag` is 1.
    public var colorRange: String? { videoSignalTypePresent ? ColourNames.range(fullRange: videoFullRange) : nil }
    /// ffprobe's `color_primaries`, `nil` when unspecified.
    public var colorPrimaries: String? { ColourNames.printed(ColourNames.primaries(colourPrimaries)) }
    /// ffprobe's `color_transfer`, `nil` when unspecified.
    public var colorTransfer: String? { ColourNames.printed(ColourNames.transfer(transferCharacteristics)) }
    /// ffprobe's `color_space`, `nil` when unspecified.
    public var colorSpace: String? { ColourNames.printed(ColourNames.space(matrixCoefficients)) }
}
