/// A JSON value with object keys kept in insertion order, so output is stable and readable: what
/// the reports (``StreamInfoReport``, ``NALUnitListing``, ``KeyframeListing``) render, and what
/// `nalu … --json` prints.
///
/// ```swift
/// let value = JSONValue.object([("codec", .string("h264")), ("width", .number(1920))])
/// print(value.text)   // {"codec": "h264", "width": 1920}
/// ```
public enum JSONValue: Sendable {
    /// A string (escaped when written).
    case string(String)
    /// An integer.
    case int(Int64)
    /// A number written with at most three decimals (`null` when not finite).
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// A number already formatted (more digits than ``double``'s three).
    case decimal(String)
    /// An array, written on one line.
    case array([JSONValue])
    /// An object whose members keep their order.
    case object([(String, JSONValue)])

    /// An integer (clamped to `Int64`).
    public static func number(_ value: some BinaryInteger) -> JSONValue { .int(Int64(clamping: value)) }

    /// Compact serialisation (one line).
    public var text: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented serialisation.
    public var prettyText: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let value): JSONValue.writeString(value, to: &out)
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
                JSONValue.writeString(key, to: &out)
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
