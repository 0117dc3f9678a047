// The edit option value parsers (NALU: SEIEdit(parsing:), ParameterSetEdits.Crop(parsing:),
// ParameterSetEdits.Level(parsing:), ParameterSetEdits.sampleAspectRatio(parsing:),
// ColourNames.codePoint(parsing:in:field:)) on untrusted text, as `nalu edit` hands them its
// option values. Properties: nothing traps; a refusal is `invalidValue` naming the option; a
// value read is written back (L,R,T,B; N:D; the level's name; strip=/keep= with the payload type
// numbers; the code point's number) and reads back the same.
import NALU

enum EditOptionsHarness {
    static func run(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let crop = try parse("--crop", { () throws(NALUError) in try ParameterSetEdits.Crop(parsing: text) }) {
            let again = try parse("--crop", { () throws(NALUError) in
                try ParameterSetEdits.Crop(parsing: "\(crop.left),\(crop.right),\(crop.top),\(crop.bottom)")
            })
            try fuzzCheck(again == crop, "the crop \(crop) does not read back")
        }
        if let ratio = try parse("--sar", { () throws(NALUError) in try ParameterSetEdits.sampleAspectRatio(parsing: text) }) {
            try fuzzCheck((1...65535).contains(ratio.numerator) && (1...65535).contains(ratio.denominator), "SAR \(ratio) out of range")
            let again = try parse("--sar", { () throws(NALUError) in try ParameterSetEdits.sampleAspectRatio(parsing: "\(ratio.numerator):\(ratio.denominator)") })
            try fuzzCheck(again == ratio, "the SAR \(ratio) does not read back")
        }
        if let level = try parse("--level", { () throws(NALUError) in try ParameterSetEdits.Level(parsing: text) }) {
            let again = try parse("--level", { () throws(NALUError) in try ParameterSetEdits.Level(parsing: level.description) })
            try fuzzCheck(again == level, "the level \(level) does not read back")
        }
        if let edit = try parse("--sei", { () throws(NALUError) in try SEIEdit(parsing: text) }) {
            let written: String
            switch edit {
            case .keepAll: throw FuzzPropertyViolation(description: "--sei read as keep-all")
            case .stripAll: written = "strip"
            case .strip(let types): written = "strip=" + types.sorted().map(String.init).joined(separator: ",")
            case .keep(let types): written = "keep=" + types.sorted().map(String.init).joined(separator: ",")
            }
            let again = try parse("--sei", { () throws(NALUError) in try SEIEdit(parsing: written) })
            try fuzzCheck(again == edit, "the SEI edit \(written) does not read back")
        }
        if let code = try parse("--color-primaries", { () throws(NALUError) in
            try ColourNames.codePoint(parsing: text, in: ColourNames.primaries, field: "--color-primaries")
        }) {
            try fuzzCheck((0...255).contains(code), "code point \(code) out of range")
        }
    }

    /// `body`'s value, or `nil` for a refusal that names `field` (any other error breaks a property).
    private static func parse<T>(_ field: String, _ body: () throws(NALUError) -> T) throws(FuzzPropertyViolation) -> T? {
        do {
            return try body()
        } catch {
            try fuzzCheck(error.field == field && error.code == .invalidValue, "\(field): refused with \(error)")
            return nil
        }
    }
}
