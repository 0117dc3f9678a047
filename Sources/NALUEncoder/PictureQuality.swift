/// The distortion of one encoded picture against its source, as the encoder library measured it
/// (x264 `x264_image_properties_t.f_psnr`/`f_psnr_avg`/`f_ssim`, x265 `x265_frame_stats`), when
/// ``EncoderConfiguration/computePSNR`` or ``EncoderConfiguration/computeSSIM`` asked for it.
///
/// Every ``PixelFormat`` is measured on all three planes at their own resolution, against a peak
/// of 255 (8-bit) or 1023 (10-bit; x265: 1020). For 4:2:2 and 4:4:4 HEVC, the x265 backend
/// corrects libx265's chroma PSNR, which divides by a 4:2:0 plane's samples (3.01 dB and
/// 6.02 dB low), so U and V agree with ffmpeg's psnr filter for both libraries.
public struct PictureQuality: Hashable, Sendable {
    /// PSNR in dB of the luma and chroma planes, and the library's frame average (x264: from
    /// the summed squared error of all three planes; x265: (6·Y + U + V) / 8), when computed.
    public var psnrY: Double?
    public var psnrU: Double?
    public var psnrV: Double?
    public var psnrAverage: Double?
    /// Mean luma SSIM (0…1), when computed.
    public var ssim: Double?

    public init(psnrY: Double? = nil, psnrU: Double? = nil, psnrV: Double? = nil, psnrAverage: Double? = nil, ssim: Double? = nil) {
        self.psnrY = psnrY
        self.psnrU = psnrU
        self.psnrV = psnrV
        self.psnrAverage = psnrAverage
        self.ssim = ssim
    }
}
