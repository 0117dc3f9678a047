import NALUMP4

/// How `nalu info` lists an MP4/MOV file's tracks and location (``MovieTrackSummary``).
extension StreamInfoReport {
    /// `tracks`: one object per track (`track_id`, `kind`, `handler`, `sample_entry`, `codec`,
    /// `language`, `timescale`, `duration_seconds`, `samples`; audio `sample_rate`, `channels`;
    /// timecode `timecode`, `drop_frame`), and `location` (ISO 6709, as ffprobe's tag).
    static func tracksJSON(_ tracks: [MovieTrackSummary]?, metadata: MP4MovieMetadata?) -> [(String, JSONValue)] {
        guard let tracks else { return [] }
        var members: [(String, JSONValue)] = [("tracks", .array(tracks.map { track in
            var fields: [(String, JSONValue)] = [
                ("track_id", .number(Int(track.trackID))),
                ("kind", .string(track.kind)),
                ("handler", .string(track.handler)),
                ("sample_entry", track.sampleEntry.map { .string($0) } ?? .null),
                ("codec", track.codec.map { .string($0) } ?? .null),
                ("language", track.language.map { .string($0) } ?? .null),
                ("timescale", .number(Int(track.timescale))),
                ("duration_seconds", track.durationSeconds.map { .double($0) } ?? .null),
                ("samples", .number(track.samples)),
            ]
            if track.kind == "audio" {
                fields.append(("sample_rate", track.sampleRate.map { .number($0) } ?? .null))
                fields.append(("channels", track.channels.map { .number($0) } ?? .null))
            }
            if track.kind == "timecode" {
                fields.append(("timecode", track.timecodeStart.map { .string($0) } ?? .null))
                fields.append(("drop_frame", track.dropFrame.map { .bool($0) } ?? .null))
            }
            return .object(fields)
        }))]
        if let metadata {
            members.append(("location", metadata.location.map { .string($0) } ?? .null))
        }
        return members
    }

    /// One `tracks:` line per track when the movie has more than the video track (the `track:`
    /// line describes that one), and `location:` when there is one.
    static func trackLines(_ tracks: [MovieTrackSummary]?, metadata: MP4MovieMetadata?) -> [(String, String)] {
        guard let tracks else { return [] }
        var lines: [(String, String)] = tracks.count < 2 ? [] : tracks.map { track in
            var parts = ["\(track.trackID) \(track.kind)", track.codec ?? track.sampleEntry ?? "?"]
            if let rate = track.sampleRate { parts.append("\(rate) Hz") }
            if let channels = track.channels { parts.append("\(channels) channel\(channels == 1 ? "" : "s")") }
            if let start = track.timecodeStart { parts.append("starts \(start)" + (track.dropFrame == true ? " (drop frame)" : "")) }
            if let language = track.language { parts.append(language) }
            parts.append("\(track.samples) samples")
            if let seconds = track.durationSeconds { parts.append("\(formatSeconds(seconds)) s") }
            return ("tracks", parts.joined(separator: ", "))
        }
        if let metadata, let location = metadata.location { lines.append(("location", location)) }
        return lines
    }
}
