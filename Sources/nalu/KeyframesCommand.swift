import ArgumentParser
import NALU

/// `nalu keyframes`: where decoding can start.
struct Keyframes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List keyframe access units: index, byte offset, class (idr, cra, bla, recovery) and picture type.",
        discussion: """
        Access units are found by the specs' rules (H.264 7.4.1.2.3, H.265 7.4.2.4.4); their index
        is in decoding order. Offsets are those of the first byte of the access unit's first start
        code or length prefix. recovery is an access unit with a recovery point SEI message: an
        open-GOP I picture (count 0) or the start of gradual decoding refresh (count > 0).
        """
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print JSON Lines: one object per keyframe with index, offset, class, picture_type.")
    var json = false

    func run() throws {
        let record = try inputOptions.record()
        var reader = try inputOptions.openReader(record: record)
        var splitter = try inputOptions.splitter(for: reader.codec, record: record)
        let out = try StandardOutput()
        defer { try? out.flush() }
        if !json { try out.line("   index      offset  class     type") }
        func emit(_ unit: AccessUnitSummary) throws {
            guard let keyframe = unit.keyframe else { return }
            if json {
                var members: [(String, JSON)] = [
                    ("index", .number(unit.index)), ("offset", .number(unit.offset)),
                    ("class", .string(keyframe.name)),
                    ("picture_type", unit.pictureType.map { .string($0.rawValue) } ?? .null),
                ]
                if case .recoveryPoint(let count) = keyframe { members.append(("recovery_count", .number(count))) }
                try out.line(JSON.object(members).text)
            } else {
                var line = pad(String(unit.index), 8) + "  " + pad(String(unit.offset), 10) + "  "
                    + keyframe.name.padding(8) + "  " + (unit.pictureType?.rawValue ?? "-")
                if case .recoveryPoint(let count) = keyframe { line += "  (recovery count \(count))" }
                try out.line(line)
            }
        }
        try reader.forEachNALUnit { unit in
            if let completed = try splitter.push(unit).completed { try emit(completed) }
        }
        if let last = splitter.finish() { try emit(last) }
    }
}
