// The SPS/VPS writers as the parsers' inverse (issue 16): the first byte picks the codec (bit 0:
// H.265), the rest is an Annex-B stream (or, with no start code, one NAL unit). Every SPS (and
// H.265 VPS) that parses is written back: parsing the output must give an equal value, and
// writing again the same bytes. Then edits drawn from the input (colour, range, SAR, frame rate,
// level, crop) are applied: they either throw a typed error naming the option, or give a set that
// parses, carries the edited values, and writes back to itself. Nothing may trap.
import NALU

enum ParameterSetWriterHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        guard let control = bytes.first else { return }
        let codec: Codec = control & 1 == 1 ? .hevc : .h264
        let body = Array(bytes.dropFirst())
        var units = AnnexB.nalUnits(in: body)
        if units.isEmpty { units = [body[...]] }
        var random = SplitMix(bytes)
        for unit in units.prefix(32) {
            let edits = randomEdits(&random)
            switch codec {
            case .h264: try avc(Array(unit), edits)
            case .hevc: try hevc(Array(unit), edits)
            }
        }
    }

    static func randomEdits(_ random: inout SplitMix) -> ParameterSetEdits {
        var edits = ParameterSetEdits()
        if random.below(2) == 0 { edits.colourPrimaries = random.below(256) }
        if random.below(2) == 0 { edits.transferCharacteristics = random.below(256) }
        if random.below(2) == 0 { edits.matrixCoefficients = random.below(256) }
        if random.below(2) == 0 { edits.fullRange = random.below(2) == 0 }
        if random.below(2) == 0 { edits.sampleAspectRatio = Rational(Int64(random.below(70000)), Int64(random.below(70000))) }
        if random.below(2) == 0 { edits.frameRate = Rational(Int64(random.below(1 << 31)), Int64(random.below(1 << 20))) }
        if random.below(2) == 0 { edits.level = ParameterSetEdits.Level(major: random.below(10), minor: random.below(10), is1b: random.below(8) == 0) }
        if random.below(3) == 0 {
            edits.crop = ParameterSetEdits.Crop(left: random.below(64), right: random.below(64), top: random.below(64), bottom: random.below(64))
        }
        return edits
    }

    static func avc(_ unit: [UInt8], _ edits: ParameterSetEdits) throws(FuzzPropertyViolation) {
        guard (try? AVCNALUnitHeader(unit))?.nalUnitType == .sps, let sps = try? AVCSequenceParameterSet(nalUnit: unit) else { return }
        let written = sps.nalUnit(header: unit[0])
        let again = try? AVCSequenceParameterSet(nalUnit: written)
        try fuzzCheck(again == sps, "H.264 SPS written back parses to \(String(describing: again)), not \(sps)")
        try fuzzCheck(again?.nalUnit(header: unit[0]) == written, "H.264 SPS writes differently the second time")
        let edited: AVCSequenceParameterSet
        do {
            edited = try edits.apply(to: sps)
        } catch {
            try fuzzCheck(error.field.hasPrefix("--"), "edit error names \(error.field), not an option")
            return
        }
        let bytes = edited.nalUnit(header: unit[0])
        guard let parsed = try? AVCSequenceParameterSet(nalUnit: bytes) else {
            throw FuzzPropertyViolation(description: "edited H.264 SPS does not parse: \(bytes)")
        }
        try fuzzCheck(parsed.nalUnit(header: unit[0]) == bytes, "edited H.264 SPS does not write back to itself")
        if let value = edits.colourPrimaries {
            try fuzzCheck(parsed.vuiParameters?.colourPrimaries == value, "colour_primaries not \(value)")
        }
        if let fullRange = edits.fullRange {
            try fuzzCheck(parsed.vuiParameters?.videoFullRangeFlag == fullRange, "video_full_range_flag not \(fullRange)")
        }
        if let crop = edits.crop {
            try fuzzCheck(parsed.width == parsed.codedWidth - crop.left - crop.right, "cropped width \(parsed.width)")
        }
        _ = EditLevelLimits.warnings(for: parsed)
    }

    static func hevc(_ unit: [UInt8], _ edits: ParameterSetEdits) throws(FuzzPropertyViolation) {
        guard let type = (try? HEVCNALUnitHeader(unit))?.nalUnitType, unit.count >= 2 else { return }
        let header = (unit[0], unit[1])
        if type == .vps, let vps = try? HEVCVideoParameterSet(nalUnit: unit) {
            let written = vps.nalUnit(header: header)
            let again = try? HEVCVideoParameterSet(nalUnit: written)
            try fuzzCheck(again == vps, "H.265 VPS written back parses differently")
            try fuzzCheck(again?.nalUnit(header: header) == written, "H.265 VPS writes differently the second time")
            if let edited = try? edits.apply(to: vps) {
                let bytes = edited.nalUnit(header: header)
                try fuzzCheck((try? HEVCVideoParameterSet(nalUnit: bytes)) == edited, "edited H.265 VPS does not parse back")
            }
        }
        guard type == .sps, let sps = try? HEVCSequenceParameterSet(nalUnit: unit) else { return }
        let written = sps.nalUnit(header: header)
        let again = try? HEVCSequenceParameterSet(nalUnit: written)
        try fuzzCheck(again == sps, "H.265 SPS written back parses to \(String(describing: again)), not \(sps)")
        try fuzzCheck(again?.nalUnit(header: header) == written, "H.265 SPS writes differently the second time")
        let edited: HEVCSequenceParameterSet
        do {
            edited = try edits.apply(to: sps)
        } catch {
            try fuzzCheck(error.field.hasPrefix("--"), "edit error names \(error.field), not an option")
            return
        }
        let bytes = edited.nalUnit(header: header)
        guard let parsed = try? HEVCSequenceParameterSet(nalUnit: bytes) else {
            throw FuzzPropertyViolation(description: "edited H.265 SPS does not parse: \(bytes)")
        }
        try fuzzCheck(parsed.nalUnit(header: header) == bytes, "edited H.265 SPS does not write back to itself")
        if let value = edits.transferCharacteristics {
            try fuzzCheck(parsed.vuiParameters?.transferCharacteristics == value, "transfer_characteristics not \(value)")
        }
        if let crop = edits.crop {
            try fuzzCheck(parsed.width == parsed.picWidthInLumaSamples - crop.left - crop.right, "cropped width \(parsed.width)")
        }
        _ = EditLevelLimits.warnings(for: parsed)
    }
}
