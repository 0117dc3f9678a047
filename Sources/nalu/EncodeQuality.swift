import ArgumentParser

/// `--psnr` and `--ssim` (issue 17): the encoder library measures every picture; the summary
/// prints the means as the x264/x265 CLIs do, and `--stats-json` gains `"psnr"` and `"ssim"`.
struct QualityOptions: ParsableArguments {
    @Flag(help: "Have the encoder compute PSNR; print the means in the summary (as x264/x265 --psnr).")
    var psnr = false
    @Flag(help: "Have the encoder compute SSIM; print the mean in the summary (as x264/x265 --ssim).")
    var ssim = false
}
