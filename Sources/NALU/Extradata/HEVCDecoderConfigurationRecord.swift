/// The hvcC box payload: `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 8.3.3.1).
///
/// ``init(parameterSets:arrayCompleteness:lengthSize:)`` derives every header field from the
/// VPS/SPS/PPS the way FFmpeg's MP4 muxer does: general profile space (last seen), tier (highest),
/// profile (highest), compatibility and constraint flags (bits set in every PTL), level (highest
/// for the highest tier); `min_spatial_segmentation_idc` the lowest over the SPS VUIs (0 when none
/// says); `parallelismType` from the PPS's `entropy_coding_sync_enabled_flag`/`tiles_enabled_flag`
/// (0 when `min_spatial_segmentation_idc` is 0); chroma format and bit depths from the SPS;
/// `numTemporalLayers` the highest `max_sub_layers_minus1 + 1`; `temporalIdNested` from the SPS;
/// `avgFrameRate` and `constantFrameRate` 0 (unspecified). Arrays keep the NAL units' order.
public struct HEVCDecoderConfigurationRecord: Hashable, Sendable {
    /// One array of NAL units of one type.
    public struct NALUnitArray: Hashable, Sendable {
        /// `array_completeness`: 1 when every NAL unit of this type is in the array (required for
        /// parameter sets with the `hvc1` sample entry), 0 when more may appear in band (`hev1`).
        public var arrayCompleteness: Bool
        /// `NAL_unit_type` (32 VPS, 33 SPS, 34 PPS, 39/40 SEI).
        public var nalUnitType: UInt8
        /// The NAL units, header included, escaped as in the stream.
        public var nalUnits: [[UInt8]]
    }

    public var configurationVersion: UInt8 = 1
    public var generalProfileSpace: UInt8
    public var generalTierFlag: Bool
    public var generalProfileIdc: UInt8
    public var generalProfileCompatibilityFlags: UInt32
    /// 48 bits.
    public var generalConstraintIndicatorFlags: UInt64
    public var generalLevelIdc: UInt8
    /// 12 bits.
    public var minSpatialSegmentationIdc: UInt16
    /// 0 mixed/unknown, 1 slices, 2 tiles, 3 wavefront.
    public var parallelismType: UInt8
    public var chromaFormat: UInt8
    public var bitDepthLumaMinus8: UInt8
    public var bitDepthChromaMinus8: UInt8
    public var avgFrameRate: UInt16
    public var constantFrameRate: UInt8
    public var numTemporalLayers: UInt8
    public var temporalIdNested: Bool
    public var lengthSizeMinusOne: UInt8
    public var arrays: [NALUnitArray]

    /// Bytes per NAL length in the samples (1, 2 or 4).
    public var lengthSize: Int { Int(lengthSizeMinusOne) + 1 }

