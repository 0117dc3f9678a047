/// The avcC box payload: `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 5.3.3.1), which
/// carries an H.264 stream's parameter sets out of band in MP4/MOV, VideoToolbox and WebCodecs.
///
/// ``init(sequenceParameterSets:pictureParameterSets:lengthSize:)`` builds the record the way
/// FFmpeg's MP4 muxer does (profile, compatibility and level bytes copied from the first SPS; the
/// trailing chroma/bit-depth block written for profiles other than 66, 77 and 88), so the bytes
/// match what `ffmpeg -c copy out.mp4` writes. ``init(parsing:)`` accepts records with or without
/// the trailing block, as real files have both.
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    /// `configurationVersion` (1).
    public var configurationVersion: UInt8 = 1
    /// `AVCProfileIndication`: the SPS's `profile_idc`.
    public var avcProfileIndication: UInt8
    /// `profile_compatibility`: the SPS byte holding `constraint_set0_flag`…`constraint_set5_flag`.
    public var profileCompatibility: UInt8
    /// `AVCLevelIndication`: the SPS's `level_idc`.
    public var avcLevelIndication: UInt8
    /// `lengthSizeMinusOne`: 0, 1 or 3.
    public var lengthSizeMinusOne: UInt8
    /// SPS NAL units, header included, escaped as in the stream.
    public var sequenceParameterSets: [[UInt8]]
    /// PPS NAL units.
    public var pictureParameterSets: [[UInt8]]
    /// The trailing block for high profiles (`chroma_format`, bit depths, SPS extensions), when present.
    public var highProfileFields: HighProfileFields?

    /// The fields after the PPS list for profiles other than 66, 77 and 88.
    public struct HighProfileFields: Hashable, Sendable {
        public var chromaFormat: UInt8
        public var bitDepthLumaMinus8: UInt8
        public var bitDepthChromaMinus8: UInt8
        public var sequenceParameterSetExtensions: [[UInt8]]
    }

    /// Bytes per NAL length in the samples (1, 2 or 4).
    public var lengthSize: Int { Int(lengthSizeMinusOne) + 1 }

    /// Builds a record from parameter set NAL units (escaped, header included).
    public init(sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], lengthSize: Int = 4) throws(NALUError) {
        guard let first = sequenceParameterSets.first else {
            throw NALUError(.missing, field: "sequence parameter set", detail: "avcC needs at least one SPS")
        }
        guard !pictureParameterSets.isEmpty else {
            throw NALUError(.missing, field: "picture parameter set", detail: "avcC needs at least one PPS")
        }
        guard [1, 2, 4].contains(lengthSize) else {
            throw NALUError(.invalidValue, field: "lengthSizeMinusOne", detail: "length size \(lengthSize); must be 1, 2 or 4")
        }
        guard sequenceParameterSets.count <= 31, pictureParameterSets.count <= 255 else {
            throw NALUError(.doesNotFit, field: "numOfSequenceParameterSets", detail: "at most 31 SPS and 255 PPS")
        }
        for unit in sequenceParameterSets + pictureParameterSets where unit.count > 0xFFFF {
            throw NALUError(.doesNotFit, field: "sequenceParameterSetLength", detail: "\(unit.count) bytes")
        }
        let sps = try AVCSequenceParameterSet(nalUnit: first[...])
        avcProfileIndication = sps.profileIdc
        profileCompatibility = sps.constraintSetFlags
        avcLevelIndication = sps.levelIdc
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        if ![66, 77, 88].contains(sps.profileIdc) {
            highProfileFields = HighProfileFields(chromaFormat: UInt8(truncatingIfNeeded: sps.chromaFormatIdc),
                                                  bitDepthLumaMinus8: UInt8(truncatingIfNeeded: sps.bitDepthLumaMinus8),
                                                  bitDepthChromaMinus8: UInt8(truncatingIfNeeded: sps.bitDepthChromaMinus8),
                                                  sequenceParameterSetExtensions: [])
        }
    }

    /// Parses a record (the avcC box payload).
    public init(parsing bytes: [UInt8]) throws(NALUError) {
        var reader = ByteReader(bytes)
        configurationVersion = try reader.u8("configurationVersion")
        guard configurationVersion == 1 else {
            throw NALUError(.unsupported, field: "configurationVersion", byteOffset: 0, detail: "\(configurationVersion)")
        }
        avcProfileIndication = try reader.u8("AVCProfileIndication")
        profileCompatibility = try reader.u8("profile_compatibility")
        avcLevelIndication = try reader.u8("AVCLevelIndication")
        lengthSizeMinusOne = try reader.u8("lengthSizeMinusOne") & 0x03
        guard lengthSizeMinusOne != 2 else {
            throw NALUError(.invalidValue, field: "lengthSizeMinusOne", byteOffset: 4, detail: "2 is reserved")
        }
        let spsCount = Int(try reader.u8("numOfSequenceParameterSets") & 0x1F)
        sequenceParameterSets = try Self.readUnits(&reader, count: spsCount, field: "sequenceParameterSetLength")
        let ppsCount = Int(try reader.u8("numOfPictureParameterSets"))
        pictureParameterSets = try Self.readUnits(&reader, count: ppsCount, field: "pictureParameterSetLength")
        // The trailing block is optional in practice: many writers omit it.
        if reader.remaining > 0, ![66, 77, 88].contains(avcProfileIndication) {
            let chroma = try reader.u8("chroma_format") & 0x03
            let luma = try reader.u8("bit_depth_luma_minus8") & 0x07
            let chromaDepth = try reader.u8("bit_depth_chroma_minus8") & 0x07
            let extCount = Int(try reader.u8("numOfSequenceParameterSetExt"))
            let extensions = try Self.readUnits(&reader, count: extCount, field: "sequenceParameterSetExtLength")
            highProfileFields = HighProfileFields(chromaFormat: chroma, bitDepthLumaMinus8: luma,
                                                  bitDepthChromaMinus8: chromaDepth, sequenceParameterSetExtensions: extensions)
        }
    }

    private static func readUnits(_ reader: inout ByteReader, count: Int, field: StaticString) throws(NALUError) -> [[UInt8]] {
        var units: [[UInt8]] = []
        units.reserveCapacity(min(count, 32))
        for _ in 0..<count {
            let length = Int(try reader.u16(field))
            units.append(Array(try reader.bytes(length, field)))
        }
        return units
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.u8(configurationVersion)
        writer.u8(avcProfileIndication)
        writer.u8(profileCompatibility)
        writer.u8(avcLevelIndication)
        writer.u8(0xFC | lengthSizeMinusOne)
        writer.u8(0xE0 | UInt8(truncatingIfNeeded: sequenceParameterSets.count))
        for unit in sequenceParameterSets {
            writer.u16(UInt16(truncatingIfNeeded: unit.count))
            writer.append(contentsOf: unit)
        }
        writer.u8(UInt8(truncatingIfNeeded: pictureParameterSets.count))
        for unit in pictureParameterSets {
            writer.u16(UInt16(truncatingIfNeeded: unit.count))
            writer.append(contentsOf: unit)
        }
        if let high = highProfileFields {
            writer.u8(0xFC | high.chromaFormat)
            writer.u8(0xF8 | high.bitDepthLumaMinus8)
            writer.u8(0xF8 | high.bitDepthChromaMinus8)
            writer.u8(UInt8(truncatingIfNeeded: high.sequenceParameterSetExtensions.count))
            for unit in high.sequenceParameterSetExtensions {
                writer.u16(UInt16(truncatingIfNeeded: unit.count))
                writer.append(contentsOf: unit)
            }
        }
        return writer.bytes
    }

    /// Every parameter set NAL unit, SPS first.
    public var parameterSets: [[UInt8]] { sequenceParameterSets + pictureParameterSets }
}
