/// What an access unit holds, without its bytes: where it is, how many NAL units, and what kind of
/// picture it carries.
public struct AccessUnitSummary: Hashable, Sendable {
    /// Position in decoding order, from 0.
    public var index: Int
    /// Offset of the first byte of its first NAL unit's start code or length prefix.
    public var offset: Int64
    /// Bytes from ``offset`` to the end of its last NAL unit, prefixes included.
    public var size: Int64
    /// Number of NAL units.
    public var nalUnitCount: Int = 0
    /// Number of VCL NAL units (slices or slice segments).
    public var vclNALUnitCount: Int = 0
    /// Why decoding can start here, if it can.
    public var keyframe: KeyframeClass?
    /// The picture's coding type, from its slice headers.
    public var pictureType: PictureType?
    /// Whether it carries a VPS, SPS or PPS in band.
    public var hasParameterSets = false
    /// Whether it starts with an access unit delimiter.
    public var hasAccessUnitDelimiter = false

    public init(index: Int, offset: Int64, size: Int64) {
        self.index = index
        self.offset = offset
        self.size = size
    }
}
