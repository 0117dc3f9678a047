public import NALU
public import NALUMP4
import NALUTS

/// What `nalu info` prints about a stream: its ``StreamSummary`` (one pass over the input), the
/// MP4/MOV container's movie metadata and tracks, or the transport stream's programs, rendered
/// as text (one screen) or as one JSON object whose keys follow ffprobe's where ffprobe has them.
///
/// ```swift
/// let report = try StreamInfoReport(source: try MediaSource(path: "clip.mp4"))
/// print(report.json.prettyText)
/// ```
public struct StreamInfoReport {
    /// The stream's summary.
    public var summary: StreamSummary
    /// The input's framing.
    public var format: StreamFormat
    /// The NAL length size of length-prefixed and MP4 input.
    public var lengthSize: Int?
    /// MP4/MOV input: the video track's display rotation, creation times and location.
    public var metadata: MP4MovieMetadata?
    /// MP4/MOV input: every track.
    public var tracks: [MovieTrackSummary]?

    /// Reads the whole stream once (``StreamSummary/scan(_:)``), then the container's metadata
    /// and track list (left out when they cannot be read: the summary still stands).
    /// - Throws: ``NALU/NALUError`` from reading the stream.
    public init(source: MediaSource) throws(NALUError) {
        summary = try StreamSummary.scan(source)
        format = source.container.framing
        lengthSize = source.lengthSize
        metadata = (try? source.movieMetadata()) ?? nil
        tracks = (try? source.trackSummaries()) ?? nil
    }

    /// One JSON object: the container (`container`, with the movie metadata and `tracks`, or the
    /// transport stream's programs) first, then the stream's members.
    public var json: JSONValue {
        var object = summary.json(format: format, lengthSize: lengthSize)
        if let container = summary.container, case .object(var members) = object {
            var containerJSON = container.json
            if case .object(var fields) = containerJSON {
                fields += Self.metadataJSON(metadata)
                fields += Self.tracksJSON(tracks, metadata: metadata)
                containerJSON = .object(fields)
            }
            members.insert(("container", containerJSON), at: 0)
            object = .object(members)
        }
        if let transport = summary.transportStreamJSON, case .object(var members) = object {
            members.insert(("container", transport), at: 0)
            object = .object(members)
        }
        return object
    }

    /// One screen of `name: value` lines.
    public var text: String {
        let metadataText = (Self.metadataLines(metadata) + Self.trackLines(tracks, metadata: metadata))
            .map { ($0.0 + ":").padding(15) + $0.1 + "\n" }.joined()
        return (summary.container.map { $0.text + metadataText } ?? summary.transportStreamText ?? "")
            + summary.text(format: format, lengthSize: lengthSize)
    }

    /// ffprobe's `rotation` side data of the video track (degrees, counter-clockwise: −90 for a
    /// 90° clockwise display matrix) and its `creation_time` tags: the movie's (`mvhd`, the
    /// format tag) and the video track's (`mdhd`, the stream tag), ISO 8601 UTC with microseconds.
    static func metadataJSON(_ metadata: MP4MovieMetadata?) -> [(String, JSONValue)] {
        guard let metadata else { return [] }
        return [
            ("rotation", metadata.video.rotation.map { .number($0) } ?? (metadata.video.matrix == MP4TrackMetadata.unityMatrix ? .number(0) : .null)),
            ("display_matrix", .array(metadata.video.matrix.map { .number(Int($0)) })),
            ("creation_time", MP4MovieMetadata.iso8601(metadata.creationTime).map { .string($0) } ?? .null),
            ("track_creation_time", MP4MovieMetadata.iso8601(metadata.video.mediaCreationTime).map { .string($0) } ?? .null),
        ]
    }

    static func metadataLines(_ metadata: MP4MovieMetadata?) -> [(String, String)] {
        guard let metadata else { return [] }
        var lines: [(String, String)] = []
        if let rotation = metadata.video.rotation {
            lines.append(("rotation", "\(rotation) (display matrix)"))
        } else if metadata.video.matrix != MP4TrackMetadata.unityMatrix {
            lines.append(("matrix", metadata.video.matrix.map(String.init).joined(separator: " ")))
        }
        if let created = MP4MovieMetadata.iso8601(metadata.creationTime) { lines.append(("creation_time", created)) }
        return lines
    }
}

