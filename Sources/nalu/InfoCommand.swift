import ArgumentParser
import NALU
import NALUMP4

/// `nalu info`: what a stream is, in one screen or one JSON object.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarise a stream: format, codec, profile, level, size, chroma, bit depth, frame rate, NAL and access-unit counts.",
        discussion: "Reads the whole stream once, in constant memory; parameter sets are taken from the first SPS seen (and its VPS/PPS)."
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        if MP4Input.isMP4(inputOptions.input) {
            try runMP4()
            return
        }
        let record = try inputOptions.record()
        var reader = try inputOptions.openReader(record: record)
        let summary = try StreamSummary.scan(&reader, splitter: try inputOptions.splitter(for: reader.codec, record: record))
        let out = try StandardOutput()
        if json {
            try out.line(summary.json(format: reader.format, lengthSize: reader.lengthSize).prettyText)
        } else {
            try out.write(summary.text(format: reader.format, lengthSize: reader.lengthSize))
        }
        try out.flush()
    }

    /// MP4/MOV input: the video track's NAL units, and the container's facts.
    private func runMP4() throws {
        let reader = try MP4Input.open(inputOptions.input)
        var splitter = AccessUnitSplitter(codec: reader.track.codec)
        for unit in reader.track.decoderConfiguration.parameterSets { try splitter.addParameterSet(unit) }
        var totals = MP4SampleTotals()
        var summary = try StreamSummary.scan(codec: reader.track.codec, splitter: splitter) { body in
            totals = try MP4SampleTotals.of(reader)
            try reader.forEachNALUnit(body)
        }
        summary.bytes = reader.source.size
        let container = ContainerSummary(reader: reader, samples: totals.samples, sampleDuration: totals.duration)
        let out = try StandardOutput()
        if json {
            guard case .object(var members) = summary.json(format: .lengthPrefixed, lengthSize: reader.track.lengthSize) else { return }
            members.insert(("container", container.json), at: 0)
            try out.line(JSON.object(members).prettyText)
        } else {
            try out.write(container.text + summary.text(format: .lengthPrefixed, lengthSize: reader.track.lengthSize))
        }
        try out.flush()
    }
}

/// What `nalu info` says about an MP4/MOV file's container and video track.
struct ContainerSummary {
    var name: String
    var brand: String?
    var trackID: UInt32
    var sampleEntry: String
    var timescale: UInt32
    /// `nil` when the samples' durations overflow 64 bits.
    var duration: UInt64?
    var samples: Int
    var fragmented: Bool
    var editList: [MP4EditListEntry]
    var movieTimescale: UInt32

    init(reader: MP4VideoTrackReader<some RandomAccessByteSource>, samples: Int, sampleDuration: UInt64?) {
        let track = reader.track
        name = reader.fileType?.isQuickTime == true ? "QuickTime" : "MP4"
        brand = reader.fileType.map { "\($0.majorBrand)" }
        trackID = track.trackID
        sampleEntry = track.sampleEntryType.rawValue
        timescale = track.timescale
        // Fragmented files keep their samples' durations in the fragments.
        duration = track.duration > 0 ? track.duration : sampleDuration
        self.samples = samples
        fragmented = track.isFragmented
        editList = track.editList
        movieTimescale = track.movieTimescale
    }

    var seconds: Double? { duration.map { Double($0) / Double(max(1, timescale)) } }

    var json: JSON {
        var members: [(String, JSON)] = [
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
        return .object(members)
    }

    var text: String {
        var lines: [(String, String)] = []
        var container = name + (brand.map { " (\($0.trimmingTrailingSpaces))" } ?? "")
        if fragmented { container += ", fragmented" }
        lines.append(("container", container))
        lines.append(("track", "\(trackID), \(sampleEntry), \(samples) samples"))
        lines.append(("timescale", "\(timescale)"))
        lines.append(("duration", duration.map { "\($0) (\(MP4Duration.secondsText($0, timescale: max(1, timescale)) ?? "?") s)" } ?? "overflow (the sample durations pass 2^64)"))
        for edit in editList {
            let start = edit.mediaTime < 0 ? "empty" : "from \(edit.mediaTime)"
            lines.append(("edit", "\(start), \(edit.segmentDuration) at movie timescale \(movieTimescale)"))
        }
        return lines.map { ($0.0 + ":").padding(15) + $0.1 }.joined(separator: "\n") + "\n"
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// Everything `nalu info` reports, gathered in one pass.
struct StreamSummary {
    var codec: Codec
    var description: StreamDescription?
    var nalUnits = 0
    var nalTypeCounts = [Int](repeating: 0, count: 64)
    var accessUnits = 0
    var keyframes = 0
    var keyframeClasses: [String: Int] = [:]
    var pictureTypes: [String: Int] = [:]
    var bytes: Int64 = 0
    var leadingGarbageBytes: Int64 = 0

    static func scan(_ reader: inout ElementaryStreamReader<some ByteSource>, splitter: AccessUnitSplitter) throws -> StreamSummary {
        var summary = try scan(codec: reader.codec, splitter: splitter) { body in try reader.forEachNALUnit(body) }
        summary.leadingGarbageBytes = reader.leadingGarbageBytes
        return summary
    }

    /// Scans the NAL units `forEach` hands to its closure.
    static func scan(codec: Codec, splitter: AccessUnitSplitter,
                     _ forEach: ((NALUnitView) throws -> Void) throws -> Void) throws -> StreamSummary {
        var summary = StreamSummary(codec: codec)
        var splitter = splitter
        func count(_ unit: AccessUnitSummary) {
            summary.accessUnits += 1
            if let keyframe = unit.keyframe {
                summary.keyframes += 1
                summary.keyframeClasses[keyframe.name, default: 0] += 1
            }
            if let type = unit.pictureType { summary.pictureTypes[type.rawValue, default: 0] += 1 }
        }
        try forEach { unit in
            let step = try splitter.push(unit)
            summary.nalUnits += 1
            summary.nalTypeCounts[Int(step.header.typeNumber) & 63] += 1
            summary.bytes = unit.offset + Int64(unit.count)
            if let completed = step.completed { count(completed) }
        }
        if let last = splitter.finish() { count(last) }
        summary.description = splitter.parameterSets.streamDescription
        return summary
    }

    func typeName(_ type: Int) -> String {
        codec == .h264 ? AVCNALUnitType(rawValue: UInt8(type)).name : HEVCNALUnitType(rawValue: UInt8(type)).name
    }

    func json(format: StreamFormat, lengthSize: Int?) -> JSON {
        var members: [(String, JSON)] = [
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
        } else {
            for key in ["profile", "profile_idc", "level_idc", "width", "height", "chroma_format_idc", "bit_depth_luma", "bit_depth_chroma"] {
                members.append((key, .null))
            }
        }
        let counts: [(String, JSON)] = nalTypeCounts.enumerated()
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
