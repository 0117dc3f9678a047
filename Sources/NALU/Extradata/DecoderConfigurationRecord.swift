/// An avcC or hvcC record, for code that handles both codecs.
public enum DecoderConfigurationRecord: Hashable, Sendable {
    case avc(AVCDecoderConfigurationRecord)
    case hevc(HEVCDecoderConfigurationRecord)

    /// Parses a record of `codec`'s kind.
    public init(parsing bytes: [UInt8], codec: Codec) throws(NALUError) {
        switch codec {
        case .h264: self = .avc(try AVCDecoderConfigurationRecord(parsing: bytes))
        case .hevc: self = .hevc(try HEVCDecoderConfigurationRecord(parsing: bytes))
        }
    }

    /// Parses a record whose codec is unknown: an hvcC is at least 23 bytes with
    /// `configurationVersion` 1 and a plausible array list; anything else is tried as avcC.
    public init(parsing bytes: [UInt8]) throws(NALUError) {
        if bytes.count >= 23, let record = try? HEVCDecoderConfigurationRecord(parsing: bytes),
           record.arrays.contains(where: { $0.nalUnitType == 33 }) {
            self = .hevc(record)
        } else {
            self = .avc(try AVCDecoderConfigurationRecord(parsing: bytes))
        }
    }

    public var codec: Codec {
        switch self {
        case .avc: .h264
        case .hevc: .hevc
        }
    }

    /// Bytes per NAL length in the samples it describes.
    public var lengthSize: Int {
        switch self {
        case .avc(let record): record.lengthSize
        case .hevc(let record): record.lengthSize
        }
    }

    /// The parameter sets, VPS→SPS→PPS.
    public var parameterSets: [[UInt8]] {
        switch self {
        case .avc(let record): record.parameterSets
        case .hevc(let record): record.parameterSets
        }
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        switch self {
        case .avc(let record): record.bytes
        case .hevc(let record): record.bytes
        }
    }
}

extension DecoderConfigurationRecord {
    /// The one builder of avcC/hvcC records (ISO/IEC 14496-15 5.3.3.1, 8.3.3.1) from parameter
    /// set NAL units in stream order: H.264 SPSs and PPSs (other NAL units are left out), H.265
    /// arrays in type order (VPS, SPS, PPS, SEI), each NAL unit in the order given. Every writer of a
    /// record (length-prefixed output, MP4 sample entries, `nalu extradata`, encoder sessions)
    /// goes through it.
    /// - Parameters:
    ///   - lengthSize: `lengthSizeMinusOne + 1` of the samples the record describes (1, 2 or 4).
    ///   - arrayCompleteness: hvcC only: 1 when every set is in the record (`hvc1`), 0 when sets
    ///     may also be in band (`hev1`).
    public static func build(codec: Codec, parameterSets: [[UInt8]], lengthSize: Int, arrayCompleteness: Bool) throws(NALUError) -> [UInt8] {
        try DecoderConfigurationRecord(codec: codec, parameterSets: parameterSets, lengthSize: lengthSize,
                                       arrayCompleteness: arrayCompleteness).bytes
    }

    /// The record ``build(codec:parameterSets:lengthSize:arrayCompleteness:)`` writes, as a value.
    public init(codec: Codec, parameterSets: [[UInt8]], lengthSize: Int, arrayCompleteness: Bool) throws(NALUError) {
        switch codec {
        case .h264:
            let type = { (unit: [UInt8]) in unit.first.map { AVCNALUnitType(rawValue: $0) } }
            let sps = parameterSets.filter { type($0) == .sps }
            let pps = parameterSets.filter { type($0) == .pps }
            self = .avc(try AVCDecoderConfigurationRecord(sequenceParameterSets: sps, pictureParameterSets: pps, lengthSize: lengthSize))
        case .hevc:
            self = .hevc(try HEVCDecoderConfigurationRecord(parameterSets: parameterSets, arrayCompleteness: arrayCompleteness,
                                                            lengthSize: lengthSize))
        }
    }
}
