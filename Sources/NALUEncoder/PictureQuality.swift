/// The distortion of one encoded picture against its source, as the encoder library measured it
/// (x264 `x264_image_properties_t.f_psnr`/`f_psnr_avg`/`f_ssim`, x265 `x265_frame_stats`), when
/// ``EncoderConfiguration/computePSNR`` or ``EncoderConfiguration/computeSSIM`` asked for it.
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
