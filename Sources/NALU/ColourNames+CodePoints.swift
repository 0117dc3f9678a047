extension ColourNames {
    /// The code point 0...255 that `names` (``primaries(_:)``, ``transfer(_:)``, ``space(_:)``)
    /// calls `name` (case-insensitive; `unspecified` and `unknown` are 2), or `nil` when none
    /// does (numbers are not read here).
    public static func codePoint(named name: String, in names: (Int) -> String?) -> Int? {
        let lower = name.lowercased()
        if lower != "unknown", lower != "reserved", let match = (0...255).first(where: { names($0) == lower }) { return match }
        if lower == "unspecified" || lower == "unknown" { return 2 }
        return nil
    }

    /// Every name `names` gives a code point, in code point order (`reserved` and `unknown` left out).
    public static func knownNames(in names: (Int) -> String?) -> [String] {
        (0...255).compactMap { names($0) }.filter { $0 != "reserved" && $0 != "unknown" }
    }
}