    /// Builds a record from VPS, SPS, PPS (and optionally declarative SEI) NAL units, escaped with
    /// their headers, in stream order: each array keeps its units in that order, and the arrays go
    /// in the order of their types (VPS 32, SPS 33, PPS 34, prefix SEI 39, suffix SEI 40).
    /// - Parameter arrayCompleteness: `true` for the `hvc1` sample entry (parameter sets only out
    ///   of band), `false` for `hev1` (they may also appear in band).
    public init(parameterSets: [[UInt8]], arrayCompleteness: Bool, lengthSize: Int = 4) throws(NALUError) {
        guard [1, 2, 4].contains(lengthSize) else {
            throw NALUError(.invalidValue, field: "lengthSizeMinusOne", detail: "length size \(lengthSize); must be 1, 2 or 4")
        }
        configurationVersion = 1
        generalProfileSpace = 0
        generalTierFlag = false
        generalProfileIdc = 0
        generalProfileCompatibilityFlags = 0xFFFF_FFFF
        generalConstraintIndicatorFlags = 0xFFFF_FFFF_FFFF
        generalLevelIdc = 0
        minSpatialSegmentationIdc = 0
        var minSpatial = 4097
        parallelismType = 0
        chromaFormat = 0
        bitDepthLumaMinus8 = 0
        bitDepthChromaMinus8 = 0
        avgFrameRate = 0
        constantFrameRate = 0
        numTemporalLayers = 0
        temporalIdNested = false
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        arrays = []
        var counts = (vps: 0, sps: 0, pps: 0)

        for unit in parameterSets {
            let header = try HEVCNALUnitHeader(unit)
            let type = header.nalUnitType.rawValue
            guard unit.count <= 0xFFFF else {
                throw NALUError(.doesNotFit, field: "nalUnitLength", detail: "\(unit.count) bytes")
            }
            switch type {
            case 32:
                let vps = try HEVCVideoParameterSet(nalUnit: unit[...])
                numTemporalLayers = max(numTemporalLayers, UInt8(truncatingIfNeeded: vps.vpsMaxSubLayersMinus1 + 1))
                update(with: vps.profileTierLevel)
                counts.vps += 1
            case 33:
                let sps = try HEVCSequenceParameterSet(nalUnit: unit[...])
                numTemporalLayers = max(numTemporalLayers, UInt8(truncatingIfNeeded: sps.spsMaxSubLayersMinus1 + 1))
                temporalIdNested = sps.spsTemporalIdNestingFlag
                update(with: sps.profileTierLevel)
                chromaFormat = UInt8(truncatingIfNeeded: sps.chromaFormatIdc)
                bitDepthLumaMinus8 = UInt8(truncatingIfNeeded: sps.bitDepthLumaMinus8)
                bitDepthChromaMinus8 = UInt8(truncatingIfNeeded: sps.bitDepthChromaMinus8)
                if let vui = sps.vuiParameters, vui.bitstreamRestrictionFlag {
                    minSpatial = min(minSpatial, vui.minSpatialSegmentationIdc)
                }
                counts.sps += 1
            case 34:
                let pps = try HEVCPictureParameterSet(nalUnit: unit[...])
                switch (pps.entropyCodingSyncEnabledFlag, pps.tilesEnabledFlag) {
                case (true, true): parallelismType = 0
                case (true, false): parallelismType = 3
                case (false, true): parallelismType = 2
                case (false, false): parallelismType = 1
                }
                counts.pps += 1
            case 39, 40:
                break
            default:
                throw NALUError(.invalidValue, field: "NAL_unit_type", detail: "\(type) does not belong in hvcC")
            }
            if let index = arrays.firstIndex(where: { $0.nalUnitType == type }) {
                arrays[index].nalUnits.append(unit)
            } else {
                arrays.append(NALUnitArray(arrayCompleteness: type <= 34 && arrayCompleteness, nalUnitType: type, nalUnits: [unit]))
            }
        }
        // ISO/IEC 14496-15 8.3.3.1: the arrays go VPS, SPS, PPS, prefix SEI, suffix SEI, whatever
        // order the stream had (a decoder reading an SPS before its VPS rejects it).
        arrays.sort { $0.nalUnitType < $1.nalUnitType }
        guard counts.vps > 0 else { throw NALUError(.missing, field: "video parameter set", detail: "hvcC needs a VPS") }
        guard counts.sps > 0 else { throw NALUError(.missing, field: "sequence parameter set", detail: "hvcC needs an SPS") }
        guard counts.pps > 0 else { throw NALUError(.missing, field: "picture parameter set", detail: "hvcC needs a PPS") }
        minSpatialSegmentationIdc = minSpatial > 4096 ? 0 : UInt16(minSpatial)
        if minSpatialSegmentationIdc == 0 { parallelismType = 0 }
    }

    private mutating func update(with ptl: HEVCProfileTierLevel) {
        generalProfileSpace = ptl.generalProfileSpace
        if !generalTierFlag && ptl.generalTierFlag {
            generalLevelIdc = ptl.generalLevelIdc
        } else {
            generalLevelIdc = max(generalLevelIdc, ptl.generalLevelIdc)
        }
        generalTierFlag = generalTierFlag || ptl.generalTierFlag
        generalProfileIdc = max(generalProfileIdc, ptl.generalProfileIdc)
        generalProfileCompatibilityFlags &= ptl.generalProfileCompatibilityFlags
        generalConstraintIndicatorFlags &= ptl.generalConstraintIndicatorFlags
    }

