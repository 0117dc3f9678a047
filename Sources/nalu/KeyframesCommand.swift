import ArgumentParser
import NALU
import NALUMedia

/// `nalu keyframes`: where decoding can start.
struct Keyframes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyframes",
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
        let source = try inputOptions.openSource()
        let mp4 = source.container.isMP4
        let ts = source.container.isTransportStream
        let out = try StandardOutput()
        defer { try? out.flush() }
        if !json { try out.line(mp4 ? "   index      offset  class     type         pts  sync" : ts ? "   index      offset  class     type         pts" : "   index      offset  class     type") }
        try source.forEachAccessUnit { access in
            let unit = access.summary
            guard let keyframe = unit.keyframe else { return }
            // MP4/MOV input: each keyframe also shows its sample's presentation time (in the
            // track's timescale, before any edit list) and whether the file marks it as a sync sample.
            let sample = access.sample
            if json {
                var members: [(String, JSON)] = [
                    ("index", .number(unit.index)), ("offset", .number(unit.offset)),
                    ("class", .string(keyframe.name)),
                    ("picture_type", unit.pictureType.map { .string($0.rawValue) } ?? .null),
                ]
                if mp4 {
                    members.append(("pts", sample.map { JSON.number($0.pts) } ?? .null))
                    members.append(("sync_sample", sample.map { JSON.bool($0.isSync) } ?? .null))
                }
                // MPEG-TS input: the 90 kHz PTS/DTS of the PES packet the access unit starts in.
                if ts {
                    members.append(("pts", access.timestamps?.presentation.map { JSON.number(Int($0)) } ?? .null))
                    members.append(("dts", access.timestamps?.effectiveDecoding.map { JSON.number(Int($0)) } ?? .null))
                }
                if case .recoveryPoint(let count) = keyframe { members.append(("recovery_count", .number(count))) }
                try out.line(JSON.object(members).text)
            } else {
                var line = pad(String(unit.index), 8) + "  " + pad(String(unit.offset), 10) + "  " + keyframe.name.padding(8) + "  "
                if mp4 {
                    line += (unit.pictureType?.rawValue ?? "-").padding(4) + pad(sample.map { String($0.pts) } ?? "-", 8) + "  "
                        + (sample.map { $0.isSync ? "yes" : "no" } ?? "-")
                } else if ts {
                    line += (unit.pictureType?.rawValue ?? "-").padding(4) + pad(access.timestamps?.presentation.map { String($0) } ?? "-", 8)
                } else {
                    line += unit.pictureType?.rawValue ?? "-"
                }
                if case .recoveryPoint(let count) = keyframe { line += "  (recovery count \(count))" }
                try out.line(line)
            }
        }
    }
}