/// How `nalu info` prints an MP4/MOV file's container and video track.
extension ContainerSummary {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("format", .string(name == "QuickTime" ? "mov" : "mp4")),
            ("major_brand", brand.map { .string($0) } ?? .null),
            ("track_id", .number(Int(trackID))),
            ("sample_entry", .string(sampleEntry)),
            ("timescale", .number(Int(timescale))),
            ("duration", duration.map { .number(Int(clamping: $0)) } ?? .null),
            ("duration_seconds", seconds.map { .double($0) } ?? .null),
            ("samples", .number(samples)),
            ("fragmented", .bool(fragmented)),
        ]
        members.append(("edit_list", .array(editList.map { edit in
            .object([("segment_duration", .number(Int(clamping: edit.segmentDuration))), ("media_time", .number(Int(clamping: edit.mediaTime))),
                     ("media_rate", .number(Int(edit.mediaRateInteger)))])
        })))
        if let frames = frameDurations {
            members.append(("variable_frame_rate", .bool(frames.isVariable)))
            if let rate = frames.averageRate {
                members.append(("average_frame_rate", .string("\(rate.numerator)/\(rate.denominator)")))
                members.append(("average_fps", .double(rate.doubleValue)))
            }
            members.append(("min_frame_duration", .number(Int(frames.minimum))))
            members.append(("max_frame_duration", .number(Int(frames.maximum))))
        }
        members += colourBoxesJSON
        return .object(members)
    }

    var text: String {
        var lines: [(String, String)] = []
        var container = name + (brand.map { " (\($0.withoutTrailingSpaces))" } ?? "")
        if fragmented { container += ", fragmented" }
        lines.append(("container", container))
        lines.append(("track", "\(trackID), \(sampleEntry), \(samples) samples"))
        lines.append(("timescale", "\(timescale)"))
        lines.append(("duration", duration.map { "\($0) (\(MP4Duration.secondsText($0, timescale: max(1, timescale)) ?? "?") s)" } ?? "overflow (the sample durations pass 2^64)"))
        for edit in editList {
            let start = edit.mediaTime < 0 ? "empty" : "from \(edit.mediaTime)"
            lines.append(("edit", "\(start), \(edit.segmentDuration) at movie timescale \(movieTimescale)"))
        }
        if let frames = frameDurations {
            let scale = Double(max(1, frames.timescale))
            let average = frames.averageRate.map { "\(formatFPS($0.doubleValue)) fps average" } ?? "no average"
            let spread = frames.isVariable
                ? "variable: \(average), frame durations \(frames.minimum)–\(frames.maximum) (\(formatSeconds(Double(frames.minimum) / scale * 1000))–\(formatSeconds(Double(frames.maximum) / scale * 1000)) ms)"
                : "constant: \(average), frame duration \(frames.minimum) (\(formatSeconds(Double(frames.minimum) / scale * 1000)) ms)"
            lines.append(("frame timing", spread))
        }
        lines += colourBoxesLines
        return lines.map { ($0.0 + ":").padding(15) + $0.1 }.joined(separator: "\n") + "\n"
    }
}

