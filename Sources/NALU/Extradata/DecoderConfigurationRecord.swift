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
