import NALU

/// What `nalu keyframes` prints: one line per keyframe access unit (decoding-order index, byte
/// offset, class `idr`/`cra`/`bla`/`recovery`, picture type), with the sample's presentation time
/// and sync flag for MP4/MOV input and the PES packet's 90 kHz PTS (and DTS in JSON) for MPEG-TS
/// input; as a text table or as JSON Lines.
///
/// ```swift
/// let listing = KeyframeListing(container: source.container, json: true)
/// _ = try source.forEachAccessUnit { unit in if let line = listing.line(for: unit) { print(line) } }
/// ```
public struct KeyframeListing: Sendable {
    private let mp4: Bool
    private let ts: Bool
    /// Whether lines are JSON objects.
    public let json: Bool

    /// A listing for input in `container`, as text or as JSON Lines.
    public init(container: MediaContainer, json: Bool) {
        mp4 = container.isMP4
        ts = container.isTransportStream
        self.json = json
    }

    /// The text table's column header; `nil` for JSON Lines.
    public var header: String? {
        if json { return nil }
        return mp4 ? "   index      offset  class     type         pts  sync" : ts ? "   index      offset  class     type         pts" : "   index      offset  class     type"
    }

    /// The line for `access`, or `nil` when it is not a keyframe.
    public func line(for access: MediaSource.AccessUnit) -> String? {
        let unit = access.summary
        guard let keyframe = unit.keyframe else { return nil }
        // MP4/MOV input: each keyframe also shows its sample's presentation time (in the
        // track's timescale, before any edit list) and whether the file marks it as a sync sample.
        let sample = access.sample
        if json {
            var members: [(String, JSONValue)] = [
                ("index", .number(unit.index)), ("offset", .number(unit.offset)),
                ("class", .string(keyframe.name)),
                ("picture_type", unit.pictureType.map { .string($0.rawValue) } ?? .null),
            ]
            if mp4 {
                members.append(("pts", sample.map { JSONValue.number($0.pts) } ?? .null))
                members.append(("sync_sample", sample.map { JSONValue.bool($0.isSync) } ?? .null))
            }
            // MPEG-TS input: the 90 kHz PTS/DTS of the PES packet the access unit starts in.
            if ts {
                members.append(("pts", access.timestamps?.presentation.map { JSONValue.number(Int($0)) } ?? .null))
                members.append(("dts", access.timestamps?.effectiveDecoding.map { JSONValue.number(Int($0)) } ?? .null))
            }
            if case .recoveryPoint(let count) = keyframe { members.append(("recovery_count", .number(count))) }
            return JSONValue.object(members).text
        }
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
        return line
    }
}
