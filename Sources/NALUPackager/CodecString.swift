public import NALU
import NALUTS
import NALUMedia

/// RFC 6381 `codecs` parameter values (as HLS `CODECS` and DASH `@codecs` take them), computed
/// from the stream's parameter sets and sample entries.
public enum CodecString {
    /// ISO/IEC 14496-15 Annex E.2 (H.264): `avc1.PPCCLL`, the SPS's `profile_idc`, constraint
    /// flags byte and `level_idc` in hex. `entry` is the sample entry (`avc1`, `avc3`).
    public static func avc(_ sps: AVCSequenceParameterSet, entry: String = "avc1") -> String {
        entry + "." + hex(sps.profileIdc) + hex(sps.constraintSetFlags) + hex(sps.levelIdc)
    }

    /// ISO/IEC 14496-15 Annex E.3 (H.265): `hvc1.[A-C]<profile_idc>.<compatibility flags,
    /// bit-reversed, hex>.<L|H><level_idc>.<constraint indicator bytes, trailing zero bytes
    /// omitted>`, from the SPS's `profile_tier_level` (H.265 7.3.3).
    public static func hevc(_ sps: HEVCSequenceParameterSet, entry: String = "hvc1") -> String {
        let ptl = sps.profileTierLevel
        let space = ["", "A", "B", "C"][Int(ptl.generalProfileSpace & 3)]
        var reversed: UInt32 = 0
        for bit in 0..<32 where ptl.generalProfileCompatibilityFlags >> (31 - bit) & 1 == 1 { reversed |= 1 << bit }
        var constraints: [UInt8] = (0..<6).map { UInt8(truncatingIfNeeded: ptl.generalConstraintIndicatorFlags >> (40 - 8 * $0)) }
        while constraints.last == 0 { constraints.removeLast() }
        var text = "\(entry).\(space)\(ptl.generalProfileIdc).\(String(reversed, radix: 16, uppercase: true))"
        text += ".\(ptl.generalTierFlag ? "H" : "L")\(ptl.generalLevelIdc)"
        for byte in constraints { text += "." + String(byte, radix: 16, uppercase: true) }
        return text
    }

    /// The string for the first SPS among `parameterSets` (NAL units with their headers).
    /// - Throws: ``NALUError`` `.missing` when there is none; the SPS parser's errors.
    public static func video(codec: Codec, parameterSets: [[UInt8]], entry: String) throws(NALUError) -> String {
        switch codec {
        case .h264:
            guard let unit = parameterSets.first(where: { AVCNALUnitType(rawValue: $0.first ?? 0) == .sps }) else {
                throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "no SPS to compute the codec string from")
            }
            return avc(try AVCSequenceParameterSet(nalUnit: unit), entry: entry)
        case .hevc:
            guard let unit = parameterSets.first(where: { HEVCNALUnitType(rawValue: ($0.first ?? 0) >> 1) == .sps }) else {
                throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "no SPS to compute the codec string from")
            }
            return hevc(try HEVCSequenceParameterSet(nalUnit: unit), entry: entry)
        }
    }

    /// RFC 6381 3.3 / ISO/IEC 14496-14: `mp4a.40.<audioObjectType>` from an `mp4a` sample
    /// entry's AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1; NALUTS's
    /// ``NALUTS/AudioSpecificConfig/fromSampleEntry(_:)`` finds it in the `esds`, also inside a
    /// QuickTime `wave`); `nil` when there is none.
    public static func audio(sampleEntry entry: [UInt8]) -> String? {
        // AC-3 (ETSI TS 102 366 F.3: "ac-3"); MPEG-1/2 audio in mp4a: its objectTypeIndication in hex (RFC 6381 3.3).
        if entry.count >= 8, Array(entry[4..<8]) == Array("ac-3".utf8) { return "ac-3" }
        if let objectType = try? AudioSpecificConfig.objectTypeIndication(sampleEntry: entry), objectType == 0x6B || objectType == 0x69 {
            return "mp4a.\(hex(objectType).uppercased())"
        }
        guard let config = try? AudioSpecificConfig.fromSampleEntry(entry), let fields = audioFields(config) else { return nil }
        return "mp4a.40.\(fields.objectType)"
    }

    /// The channel count of an `mp4a` entry: its AudioSpecificConfig's `channelConfiguration`
    /// (1–6, or 8 for configuration 7), else the sample entry's `channelcount` (ISO/IEC
    /// 14496-12 12.2.3).
    public static func channels(sampleEntry entry: [UInt8]) -> Int? {
        if let config = try? AudioSpecificConfig.fromSampleEntry(entry), let fields = audioFields(config), fields.channels > 0 {
            return fields.channels == 7 ? 8 : fields.channels
        }
        guard entry.count >= 26 else { return nil }
        return Int(entry[24]) << 8 | Int(entry[25])
    }

    /// `audioObjectType` (with the escape, 5 + 6 bits) and `channelConfiguration` (4 bits, after
    /// the 4-bit `samplingFrequencyIndex` and its 24-bit escape) of an AudioSpecificConfig.
    static func audioFields(_ config: [UInt8]) -> (objectType: Int, channels: Int)? {
        var bit = 0
        func read(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard bit / 8 < config.count else { return nil }
                value = value << 1 | Int(config[bit / 8] >> (7 - bit % 8) & 1)
                bit += 1
            }
            return value
        }
        guard var objectType = read(5) else { return nil }
        if objectType == 31 {
            guard let extended = read(6) else { return nil }
            objectType = 32 + extended
        }
        guard let frequencyIndex = read(4) else { return nil }
        if frequencyIndex == 15 { guard read(24) != nil else { return nil } }
        guard let channels = read(4) else { return nil }
        return (objectType, channels)
    }

    private static func hex(_ value: UInt8) -> String {
        let text = String(value, radix: 16)
        return value < 16 ? "0" + text : text
    }
}
