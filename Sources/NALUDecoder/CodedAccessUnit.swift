public import NALU

/// One access unit to decode (H.264 7.4.1.2.3, H.265 7.4.2.4.4): its NAL units, where it was in
/// the input, and its presentation time when the container gives one.
public struct CodedAccessUnit: Sendable, Hashable {
    /// The NAL units in decoding order, escaped, header included, without start codes or length
    /// prefixes.
    public var nalUnits: [[UInt8]]
    /// Decoding-order index in the input (from 0), for errors and statistics.
    public var index: Int
    /// Offset in the input of the access unit's first byte, for errors.
    public var byteOffset: Int64
    /// Presentation timestamp (an MP4 sample's composition time, a PES packet's PTS), or `nil`
    /// for raw streams: their frames are numbered 0, 1, 2… in presentation order.
    public var pts: Int64?
    /// Why decoding can start here, if it can (the session restarts a failed backend only at one).
    public var keyframe: KeyframeClass?
    /// The picture's coding type from its slice headers.
    public var pictureType: PictureType?

    public init(nalUnits: [[UInt8]], index: Int, byteOffset: Int64 = 0, pts: Int64? = nil, keyframe: KeyframeClass? = nil,
                pictureType: PictureType? = nil) {
        self.nalUnits = nalUnits
        self.index = index
        self.byteOffset = byteOffset
        self.pts = pts
        self.keyframe = keyframe
        self.pictureType = pictureType
    }
}
