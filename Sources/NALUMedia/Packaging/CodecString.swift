public import NALU

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
    public static func video(codec: Codec, parameterSets: [[UInt8]], entry: String) throws -> String {
        switch codec {
        case .h264:
            guard let unit = parameterSets.first(where: { ($0.first ?? 0) & 0x1F == 7 }) else {
                throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "no SPS to compute the codec string from")
            }
            return avc(try AVCSequenceParameterSet(nalUnit: unit), entry: entry)
        case .hevc:
            guard let unit = parameterSets.first(where: { (($0.first ?? 0) >> 1) & 0x3F == 33 }) else {
                throw NALUError(.missing, field: "seq_parameter_set_rbsp", detail: "no SPS to compute the codec string from")
            }
            return hevc(try HEVCSequenceParameterSet(nalUnit: unit), entry: entry)
        }
    }

    /// RFC 6381 3.3 / ISO/IEC 14496-14: `mp4a.40.<audioObjectType>` from an `mp4a` sample entry's
    /// `esds` (ISO/IEC 14496-1 7.2.6: ES_Descriptor → DecoderConfigDescriptor →
    /// DecoderSpecificInfo, whose AudioSpecificConfig starts with the object type), or
    /// `mp4a.<objectTypeIndication hex>` when it holds none; `nil` when `entry` is no parsable `mp4a`.
    public static func audio(sampleEntry entry: [UInt8]) -> String? {
        guard entry.count >= 36, entry[4..<8].elementsEqual(Array("mp4a".utf8)) else { return nil }
        // The boxes after the AudioSampleEntry's fields (8 header + 28 bytes); QuickTime sound
        // sample descriptions of version 1 and 2 have 16 and 36 more (QTFF "Sound Sample
        // Description"), and may hold the esds in a `wave` box.
        let version = Int(entry[16]) << 8 | Int(entry[17])
        let start = version == 1 ? 52 : version == 2 ? 72 : 36
        guard start <= entry.count else { return nil }
        return findESDS(entry[start...], depth: 0)
    }

    /// The codec string of the `esds` among `boxes` (or inside a `wave` box among them).
    private static func findESDS(_ boxes: ArraySlice<UInt8>, depth: Int) -> String? {
        var position = boxes.startIndex
        while position + 8 <= boxes.endIndex {
            let size = Int(boxes[position]) << 24 | Int(boxes[position + 1]) << 16 | Int(boxes[position + 2]) << 8 | Int(boxes[position + 3])
            guard size >= 8, size <= boxes.endIndex - position else { return nil }
            let type = boxes[(position + 4)..<(position + 8)]
            if type.elementsEqual(Array("esds".utf8)), size >= 12 {
                return esds(Array(boxes[(position + 12)..<(position + size)]))
            }
            if type.elementsEqual(Array("wave".utf8)), depth == 0, let found = findESDS(boxes[(position + 8)..<(position + size)], depth: 1) {
                return found
            }
            position += size
        }
        return nil
    }

    /// Walks the descriptors of an `esds` payload (after version and flags).
    private static func esds(_ bytes: [UInt8]) -> String? {
        var index = 0
        var objectType: UInt8?
        func descriptor() -> (tag: UInt8, length: Int)? {
            guard index < bytes.count else { return nil }
            let tag = bytes[index]
            index += 1
            var length = 0
            for _ in 0..<4 {
                guard index < bytes.count else { return nil }
                let byte = bytes[index]
                index += 1
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let es = descriptor(), es.tag == 0x03, index + 3 <= bytes.count else { return nil }
        let flags = bytes[index + 2]
        index += 3
        if flags & 0x80 != 0 { index += 2 }  // dependsOn_ES_ID
        if flags & 0x40 != 0 {                // URL
            guard index < bytes.count else { return nil }
            index += 1 + Int(bytes[index])
        }
        if flags & 0x20 != 0 { index += 2 }  // OCR_ES_Id
        guard let config = descriptor(), config.tag == 0x04, index + 13 <= bytes.count else { return nil }
        objectType = bytes[index]
        index += 13
        guard let objectType else { return nil }
        if objectType == 0x40, let info = descriptor(), info.tag == 0x05, info.length >= 1, index < bytes.count {
            var audioObjectType = Int(bytes[index] >> 3)
            if audioObjectType == 31, index + 1 < bytes.count {
                audioObjectType = 32 + Int((bytes[index] & 0x07) << 3 | bytes[index + 1] >> 5)
            }
            return "mp4a.40.\(audioObjectType)"
        }
        return "mp4a." + hex(objectType)
    }

    /// The channel count of an `mp4a` (or any AudioSampleEntry, ISO/IEC 14496-12 12.2.3).
    public static func channels(sampleEntry entry: [UInt8]) -> Int? {
        guard entry.count >= 26 else { return nil }
        return Int(entry[24]) << 8 | Int(entry[25])
    }

    private static func hex(_ value: UInt8) -> String {
        let text = String(value, radix: 16)
        return value < 16 ? "0" + text : text
    }
}
