/// The parts of HLS playlists (RFC 8216) and DASH MPDs (ISO/IEC 23009-1) that
/// ``PackageDoctor`` checks, read from their text. Playlists are read line by line (4.1); an
/// MPD with a small scanner of its elements and attributes (no DTD, no namespaces: what
/// packagers write).
struct PackageManifests {
    /// One variant or rendition playlist of a multivariant playlist, or one DASH representation.
    struct Rendition {
        /// The media playlist's URI (HLS) or the representation's id (DASH).
        var name: String
        /// Whether it is video (a variant stream or a video adaptation set) rather than audio.
        var isVideo: Bool
        /// The `CODECS` (HLS) or `@codecs` (DASH) it declares, split at commas.
        var codecs: [String]
        /// The init segment (`EXT-X-MAP`, `@initialization`), if any.
        var initSegment: String?
        var segments: [Segment] = []
        /// `EXT-X-TARGETDURATION` (HLS).
        var targetDuration: Int?
    }

    struct Segment {
        var uri: String
        /// Seconds (`EXTINF`, or `@d` over the timescale).
        var duration: Double
        /// Start on the rendition's timeline in seconds (the sum of the durations before, or `@t`).
        var start: Double
    }

    // MARK: HLS

    /// The attributes of a tag's attribute list (RFC 8216 4.2), quoted strings unquoted.
    static func attributes(_ list: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var key = ""
        var value = ""
        var inKey = true
        var quoted = false
        for character in list {
            if inKey {
                if character == "=" { inKey = false } else if character != "," { key.append(character) }
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                result[key] = value
                key = ""
                value = ""
                inKey = true
            } else {
                value.append(character)
            }
        }
        if !key.isEmpty { result[key] = value }
        return result
    }

    /// The playlist's lines without blanks, trimmed of `\r`.
    static func lines(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// Whether `text` is a multivariant playlist (4.3.4: `EXT-X-STREAM-INF`).
    static func isMultivariant(_ text: String) -> Bool { text.contains("#EXT-X-STREAM-INF") }

    /// The renditions a multivariant playlist lists: each `EXT-X-STREAM-INF` (video, with its
    /// `CODECS`) and each `EXT-X-MEDIA` with a `URI` (audio and others; the codecs are those of
    /// the variants that use its group and are not video).
    static func multivariant(_ text: String) -> [Rendition] {
        var renditions: [Rendition] = []
        var pendingCodecs: [String]?
        var media: [(uri: String, type: String)] = []
        for line in lines(text) {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                let attributes = attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
                pendingCodecs = attributes["CODECS"].map { $0.split(separator: ",").map { String($0).trimmed } } ?? []
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let attributes = attributes(line.dropFirst("#EXT-X-MEDIA:".count))
                if let uri = attributes["URI"] { media.append((uri, attributes["TYPE"] ?? "")) }
            } else if !line.hasPrefix("#"), let codecs = pendingCodecs {
                renditions.append(Rendition(name: String(line).trimmed, isVideo: true, codecs: codecs))
                pendingCodecs = nil
            }
        }
        let audioCodecs = renditions.flatMap(\.codecs).filter { $0.hasPrefix("mp4a") || $0.hasPrefix("ac-3") || $0.hasPrefix("ec-3") }
        for item in media where !renditions.contains(where: { $0.name == item.uri }) {
            renditions.append(Rendition(name: item.uri, isVideo: item.type == "VIDEO",
                                        codecs: item.type == "AUDIO" ? Array(Set(audioCodecs)).sorted() : []))
        }
        return renditions
    }

