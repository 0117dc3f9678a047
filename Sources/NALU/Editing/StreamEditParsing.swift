/// Reading the edits of ``StreamEditOptions`` from text, as `nalu edit` takes them: each parser
/// throws ``NALUError/Code/invalidValue`` naming the option (`--sar`, `--level`, `--crop`,
/// `--sei`, `--color-primaries`, …) as the error's field, and what is wrong as its detail.
extension ParameterSetEdits {
    /// A sample aspect ratio `N:D` (or `N/D`), each side 1...65535 (ITU-T H.264/H.265 Table E-1,
    /// `sar_width`/`sar_height`): `1:1`, `4:3`, `40:33`.
    public static func sampleAspectRatio(parsing text: String) throws(NALUError) -> Rational {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "/" }).map { Int64($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], width > 0, height > 0,
              width <= 65535, height <= 65535 else {
            throw NALUError(.invalidValue, field: "--sar", detail: "\"\(text)\" is not N:D with N and D in 1...65535")
        }
        return Rational(width, height)
    }
}

extension ParameterSetEdits.Level {
    /// A level as ``init(_:)`` reads it (`3`, `3.1`, `1b`), or an error naming `--level`.
    public init(parsing text: String) throws(NALUError) {
        guard let level = Self(text) else { throw NALUError(.invalidValue, field: "--level", detail: "\"\(text)\" is not a level") }
        self = level
    }
}

extension ParameterSetEdits.Crop {
    /// A cropping window `L,R,T,B`: four non-negative numbers of luma samples from the coded
    /// picture's left, right, top and bottom edges (H.264 `frame_crop_*_offset` × the crop unit,
    /// H.265 `conf_win_*_offset` × the crop unit, 7.4.2.1.1 / 7.4.3.2.1).
    public init(parsing text: String) throws(NALUError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 4, let l = parts[0], let r = parts[1], let t = parts[2], let b = parts[3],
              l >= 0, r >= 0, t >= 0, b >= 0 else {
            throw NALUError(.invalidValue, field: "--crop", detail: "\"\(text)\" is not four non-negative numbers L,R,T,B")
        }
        self.init(left: l, right: r, top: t, bottom: b)
    }
}

extension SEIEdit {
    /// `strip` (every SEI NAL unit), `strip=TYPES` or `keep=TYPES`: `payloadType` numbers or
    /// Annex D syntax structure names (`user_data_unregistered`, `recovery_point`, …),
    /// comma-separated; at least one.
    public init(parsing text: String) throws(NALUError) {
        if text == "strip" {
            self = .stripAll
            return
        }
        guard text.hasPrefix("strip=") || text.hasPrefix("keep=") else {
            throw NALUError(.invalidValue, field: "--sei", detail: "\"\(text)\" is not strip, strip=TYPES or keep=TYPES")
        }
        // What follows the first "=" (may be empty: `keep=`).
        let list = text.drop(while: { $0 != "=" }).dropFirst()
        var types = Set<Int>()
        for name in list.split(separator: ",") {
            guard let type = SEIPayloadNames.payloadType(String(name)) else {
                throw NALUError(.invalidValue, field: "--sei", detail: "unknown SEI payload type \"\(name)\"")
            }
            types.insert(type)
        }
        guard !types.isEmpty else {
            throw NALUError(.invalidValue, field: "--sei", detail: "\"\(text)\" names no payload types after \"=\"")
        }
        self = text.hasPrefix("strip=") ? .strip(types) : .keep(types)
    }

    /// The first payload type names in alphabetical order, as examples of what ``init(parsing:)`` reads.
    public static func payloadTypeNames(first count: Int) -> [String] { Array(SEIPayloadNames.types.keys.sorted().prefix(count)) }
}

extension ColourNames {
    /// A colour code point given as a number 0...255 or as the name `names` (``primaries(_:)``,
    /// ``transfer(_:)``, ``space(_:)``) gives it (``codePoint(named:in:)``); an error naming
    /// `field` otherwise.
    public static func codePoint(parsing text: String, in names: (Int) -> String?, field: String) throws(NALUError) -> Int {
        if let number = Int(text) {
            guard (0...255).contains(number) else { throw NALUError(.invalidValue, field: field, detail: "\(number) is not a code point (0...255)") }
            return number
        }
        if let match = codePoint(named: text, in: names) { return match }
        throw NALUError(.invalidValue, field: field, detail: "unknown value \"\(text)\"")
    }
}
