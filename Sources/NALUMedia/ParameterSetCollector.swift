public import NALU

/// The parameter sets a decoder needs to start: what `nalu extradata` writes.
///
/// Fed the out-of-band sets and then the stream's NAL units in order, it keeps each set the first
/// time it is seen (a later copy with the same id and new content replaces it in place) and is
/// ``isComplete`` at the first picture after a decodable set (H.264 SPS + PPS; H.265 VPS + SPS +
/// PPS) has been seen, which is where a reader stops.
public struct ParameterSetCollector: Sendable {
    public let codec: Codec
    private var store: ParameterSetStore
    /// The sets in the order first seen.
    public private(set) var parameterSets: [[UInt8]] = []
    /// Whether a picture followed a decodable set: nothing more is needed.
    public private(set) var isComplete = false

    public init(codec: Codec) {
        self.codec = codec
        store = ParameterSetStore(codec: codec)
    }

    /// Takes one NAL unit (escaped, header included); errors carry its offset.
    public mutating func add(_ unit: NALUnitView) throws(NALUError) {
        let header: NALUnitHeader
        do throws(NALUError) {
            header = try NALUnitHeader(unit.bytes, codec: codec)
        } catch {
            throw error.offset(by: unit.offset)
        }
        if header.isParameterSet {
            let bytes = unit.array
            do throws(NALUError) {
                switch try store.add(bytes) {
                case .new: parameterSets.append(bytes)
                case .changed:
                    // Same id, new content: the latest version, in the place of the first.
                    let current = Set(store.nalUnits)
                    parameterSets = parameterSets.map { current.contains($0) ? $0 : bytes }
                case .unchanged, .otherLayer: break
                }
            } catch {
                throw error.offset(by: unit.offset)
            }
        } else if header.isVCL && store.hasDecodableSet {
            isComplete = true
        }
    }

    /// Takes a parameter set held in an array (an MP4 sample entry's).
    public mutating func add(nalUnit: [UInt8]) throws(NALUError) {
        try NALUnitView.withNALUnit(nalUnit) { (unit) throws(NALUError) in try add(unit) }
    }

    /// Whether the sets seen make a decodable set.
    public var hasDecodableSet: Bool { store.hasDecodableSet }

    /// Collects the sets of `source`: its out-of-band ones, then the stream's up to the first
    /// picture after a decodable set.
    /// - Throws: ``NALUError`` `.missing` naming the parameter sets when the stream has none.
    public static func collect(_ source: MediaSource) throws(NALUError) -> ParameterSetCollector {
        return try NALUError.typed(field: "parameter sets") {
            var collector = ParameterSetCollector(codec: source.codec)
            for unit in source.outOfBandParameterSets { try collector.add(nalUnit: unit) }
            struct Done: Error {}
            do {
                try source.forEachNALUnit { unit in
                    try collector.add(unit)
                    if collector.isComplete { throw Done() }
                }
            } catch is Done {}
            guard collector.hasDecodableSet else {
                throw NALUError(.missing, field: "parameter sets", byteOffset: nil,
                                detail: source.codec == .h264 ? "the stream has no SPS and PPS" : "the stream has no VPS, SPS and PPS")
            }
            return collector
        }
    }

    /// The avcC/hvcC record of the sets (``DecoderConfigurationRecord/build(codec:parameterSets:lengthSize:arrayCompleteness:)``).
    public func record(lengthSize: Int = 4, arrayCompleteness: Bool = true) throws(NALUError) -> [UInt8] {
        try DecoderConfigurationRecord.build(codec: codec, parameterSets: parameterSets, lengthSize: lengthSize,
                                             arrayCompleteness: arrayCompleteness)
    }
}

/// How ``ParameterSetCollector/extradata(_:lengthSize:arrayCompleteness:)`` writes a stream's
/// parameter sets (`nalu extradata --format`).
public enum ExtradataFormat: String, Sendable, CaseIterable {
    /// The decoder configuration record: avcC for H.264, hvcC for H.265 (ISO/IEC 14496-15).
    case avcc
    /// The same record under its H.265 name.
    case hvcc
    /// The parameter sets as an Annex-B byte stream (four-byte start codes).
    case annexb
}

extension ParameterSetCollector {
    /// The collected parameter sets as `format`: the record (``record(lengthSize:arrayCompleteness:)``)
    /// or the sets each after a four-byte start code.
    public func extradata(_ format: ExtradataFormat, lengthSize: Int = 4, arrayCompleteness: Bool = true) throws(NALUError) -> [UInt8] {
        switch format {
        case .avcc, .hvcc: try record(lengthSize: lengthSize, arrayCompleteness: arrayCompleteness)
        case .annexb: parameterSets.flatMap { [0, 0, 0, 1] + $0 }
        }
    }
}
