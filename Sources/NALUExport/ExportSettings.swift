public import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUMedia
import NALUAVCodec

/// What an ``ExportSession`` writes: the video re-encoded (``VideoEncoding``) or copied
/// (passthrough), the audio copied or left out, an optional time range of the presentation
/// timeline, and how many pictures may wait between decoding and encoding.
///
/// The defaults are those of `nalu encode IN -o OUT.mp4`: H.264 through x264 at its default
/// preset (``EncoderConfiguration/defaultPreset``, `medium`, the same in ``NALUSmartCut``) and
/// 5 Mbit/s, a keyframe every 5 seconds, B-frames on, the audio copied.
public struct ExportSettings: Sendable {
    /// How the video is written.
    public enum Video: Sendable {
        /// Re-encoded with these settings.
        case encode(VideoEncoding)
        /// Copied; with a time range, cut frame-exactly by a smart cut
        /// (``NALUSmartCut/SmartTrimmer``: only the partial groups of pictures at the ends are
        /// re-encoded). MP4/MOV output.
        case passthrough
    }

    /// How the audio is written.
    public enum Audio: Sendable, Hashable {
        /// Copied unchanged (cut to the time range), in sync.
        case passthrough
        /// Left out on purpose.
        case none
    }

    /// The video: re-encoded by default.
    public var video: Video = .encode(VideoEncoding())
    /// The audio: copied by default.
    public var audio: Audio = .passthrough
    /// The first time of the presentation timeline exported (seconds; edit lists applied, as
    /// `nalu trim` counts), or `nil` for the start.
    public var start: MediaTime?
    /// The time the export ends before, or `nil` for the end.
    public var end: MediaTime?
    /// Pictures decoded ahead of the encoder at most (at least 1): the bound that keeps memory
    /// flat whatever the input's length (the encoder's own lookahead comes on top).
    public var framesInFlight = 2
    /// The decoder library's threads (0: one per core). One by default: the encoder is the
    /// slower stage and has the cores, and each of libavcodec's frame threads holds pictures of
    /// its own.
    public var decoderThreads = 1
    /// The decoder library.
    public var decoder: any DecoderBackendFactory = ExportDefaults.decoder
    /// Whether tracks the output cannot hold beside the video (another video track, a
    /// subtitle track into MPEG-TS) may be left out; `false`: the export fails before writing
    /// (``ExportError/Code/tracksNotCarried``), as nothing is lost silently.
    public var dropsTracksNotCarried = false

    /// Re-encoding to H.264 with the default settings, audio copied.
    public init() {}
}

/// The encoder settings of a re-encoding export (``ExportSettings/Video/encode(_:)``).
public struct VideoEncoding: Sendable {
    /// H.264 (x264) or H.265 (x265).
    public var codec: Codec = .h264
    /// Bitrate, CRF or QP; `nil`: ``EncoderConfiguration/rateControl``'s default (5 Mbit/s).
    public var rateControl: RateControl?
    /// Keyframe interval in frames; `nil`: 5 seconds of frames.
    public var gopLength: Int?
    /// x264/x265 preset; `nil`: ``EncoderConfiguration/defaultPreset`` (`medium`).
    public var preset: String?
    /// The output's width and height; `nil` keeps the input's, one side `nil` keeps the display
    /// aspect ratio (rounded to the chroma grid). Scaled by libswscale (bicubic).
    public var width: Int?
    public var height: Int?
    /// The encoder library; `nil`: x264 for H.264, x265 for H.265.
    public var encoder: (any EncoderBackendFactory)?
    /// Settings for the encoder library's own parser (`x264_param_parse`, `x265_param_parse`)
    /// after nalu's, as `nalu encode --x264-params`/`--x265-params` gives them; the source's
    /// colour description is added for the names not given here.
    public var parameters: [EncoderParameter] = []
    /// An interlaced input is encoded interlaced with its own field order (``InterlaceChoice``);
    /// `true` encodes the decoded pictures as progressive ones instead (`nalu encode
    /// --progressive`). An encoder that cannot code the input's interlacing fails the export
    /// (``ExportError/Code/invalidSettings``) unless this is set.
    public var progressive = false

    /// H.264 with the defaults.
    public init(codec: Codec = .h264) { self.codec = codec }
}

/// The defaults every export API shares.
public enum ExportDefaults {
    /// libavcodec decodes (H.264 and H.265).
    public static var decoder: any DecoderBackendFactory { AVCodecDecoderFactory() }
}
