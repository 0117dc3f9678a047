/// An encoded access unit with its timestamps, as an encoder hands it out: what NALUMP4's
/// `MP4Writer.append(_:)` takes. NALUEncoder's `EncodedPacket` conforms, so encoder packets go
/// into an MP4 file without the MP4 module depending on the encoder module (or the other way).
public protocol TimedAccessUnit {
    /// Every NAL unit of the access unit, framed as ``format`` (4-byte lengths when
    /// length-prefixed).
    var bytes: [UInt8] { get }
    /// How ``bytes`` is framed.
    var format: StreamFormat { get }
    /// Presentation timestamp in ``timeBase`` units.
    var pts: Int64 { get }
    /// Decoding timestamp in ``timeBase`` units; strictly increasing from one access unit to the
    /// next.
    var dts: Int64 { get }
    /// Seconds per timestamp tick, e.g. 1/30 or 1001/30000.
    var timeBase: Rational { get }
    /// Whether decoding can start here (an IDR, CRA, BLA or recovery point picture).
    var isSync: Bool { get }
}

/// Where parameter sets travel: in the decoder configuration record only, or also in band (in
/// the access units). The one rule used by the encoder session (its packets and its record),
/// `MP4Writer.append(_:)` and `MP4Muxer`:
///
/// - **Out of band** (`avc1`/`hvc1`; ISO/IEC 14496-15 5.4.2.1, 8.4.1.1): the record holds the
///   parameter sets, the access units do not carry them, and the hvcC arrays are complete
///   (`array_completeness` = 1). A parameter set that differs from the record's (a later
///   encoder's new settings) has to stay in band to keep the stream decodable.
/// - **In band** (`avc3`/`hev1`): access units may carry parameter sets (before keyframes), and
///   the hvcC arrays are not complete (`array_completeness` = 0).
public enum ParameterSetCarriage: Sendable, Hashable {
    case outOfBand
    case inBand

    /// The carriage of a stream or sample entry that does (`true`) or does not carry parameter
    /// sets in band.
    public init(inBand: Bool) { self = inBand ? .inBand : .outOfBand }

    /// The hvcC `array_completeness` flag for parameter-set arrays.
    public var arrayCompleteness: Bool { self == .outOfBand }

    /// Whether the parameter set `nalUnit` stays in an access unit when `record` holds the
    /// record's parameter sets: always in band; out of band only when the record lacks it.
    public func keepsInAccessUnit(_ nalUnit: some Collection<UInt8>, record: [[UInt8]]) -> Bool {
        self == .inBand || !record.contains { $0.elementsEqual(nalUnit) }
    }
}
