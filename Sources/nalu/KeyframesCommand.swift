import ArgumentParser
import NALU
import NALUMP4

/// `nalu keyframes`: where decoding can start.
struct Keyframes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List keyframe access units: index, byte offset, class (idr, cra, bla, recovery) and picture type.",
        discussion: """
        Access units are found by the specs' rules (H.264 7.4.1.2.3, H.265 7.4.2.4.4); their index \
        is in decoding order. Offsets are those of the first byte of the access unit's first start \
        code or length prefix. recovery is an access unit with a recovery point SEI message: an \
        open-GOP I picture (count 0) or the start of gradual decoding refresh (count > 0).
        """
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print JSON Lines: one object per keyframe with index, offset, class, picture_type.")
    var json = false

    func run() throws {
        if MP4Input.isMP4(inputOptions.input) {
            try runMP4()
            return
        }
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

    /// MP4/MOV input: offsets are the samples' in the file; each keyframe also shows its
    /// sample's presentation time (in the track's timescale, before any edit list) and whether
    /// the file marks it as a sync sample.
    private func runMP4() throws {
        let reader = try MP4Input.open(inputOptions.input)
        let out = try StandardOutput()
        defer { try? out.flush() }
        if !json { try out.line("   index      offset  class     type         pts  sync") }
        // Constant memory: the reader keeps only the sample each access unit starts at.
        func emit(_ unit: AccessUnitSummary, _ sample: MP4Sample?) throws {
            guard let keyframe = unit.keyframe else { return }
            if json {
                let pts: JSON = sample.map { JSON.number($0.pts) } ?? .null
                let sync: JSON = sample.map { JSON.bool($0.isSync) } ?? .null
                var members: [(String, JSON)] = [
                    ("index", .number(unit.index)), ("offset", .number(unit.offset)),
                    ("class", .string(keyframe.name)),
                    ("picture_type", unit.pictureType.map { .string($0.rawValue) } ?? .null),
                    ("pts", pts), ("sync_sample", sync),
                ]
                if case .recoveryPoint(let count) = keyframe { members.append(("recovery_count", .number(count))) }
                try out.line(JSON.object(members).text)
            } else {
                let type = (unit.pictureType?.rawValue ?? "-").padding(4)
                let pts = pad(sample.map { String($0.pts) } ?? "-", 8)
                let sync = sample.map { $0.isSync ? "yes" : "no" } ?? "-"
                var line = pad(String(unit.index), 8) + "  " + pad(String(unit.offset), 10) + "  "
                line += keyframe.name.padding(8) + "  " + type + pts + "  " + sync
                if case .recoveryPoint(let count) = keyframe { line += "  (recovery count \(count))" }
                try out.line(line)
            }
        }
        try reader.forEachAccessUnit(emit)
    }
}