    /// Parses a record (the hvcC box payload).
    public init(parsing bytes: [UInt8]) throws(NALUError) {
        var reader = ByteReader(bytes)
        configurationVersion = try reader.u8("configurationVersion")
        guard configurationVersion == 1 else {
            throw NALUError(.unsupported, field: "configurationVersion", byteOffset: 0, detail: "\(configurationVersion)")
        }
        let profile = try reader.u8("general_profile_idc")
        generalProfileSpace = profile >> 6
        generalTierFlag = profile & 0x20 != 0
        generalProfileIdc = profile & 0x1F
        generalProfileCompatibilityFlags = try reader.u32("general_profile_compatibility_flags")
        generalConstraintIndicatorFlags = try reader.uint(6, "general_constraint_indicator_flags")
        generalLevelIdc = try reader.u8("general_level_idc")
        minSpatialSegmentationIdc = try reader.u16("min_spatial_segmentation_idc") & 0x0FFF
        parallelismType = try reader.u8("parallelismType") & 0x03
        chromaFormat = try reader.u8("chromaFormat") & 0x03
        bitDepthLumaMinus8 = try reader.u8("bitDepthLumaMinus8") & 0x07
        bitDepthChromaMinus8 = try reader.u8("bitDepthChromaMinus8") & 0x07
        avgFrameRate = try reader.u16("avgFrameRate")
        let packed = try reader.u8("lengthSizeMinusOne")
        constantFrameRate = packed >> 6
        numTemporalLayers = (packed >> 3) & 0x07
        temporalIdNested = packed & 0x04 != 0
        lengthSizeMinusOne = packed & 0x03
        guard lengthSizeMinusOne != 2 else {
            throw NALUError(.invalidValue, field: "lengthSizeMinusOne", byteOffset: 21, detail: "2 is reserved")
        }
        let arrayCount = Int(try reader.u8("numOfArrays"))
        arrays = []
        for _ in 0..<arrayCount {
            let typeByte = try reader.u8("NAL_unit_type")
            let count = Int(try reader.u16("numNalus"))
            var units: [[UInt8]] = []
            units.reserveCapacity(min(count, 64))
            for _ in 0..<count {
                let length = Int(try reader.u16("nalUnitLength"))
                units.append(Array(try reader.bytes(length, "nalUnit")))
            }
            arrays.append(NALUnitArray(arrayCompleteness: typeByte & 0x80 != 0, nalUnitType: typeByte & 0x3F, nalUnits: units))
        }
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.u8(configurationVersion)
        writer.u8(generalProfileSpace << 6 | (generalTierFlag ? 0x20 : 0) | generalProfileIdc & 0x1F)
        writer.u32(generalProfileCompatibilityFlags)
        writer.uint(generalConstraintIndicatorFlags, width: 6)
        writer.u8(generalLevelIdc)
        writer.u16(0xF000 | minSpatialSegmentationIdc & 0x0FFF)
        writer.u8(0xFC | parallelismType & 0x03)
        writer.u8(0xFC | chromaFormat & 0x03)
        writer.u8(0xF8 | bitDepthLumaMinus8 & 0x07)
        writer.u8(0xF8 | bitDepthChromaMinus8 & 0x07)
        writer.u16(avgFrameRate)
        writer.u8(constantFrameRate << 6 | (numTemporalLayers & 0x07) << 3 | (temporalIdNested ? 0x04 : 0) | lengthSizeMinusOne & 0x03)
        writer.u8(UInt8(truncatingIfNeeded: arrays.count))
        for array in arrays {
            writer.u8((array.arrayCompleteness ? 0x80 : 0) | array.nalUnitType & 0x3F)
            writer.u16(UInt16(truncatingIfNeeded: array.nalUnits.count))
            for unit in array.nalUnits {
                writer.u16(UInt16(truncatingIfNeeded: unit.count))
                writer.append(contentsOf: unit)
            }
        }
        return writer.bytes
    }

    /// The prefix SEI NAL units of the record's arrays (declarative SEI, `NAL_unit_type` 39).
    public var declarativeSEI: [[UInt8]] {
        arrays.filter { $0.nalUnitType == 39 }.flatMap(\.nalUnits)
    }

    /// The VPS, SPS and PPS NAL units, in that order.
    public var parameterSets: [[UInt8]] {
        [32, 33, 34].flatMap { type in arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits) }
    }
}