extension String {
    var withoutTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// "1.5", "0.667", "2".
func formatSeconds(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}

/// How `nalu info` prints a stream summary.
extension StreamSummary {
    func json(format: StreamFormat, lengthSize: Int?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("format", .string(format.rawValue)),
            ("codec", .string(codec.rawValue)),
        ]
        if let lengthSize { members.append(("length_size", .number(lengthSize))) }
        if let description {
            members += [
                ("profile", .string(description.profileName)),
                ("profile_idc", .number(description.profileIdc)),
                ("level", .string(description.levelName)),
                ("level_idc", .number(description.levelIdc)),
            ]
            if let tier = description.tierName { members.append(("tier", .string(tier))) }
            members += [
                ("width", .number(description.width)),
                ("height", .number(description.height)),
                ("chroma_format_idc", .number(description.chromaFormatIdc)),
                ("chroma_format", .string(description.chromaFormatName)),
                ("bit_depth_luma", .number(description.bitDepthLuma)),
                ("bit_depth_chroma", .number(description.bitDepthChroma)),
                ("interlaced", .bool(description.interlaced)),
            ]
            if let rate = description.frameRate {
                members.append(("frame_rate", .string("\(rate.numerator)/\(rate.denominator)")))
                members.append(("fps", .double(rate.doubleValue)))
            } else {
                members.append(("frame_rate", .null))
            }
            members += signalJSON()
        } else {
            for key in ["profile", "profile_idc", "level_idc", "width", "height", "chroma_format_idc", "bit_depth_luma", "bit_depth_chroma"] {
                members.append((key, .null))
            }
        }
        let counts: [(String, JSONValue)] = nalTypeCounts.enumerated()
            .filter { $0.element > 0 }
            .map { (String($0.offset), .number($0.element)) }
        members += [
            ("nal_units", .number(nalUnits)),
            ("nal_type_counts", .object(counts)),
            ("access_units", .number(accessUnits)),
            ("keyframes", .number(keyframes)),
            ("keyframe_classes", .object(keyframeClasses.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })),
            ("picture_types", .object(pictureTypes.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })),
            ("bytes", .number(bytes)),
        ]
        if leadingGarbageBytes > 0 { members.append(("leading_garbage_bytes", .number(leadingGarbageBytes))) }
        return .object(members)
    }

    func text(format: StreamFormat, lengthSize: Int?) -> String {
        var lines: [(String, String)] = []
        lines.append(("format", format == .annexB ? "Annex-B" : "length-prefixed (\(lengthSize ?? 4)-byte lengths)"))
        lines.append(("codec", codec == .h264 ? "H.264/AVC" : "H.265/HEVC"))
        if let description {
            lines.append(("profile", "\(description.profileName) (profile_idc \(description.profileIdc))"))
            var level = "\(description.levelName) (level_idc \(description.levelIdc))"
            if let tier = description.tierName { level += ", \(tier) tier" }
            lines.append(("level", level))
            lines.append(("resolution", "\(description.width)x\(description.height)" + (description.interlaced ? " (field coding allowed)" : "")))
            lines.append(("chroma format", "\(description.chromaFormatName) (chroma_format_idc \(description.chromaFormatIdc))"))
            lines.append(("bit depth", description.bitDepthLuma == description.bitDepthChroma
                          ? "\(description.bitDepthLuma)" : "\(description.bitDepthLuma) luma, \(description.bitDepthChroma) chroma"))
            if let rate = description.frameRate {
                lines.append(("frame rate", "\(formatFPS(rate.doubleValue)) fps (\(rate.numerator)/\(rate.denominator), from the VUI)"))
            } else {
                lines.append(("frame rate", "not in the VUI"))
            }
            lines += signalLines()
        } else {
            lines.append(("parameters", "no sequence parameter set in the stream"))
        }
        var pictures = "\(accessUnits)"
        let types = ["I", "P", "B"].compactMap { type in pictureTypes[type].map { "\($0) \(type)" } }
        if !types.isEmpty { pictures += " (" + types.joined(separator: ", ") + ")" }
        lines.append(("access units", pictures))
        var keys = "\(keyframes)"
        if !keyframeClasses.isEmpty {
            keys += " (" + keyframeClasses.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
        }
        lines.append(("keyframes", keys))
        lines.append(("bytes", "\(bytes)"))
        if leadingGarbageBytes > 0 { lines.append(("garbage", "\(leadingGarbageBytes) bytes before the first start code")) }
        lines.append(("NAL units", "\(nalUnits)"))
        var text = lines.map { ($0.0 + ":").padding(15) + $0.1 }.joined(separator: "\n") + "\n"
        for (type, count) in nalTypeCounts.enumerated() where count > 0 {
            text += "  " + pad(String(type), 3) + "  " + typeName(type).padding(16) + pad(String(count), 10) + "\n"
        }
        return text
    }
}

/// "29.97", "30", "59.94".
func formatFPS(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
}