    /// Reads a media playlist (4.3.2, 4.3.3) into `rendition`: the target duration, the map and
    /// the segments with their durations.
    static func media(_ text: String, into rendition: inout Rendition) {
        var duration: Double?
        var start = 0.0
        for line in lines(text) {
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                rendition.targetDuration = Int(line.dropFirst("#EXT-X-TARGETDURATION:".count).trimmed)
            } else if line.hasPrefix("#EXT-X-MAP:") {
                rendition.initSegment = attributes(line.dropFirst("#EXT-X-MAP:".count))["URI"]
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", omittingEmptySubsequences: false).first ?? ""
                duration = Double(value.trimmed) ?? 0
            } else if !line.hasPrefix("#") {
                let seconds = duration ?? 0
                rendition.segments.append(Segment(uri: String(line).trimmed, duration: seconds, start: start))
                start += seconds
                duration = nil
            }
        }
    }

    // MARK: DASH

    /// One element's start tag: its name and attributes.
    struct Element {
        var name: String
        var attributes: [String: String]
        var closes: Bool
    }

    /// The start and end tags of an XML document in order (comments, declarations skipped).
    static func elements(_ text: String) -> [Element] {
        var result: [Element] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("?") || tag.hasPrefix("!") { continue }
            if tag.hasPrefix("/") {
                result.append(Element(name: String(tag.dropFirst()).trimmed, attributes: [:], closes: true))
                continue
            }
            var body = tag
            let selfClosing = body.hasSuffix("/")
            if selfClosing { body = body.dropLast() }
            let name = body.prefix { !$0.isWhitespace }
            var attributes: [String: String] = [:]
            var scan = body.dropFirst(name.count)
            while let equals = scan.firstIndex(of: "=") {
                let key = scan[..<equals].trimmed
                scan = scan[scan.index(after: equals)...].drop { $0.isWhitespace }
                guard let quote = scan.first, quote == "\"" || quote == "'" else { break }
                scan = scan.dropFirst()
                let value = scan.prefix { $0 != quote }
                attributes[key] = String(value).replacingXMLEntities
                scan = scan.dropFirst(value.count + 1)
            }
            result.append(Element(name: String(name), attributes: attributes, closes: false))
            if selfClosing { result.append(Element(name: String(name), attributes: [:], closes: true)) }
        }
        return result
    }

    /// The representations of an MPD with `SegmentTemplate` and `SegmentTimeline` (5.3.9.4,
    /// 5.3.9.6), their segment files named from the template (`$RepresentationID$`,
    /// `$Number$`/`$Number%0Nd$`, `$Time$`, `$Bandwidth$`).
    static func mpd(_ text: String) -> [Rendition] {
        var renditions: [Rendition] = []
        var adaptation: [String: String] = [:]
        var template: [String: String] = [:]
        var adaptationTemplate: [String: String] = [:]
        var current: (attributes: [String: String], times: [(t: Int64, d: Int64)])?
        // A timeline given once for the adaptation set, shared by its representations.
        var adaptationTimes: [(t: Int64, d: Int64)] = []
        var time: Int64 = 0
        for element in elements(text) {
            switch (element.name, element.closes) {
            case ("AdaptationSet", false):
                adaptation = element.attributes
                adaptationTemplate = [:]
                adaptationTimes = []
            case ("Representation", false):
                current = (element.attributes, adaptationTimes)
                template = adaptationTemplate
                time = 0
            case ("SegmentTemplate", false):
                if current != nil { current?.times = [] }
                if current == nil { adaptationTemplate = element.attributes } else { template.merge(element.attributes) { $1 } }
            case ("S", false):
                let t = element.attributes["t"].flatMap { Int64($0) } ?? time
                let d = element.attributes["d"].flatMap { Int64($0) } ?? 0
                let r = max(0, element.attributes["r"].flatMap { Int($0) } ?? 0)
                for index in 0...min(r, 1_000_000) {
                    let start = t + Int64(index) * d
                    if current != nil { current?.times.append((start, d)) } else { adaptationTimes.append((start, d)) }
                }
                time = t + Int64(r + 1) * d
            case ("Representation", true):
                guard let representation = current else { break }
                current = nil
                let id = representation.attributes["id"] ?? "\(renditions.count)"
                let contentType = adaptation["contentType"] ?? adaptation["mimeType"] ?? representation.attributes["mimeType"] ?? ""
                let codecs = (representation.attributes["codecs"] ?? adaptation["codecs"] ?? "").split(separator: ",").map { String($0).trimmed }
                var rendition = Rendition(name: id, isVideo: contentType.hasPrefix("video"), codecs: codecs)
                let timescale = Double(template["timescale"].flatMap { Int64($0) } ?? 1)
                let bandwidth = representation.attributes["bandwidth"] ?? ""
                rendition.initSegment = template["initialization"].map { substitute($0, id: id, number: 0, time: 0, bandwidth: bandwidth) }
                let startNumber = template["startNumber"].flatMap { Int($0) } ?? 1
                let offset = Double(template["presentationTimeOffset"].flatMap { Int64($0) } ?? 0)
                if let media = template["media"] {
                    for (index, entry) in representation.times.enumerated() {
                        rendition.segments.append(Segment(uri: substitute(media, id: id, number: startNumber + index, time: entry.t, bandwidth: bandwidth),
                                                          duration: Double(entry.d) / timescale, start: (Double(entry.t) - offset) / timescale))
                    }
                }
                renditions.append(rendition)
            default:
                break
            }
        }
        return renditions
    }

    /// A `SegmentTemplate` URL with its identifiers replaced (5.3.9.4.4, Table 16).
    static func substitute(_ template: String, id: String, number: Int, time: Int64, bandwidth: String) -> String {
        var result = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            guard let end = rest.firstIndex(of: "$") else { result += "$" + rest; return result }
            let identifier = rest[..<end]
            rest = rest[rest.index(after: end)...]
            let name = identifier.prefix { $0 != "%" }
            let format = identifier.dropFirst(name.count)
            var value: String
            switch name {
            case "": value = "$"
            case "RepresentationID": value = id
            case "Number": value = String(number)
            case "Time": value = String(time)
            case "Bandwidth": value = bandwidth
            default: value = "$" + identifier + "$"
            }
            if format.hasPrefix("%0"), format.hasSuffix("d"), let width = Int(format.dropFirst(2).dropLast()), value.count < width {
                value = String(repeating: "0", count: width - value.count) + value
            }
            result += value
        }
        return result + rest
    }
}

extension StringProtocol {
    /// Without leading and trailing white space.
    var trimmed: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// The five predefined XML entities replaced (XML 1.0 4.6).
    var replacingXMLEntities: String {
        guard contains("&") else { return String(self) }
        var text = ""
        var rest = Substring(self)
        while let amp = rest.firstIndex(of: "&") {
            text += rest[..<amp]
            rest = rest[amp...]
            let entities: [(String, String)] = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")]
            if let (entity, character) = entities.first(where: { rest.hasPrefix($0.0) }) {
                text += character
                rest = rest.dropFirst(entity.count)
            } else {
                text += "&"
                rest = rest.dropFirst()
            }
        }
        return text + rest
    }
}
