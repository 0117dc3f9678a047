/// A JSON value with object keys kept in insertion order, so output is stable and readable.
enum JSON {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    /// A number already formatted (more digits than ``double``'s three).
    case decimal(String)
    case array([JSON])
    case object([(String, JSON)])

    static func number(_ value: some BinaryInteger) -> JSON { .int(Int64(value)) }

    /// Compact serialisation (one line).
    var text: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented serialisation.
    var prettyText: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let value): JSON.writeString(value, to: &out)
        case .int(let value): out += String(value)
        case .double(let value):
            if value.isFinite {
                let rounded = (value * 1000).rounded() / 1000
                out += rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
            } else {
                out += "null"
            }
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .decimal(let text): out += text
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += indent == nil ? "," : ", " }
                value.write(to: &out, indent: nil, level: level + 1)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) } else if index > 0 { out += " " }
                JSON.writeString(key, to: &out)
                out += ": "
                value.write(to: &out, indent: indent, level: level + 1)
            }
            if let indent, !members.isEmpty { out += "\n" + String(repeating: indent, count: level) }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
