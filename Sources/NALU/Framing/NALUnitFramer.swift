/// A push framer: stream bytes in, in any chunking; every NAL unit they complete lent out as a
/// ``NALUnitView``. ``AnnexBFramer`` and ``LengthPrefixedFramer`` are the two framings;
/// ``AccessUnitAssembler`` drives either through this one shape.
public protocol NALUnitFramer: Sendable {
    /// Appends `bytes` and lends every NAL unit they complete to `body` (valid only during the call).
    mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (NALUnitView) throws -> Void) throws
    /// Ends the stream: lends what the end completes to `body`, and throws ``NALUError`` when the
    /// framing says the stream ended inside a NAL unit. The framer can then take a new stream.
    mutating func finishStream(_ body: (NALUnitView) throws -> Void) throws
}

extension AnnexBFramer: NALUnitFramer {
    /// The last NAL unit ends at the end of the stream (ITU-T H.264 B.1.2).
    public mutating func finishStream(_ body: (NALUnitView) throws -> Void) throws {
        try finish(body)
    }
}

extension LengthPrefixedFramer: NALUnitFramer {
    /// A length-prefixed NAL unit is delivered as soon as its bytes are in: the end completes
    /// nothing, and throws when it falls inside a length field or a NAL unit.
    public mutating func finishStream(_ body: (NALUnitView) throws -> Void) throws {
        try finish()
    }
}
