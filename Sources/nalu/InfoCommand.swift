import ArgumentParser
import NALU

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
        var summary = StreamSummary(codec: reader.codec)
        var splitter = splitter
        func count(_ unit: AccessUnitSummary) {
            summary.accessUnits += 1
            if let keyframe = unit.keyframe {
                summary.keyframes += 1
                summary.keyframeClasses[keyframe.name, default: 0] += 1
            }
            if let type = unit.pictureType { summary.pictureTypes[type.rawValue, default: 0] += 1 }
        }
        try reader.forEachNALUnit { unit in
            let step = try splitter.push(unit)
            summary.nalUnits += 1
            summary.nalTypeCounts[Int(step.header.typeNumber) & 63] += 1
            summary.bytes = unit.offset + Int64(unit.count)
            if let completed = step.completed { count(completed) }
        }
        if let last = splitter.finish() { count(last) }
        summary.leadingGarbageBytes = reader.leadingGarbageBytes
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
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
