/// One coded access unit as a decoder takes it (H.264 7.4.1.2.3, H.265 7.4.2.4.4): its NAL
/// units, where it was in the input, its times when the container gives them, and the parameter
/// sets in force when it was read.
///
/// NALUMedia's `MediaReader` and `MediaSource.forEachCodedAccessUnit` yield these; NALUDecoder's
/// `DecoderSession` and `AsyncDecoderSession` decode them.
public struct CodedAccessUnit: Sendable, Hashable {
    /// The NAL units in decoding order, escaped, header included, without start codes or length
    /// prefixes.
    public var nalUnits: [[UInt8]]
    /// Decoding-order index in the input (from 0), for errors and statistics.
    public var index: Int
    /// Offset in the input of the access unit's first byte (its first start code or length
    /// prefix), for errors.
    public var byteOffset: Int64
    /// Presentation timestamp in ``timing``'s timescale (an MP4 sample's composition time, a PES
    /// packet's PTS unwrapped across 2^33), or `nil` for raw streams: their frames are numbered
    /// 0, 1, 2… in presentation order.
    public var pts: Int64?
    /// Why decoding can start here, if it can (the session restarts a failed backend only at one).
    public var keyframe: KeyframeClass?
    /// The picture's coding type from its slice headers.
    public var pictureType: PictureType?
    /// Decoding and presentation time and duration in the track's timescale
    /// (``SampleTiming``), or `nil` when the container gives none (an elementary stream, an
    /// access unit that starts inside an MP4 sample or a PES packet).
    public var timing: SampleTiming?
    /// The VPS, SPS and PPS NAL units stored when the access unit was read, its own included
    /// (``ParameterSetStore/nalUnits``: the out-of-band ones and every in-band update so far),
    /// by type and id: what a decoder opened at this access unit needs. Empty when not given.
    public var parameterSets: [[UInt8]]

    public init(nalUnits: [[UInt8]], index: Int, byteOffset: Int64 = 0, pts: Int64? = nil, keyframe: KeyframeClass? = nil,
                pictureType: PictureType? = nil, timing: SampleTiming? = nil, parameterSets: [[UInt8]] = []) {
        self.nalUnits = nalUnits
        self.index = index
        self.byteOffset = byteOffset
        self.pts = pts
        self.keyframe = keyframe
        self.pictureType = pictureType
        self.timing = timing
        self.parameterSets = parameterSets
    }

    /// Decoding time in ``timing``'s timescale, if known.
    public var dts: Int64? { timing?.decode }
}
