public import NALUEncoder

/// The encoder and decoder settings of a smart cut's short re-encodes (issue 39): the pictures
/// before the first keyframe in the range and after the last whole GOP are at most one group of
/// pictures at each end, and an encoder sized for a long stream holds far more than such a run
/// needs.
///
/// x264's `medium` preset keeps 40 pictures of rate-control lookahead (MB-tree) and runs three
/// frame threads on two cores, each with its own pictures: 455 MiB to re-encode 42 pictures of
/// 1080p. A run of at most one GOP gains nothing from either: the lookahead would see past the
/// run's end, and frame threads wait for pictures that come one at a time from the decoder. So,
/// for runs of at most ``maximumPictures``:
/// - one encoder thread (x264 `i_threads`, x265 `pools`),
/// - ``lookahead`` pictures of rate-control lookahead (x264 `rc-lookahead`; 0 turns x264's
///   MB-tree off, and with it the lookahead's pictures), x264 only: x265 refuses a lookahead
///   shorter than its B-frame run, so it keeps its preset's,
/// - one decoder thread (libavcodec's frame threads each hold pictures of their own).
///
/// Measured on a 7.4 s cut of 20 s 1080p25 (42 pictures re-encoded at CRF 12, `medium`;
/// `Scripts/bench-smartcut.sh`): peak RSS 455 → 175 MiB, the same CPU time, the re-encoded
/// pictures' PSNR against the source 55.2 → 59.6 dB (without MB-tree x264 spends more bits at
/// the same CRF: +32 % on those pictures). The preset, the rate control and every setting
/// matched to the source (``MatchedEncoding``) are unchanged.
public struct ShortSegmentEncoding: Hashable, Sendable {
    /// Runs of at most this many re-encoded pictures use these settings (default 250, x264's
    /// default keyframe interval); longer runs keep the encoder library's own.
    public var maximumPictures: Int = 250
    /// Encoder threads (default 1).
    public var threads: Int = 1
    /// x264 `rc-lookahead` in pictures (default 0: no MB-tree).
    public var lookahead: Int = 0
    /// Decoder threads for the pictures the run needs (default 1).
    public var decoderThreads: Int = 1

    public init() {}

    /// Whether a run of `count` pictures uses these settings.
    public func applies(to count: Int) -> Bool { count <= maximumPictures }

    /// `configuration` with the short-run settings, for x264 or x265 (`encoder` the factory's
    /// name); other encoders' configurations are returned unchanged.
    public func apply(to configuration: EncoderConfiguration, encoder: String) -> EncoderConfiguration {
        var configuration = configuration
        switch encoder {
        case "x264":
            configuration.threads = threads
            // MB-tree needs a lookahead (x264 turns it off with a warning without one): said here.
            if lookahead == 0 { configuration.extraParameters.append(EncoderParameter(name: "mbtree", value: "0")) }
            configuration.extraParameters.append(EncoderParameter(name: "rc-lookahead", value: String(lookahead)))
        case "x265":
            configuration.threads = threads
        default:
            break
        }
        return configuration
    }
}
