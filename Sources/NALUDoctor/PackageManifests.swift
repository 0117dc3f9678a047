import NALU
import NALUMedia

/// The parts of HLS playlists (RFC 8216) and DASH MPDs (ISO/IEC 23009-1) that
/// ``PackageDoctor`` checks, read from their text. Playlists are read line by line (4.1); an
/// MPD with a small scanner of its elements and attributes (no DTD, no namespaces: what
/// packagers write).
///
/// Every number read goes through ``CheckedNumber`` or a checked parse: a value that is not a
/// number, not finite, negative where it cannot be, or past 64 bits is a ``Problem`` (the
/// doctor's `manifest-invalid`), never a trap. A manifest may declare at most
/// ``Limits/segments`` segments and parts in all (``Reading``).
package struct PackageManifests {
    /// The bounds on what a manifest may make the doctor do (Docs/reliability.md).
    package enum Limits {
        /// Bytes of one manifest read: a 16 MiB playlist holds ~300,000 segments.
        package static let manifestBytes: Int64 = 16 << 20
        /// Segments (and LL-HLS parts, and renditions) one manifest may declare: a day of 1 s
        /// segments in 10 renditions is 864,000. Past it the rest are not checked and the
        /// manifest is `manifest-invalid`: a 500-byte MPD with `r` = 2^62 declares more
        /// segments than any disk holds.
        package static let segments = 1_000_000
        /// The widest `$Number%0Nd$` padding: `NAME_MAX`, the longest file name.
        package static let templateWidth = 255
        /// The longest segment, in seconds (`EXTINF`, `@d` over the timescale): a year.
        package static let segmentSeconds = 31_622_400.0
    }

    /// What a manifest declares that cannot be used, with the count of segments still allowed.
    package struct Reading {
        /// Each problem: a key (one finding per key, counted) and what is wrong.
        package var problems: [(key: String, message: String, clause: String)] = []
        /// Segments, parts and renditions still allowed (``Limits/segments``).
        package var segmentsLeft: Int
        /// The allowance it started with.
        package let segmentLimit: Int
        private var overLimit = false

        /// - Parameter segmentLimit: the segments, parts and renditions allowed (the fuzz targets
        ///   take fewer, so one input that declares the most costs milliseconds, not seconds).
        package init(segmentLimit: Int = Limits.segments) {
            self.segmentLimit = max(0, segmentLimit)
            segmentsLeft = self.segmentLimit
        }

        mutating func problem(_ key: String, _ message: String, clause: String) { problems.append((key, message, clause)) }

        /// Takes `count` segments from the allowance; false (and a problem, once) past it.
        mutating func take(_ count: Int = 1) -> Bool {
            guard count <= segmentsLeft else {
                segmentsLeft = 0
                if !overLimit {
                    overLimit = true
                    problem("segments", "declares more than \(segmentLimit) segments, parts and renditions; the rest are not checked",
                            clause: "nalu's limit: Docs/reliability.md")
                }
                return false
            }
            segmentsLeft -= count
            return true
        }
    }

    /// One variant or rendition playlist of a multivariant playlist, or one DASH representation.
    package struct Rendition {
        /// The media playlist's URI (HLS) or the representation's id (DASH).
        package var name: String
        /// Whether it is video (a variant stream or a video adaptation set) rather than audio.
        package var isVideo: Bool
        /// The `CODECS` (HLS) or `@codecs` (DASH) it declares, split at commas.
        package var codecs: [String]
        /// The init segment (`EXT-X-MAP`, `@initialization`), if any.
        package var initSegment: String?
        /// The init segment's byte range (`EXT-X-MAP` `BYTERANGE`).
        package var initRange: ByteRange?
        package var segments: [Segment] = []
        /// LL-HLS parts (`EXT-X-PART` `URI`, RFC 8216bis 4.4.4.9): checked to be on disk.
        package var parts: [String] = []
        /// `EXT-X-TARGETDURATION` (HLS).
        package var targetDuration: Int64?
        /// DASH: the index of its `Period` (0 for the first): representations are aligned
        /// within a period, not across (ISO/IEC 23009-1 5.3.2).
        package var period = 0

        package init(name: String, isVideo: Bool, codecs: [String]) {
            self.name = name
            self.isVideo = isVideo
            self.codecs = codecs
        }
    }

    /// A sub-range of a file (`EXT-X-BYTERANGE`, RFC 8216 4.3.2.2).
    package struct ByteRange: Equatable {
        package var offset: Int64
        package var length: Int64
    }

    package struct Segment {
        package var uri: String
        /// Seconds (`EXTINF`, or `@d` over the timescale); `nil` when the manifest's value is
        /// not a usable duration (a problem says so).
        package var duration: Double?
        /// Start on the rendition's timeline in seconds (the sum of the durations before, or
        /// `@t`); `nil` when it cannot be computed.
        package var start: Double?
        /// The part of the file that is the segment (HLS single-file packages).
        package var range: ByteRange?
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
    package static func isMultivariant(_ text: String) -> Bool { text.contains("#EXT-X-STREAM-INF") }

    /// Whether `text` starts as a playlist must (RFC 8216 4.3.1.1: `#EXTM3U` on the first line).
    package static func isPlaylist(_ text: String) -> Bool {
        lines(text).first.map { $0.trimmed == "#EXTM3U" } ?? false
    }

    /// The renditions a multivariant playlist lists: each `EXT-X-STREAM-INF` (video, with its
    /// `CODECS`) and each `EXT-X-MEDIA` with a `URI` (audio and others; the codecs are those of
    /// the variants that use its group and are not video).
    package static func multivariant(_ text: String, reading: inout Reading) -> [Rendition] {
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
                pendingCodecs = nil
                guard reading.take() else { continue }
                renditions.append(Rendition(name: String(line).trimmed, isVideo: true, codecs: codecs))
            }
        }
        let audioCodecs = Array(Set(renditions.flatMap(\.codecs).filter { $0.hasPrefix("mp4a") || $0.hasPrefix("ac-3") || $0.hasPrefix("ec-3") })).sorted()
        let named = Set(renditions.map(\.name))
        for item in media where !named.contains(item.uri) {
            guard reading.take() else { break }
            renditions.append(Rendition(name: item.uri, isVideo: item.type == "VIDEO", codecs: item.type == "AUDIO" ? audioCodecs : []))
        }
        return renditions
    }

    /// `N[@O]` of `EXT-X-BYTERANGE` (4.3.2.2) and of `EXT-X-MAP`'s `BYTERANGE` (4.3.2.5): the
    /// offset, when absent, follows the previous range (`previousEnd`); `nil` when a number is
    /// not one or the end passes 2^63.
    static func byteRange(_ text: Substring, previousEnd: Int64?) -> ByteRange? {
        let pieces = text.trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count <= 2, let length = Int64(pieces[0]), length >= 0 else { return nil }
        guard let offset = pieces.count == 2 ? Int64(pieces[1]) : previousEnd, offset >= 0,
              CheckedNumber.sum(offset, length) != nil else { return nil }
        return ByteRange(offset: offset, length: length)
    }

    /// A duration in seconds as a manifest gives it: finite, not negative, at most
    /// ``Limits/segmentSeconds``.
    static func seconds(_ text: Substring) -> Double? {
        guard let value = Double(text.trimmed), value.isFinite, value >= 0, value <= Limits.segmentSeconds else { return nil }
        return value
    }

    /// Reads a media playlist (4.3.2, 4.3.3) into `rendition`: the target duration, the map,
    /// the segments with their durations and byte ranges, the LL-HLS parts.
    package static func media(_ text: String, into rendition: inout Rendition, reading: inout Reading) {
        let name = rendition.name
        if !isPlaylist(text) { reading.problem(name + "/EXTM3U", "\(name) does not start with #EXTM3U: it is no playlist", clause: "RFC 8216 4.3.1.1") }
        var duration: Double?
        var sawDuration = false
        var range: ByteRange?
        var rangeFollows = false
        var previousRange: (uri: String, end: Int64)?
        var start: Double? = 0
        for (number, line) in lines(text).enumerated() {
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                let value = line.dropFirst("#EXT-X-TARGETDURATION:".count).trimmed
                rendition.targetDuration = Int64(value)
                if rendition.targetDuration == nil || rendition.targetDuration! < 0 {
                    rendition.targetDuration = nil
                    reading.problem(name + "/TARGETDURATION", "\(name): EXT-X-TARGETDURATION \"\(value.prefix(40))\" is no duration", clause: "RFC 8216 4.3.3.1")
                }
            } else if line.hasPrefix("#EXT-X-MAP:") {
                let attributes = attributes(line.dropFirst("#EXT-X-MAP:".count))
                rendition.initSegment = attributes["URI"]
                if let text = attributes["BYTERANGE"] {
                    rendition.initRange = byteRange(Substring(text), previousEnd: 0)
                    if rendition.initRange == nil {
                        reading.problem(name + "/MAP", "\(name): EXT-X-MAP BYTERANGE \"\(text.prefix(40))\" is no byte range", clause: "RFC 8216 4.3.2.5")
                    }
                }
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", omittingEmptySubsequences: false).first ?? ""
                duration = seconds(value)
                sawDuration = true
                if duration == nil {
                    reading.problem(name + "/EXTINF", "\(name): line \(number + 1): EXTINF \"\(value.prefix(40))\" is no duration (a number of seconds from 0 to \(Int(Limits.segmentSeconds)))", clause: "RFC 8216 4.3.2.1")
                }
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                let value = line.dropFirst("#EXT-X-BYTERANGE:".count)
                range = byteRange(value, previousEnd: previousRange?.end)
                rangeFollows = !value.contains("@")
                if range == nil {
                    reading.problem(name + "/BYTERANGE", "\(name): line \(number + 1): EXT-X-BYTERANGE \"\(value.prefix(40))\" is no byte range, or has no offset and follows no range of the same file", clause: "RFC 8216 4.3.2.2")
                }
            } else if line.hasPrefix("#EXT-X-PART:") {
                if let uri = attributes(line.dropFirst("#EXT-X-PART:".count))["URI"], reading.take() { rendition.parts.append(uri) }
            } else if !line.hasPrefix("#") {
                let uri = String(line).trimmed
                if range != nil, rangeFollows, let previous = previousRange, previous.uri != uri {
                    // An offset taken from the previous range of another file (4.3.2.2 requires the same resource).
                    reading.problem(name + "/BYTERANGE", "\(name): line \(number + 1): \(uri)'s EXT-X-BYTERANGE has no offset and follows a range of another file", clause: "RFC 8216 4.3.2.2")
                    range = nil
                }
                if reading.take() {
                    if !sawDuration { reading.problem(name + "/EXTINF-missing", "\(name): \(uri) has no EXTINF", clause: "RFC 8216 4.3.2.1") }
                    rendition.segments.append(Segment(uri: uri, duration: duration, start: start, range: range))
                }
                start = start.flatMap { sum in duration.map { sum + $0 } }
                previousRange = range.map { (uri, $0.offset + $0.length) }
                duration = nil
                sawDuration = false
                range = nil
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
    /// `$Number$`/`$Number%0Nd$`, `$Time$`, `$Bandwidth$`). `S@t`, `@d` and `@r` are checked:
    /// a time past 2^63 or a count past the allowance is a problem, not a trap nor a loop.
    package static func mpd(_ text: String, reading: inout Reading) -> [Rendition] {
        var renditions: [Rendition] = []
        var adaptation: [String: String] = [:]
        var template: [String: String] = [:]
        var adaptationTemplate: [String: String] = [:]
        var current: (attributes: [String: String], times: [(t: Int64, d: Int64)])?
        // A timeline given once for the adaptation set, shared by its representations.
        var adaptationTimes: [(t: Int64, d: Int64)] = []
        // Whether a representation took the adaptation set's timeline already.
        var adaptationTimesCopied = false
        var time: Int64? = 0
        var sawMPD = false
        var period = -1
        for element in elements(text) {
            switch (element.name, element.closes) {
            case ("MPD", false):
                sawMPD = true
            case ("Period", false):
                period += 1
            case ("AdaptationSet", false):
                adaptation = element.attributes
                adaptationTemplate = [:]
                adaptationTimes = []
                adaptationTimesCopied = false
            case ("Representation", false):
                // The adaptation set's timeline is each representation's own list of segments:
                // the first takes what the S elements took from the allowance, every other copy
                // takes its own (20 representations sharing a timeline of the allowance's length
                // kept 20 times the limit; dash fuzz target).
                var shared = adaptationTimes.count
                if adaptationTimesCopied {
                    shared = min(shared, reading.segmentsLeft)
                    _ = reading.take(shared)
                    if shared < adaptationTimes.count { _ = reading.take(1) }
                }
                adaptationTimesCopied = true
                current = (element.attributes, Array(adaptationTimes.prefix(shared)))
                template = adaptationTemplate
                time = 0
            case ("SegmentTemplate", false):
                if current != nil { current?.times = [] }
                if current == nil { adaptationTemplate = element.attributes } else { template.merge(element.attributes) { $1 } }
            case ("S", false):
                let attributes = element.attributes
                guard let t = attributes["t"].map({ Int64($0) }) ?? time, t >= 0,
                      let d = attributes["d"].flatMap({ Int64($0) }), d > 0,
                      let r = attributes["r"].map({ Int64($0) }) ?? 0 else {
                    reading.problem("S", "SegmentTimeline S t=\"\(attributes["t"]?.prefix(24) ?? "")\" d=\"\(attributes["d"]?.prefix(24) ?? "")\" "
                                    + "r=\"\(attributes["r"]?.prefix(24) ?? "")\": @t and @d must be whole numbers (d > 0) under 2^63", clause: "ISO/IEC 23009-1 5.3.9.6")
                    time = nil
                    continue
                }
                // r = -1 (repeat to the next S or the period's end) is taken as no repeat.
                let repeats = max(0, r)
                let count = repeats == Int64.max ? Int64.max : repeats + 1
                let allowed = Int(min(count, Int64(reading.segmentsLeft)))
                _ = reading.take(allowed)
                // Past the allowance: the problem, once.
                if allowed < count { _ = reading.take(1) }
                var index: Int64 = 0
                while index < allowed {
                    guard let offset = CheckedNumber.product(index, d), let start = CheckedNumber.sum(t, offset) else {
                        reading.problem("S-overflow", "SegmentTimeline S t=\(t) d=\(d) r=\(r): the segments' times pass 2^63 ticks", clause: "ISO/IEC 23009-1 5.3.9.6")
                        break
                    }
                    if current != nil { current?.times.append((start, d)) } else { adaptationTimes.append((start, d)) }
                    index += 1
                }
                time = CheckedNumber.sum(repeats, 1).flatMap { CheckedNumber.product($0, d) }.flatMap { CheckedNumber.sum(t, $0) }
            case ("Representation", true):
                guard let representation = current else { break }
                current = nil
                let id = representation.attributes["id"] ?? "\(renditions.count)"
                let contentType = adaptation["contentType"] ?? adaptation["mimeType"] ?? representation.attributes["mimeType"] ?? ""
                let codecs = (representation.attributes["codecs"] ?? adaptation["codecs"] ?? "").split(separator: ",").map { String($0).trimmed }
                var rendition = Rendition(name: id, isVideo: contentType.hasPrefix("video"), codecs: codecs)
                rendition.period = max(0, period)
                let timescale = template["timescale"].map { Int64($0) } ?? 1
                if timescale == nil || timescale! <= 0 {
                    reading.problem("timescale", "\(id): SegmentTemplate timescale=\"\(template["timescale"]?.prefix(24) ?? "")\" is not a whole number above 0: its segments' times cannot be computed", clause: "ISO/IEC 23009-1 5.3.9.2")
                }
                let bandwidth = representation.attributes["bandwidth"] ?? ""
                if let initialization = template["initialization"] {
                    rendition.initSegment = substitute(initialization, id: id, number: 0, time: 0, bandwidth: bandwidth)
                    if rendition.initSegment == nil { reading.problem("template", templateProblem(id, initialization), clause: "ISO/IEC 23009-1 5.3.9.4.4") }
                }
                let startNumber = template["startNumber"].map { Int64($0) } ?? 1
                if startNumber == nil { reading.problem("startNumber", "\(id): startNumber \"\(template["startNumber"]?.prefix(24) ?? "")\" is no number under 2^63", clause: "ISO/IEC 23009-1 5.3.9.5") }
                let offset = template["presentationTimeOffset"].flatMap { Int64($0) } ?? 0
                if let media = template["media"] {
                    let mediaTemplate = URLTemplate(media)
                    if mediaTemplate == nil { reading.problem("template", templateProblem(id, media), clause: "ISO/IEC 23009-1 5.3.9.4.4") }
                    for (index, entry) in representation.times.enumerated() {
                        guard let mediaTemplate else { break }
                        guard let number = startNumber.flatMap({ CheckedNumber.sum($0, Int64(index)) }) else {
                            reading.problem("startNumber-overflow", "\(id): startNumber + segment index passes 2^63", clause: "ISO/IEC 23009-1 5.3.9.5")
                            break
                        }
                        let uri = mediaTemplate.url(id: id, number: number, time: entry.t, bandwidth: bandwidth)
                        var duration: Double?
                        var start: Double?
                        if let timescale, timescale > 0 {
                            let seconds = Double(entry.d) / Double(timescale)
                            duration = seconds <= Limits.segmentSeconds ? seconds : nil
                            if duration == nil {
                                reading.problem("d", "\(id): a segment of \(entry.d) ticks of 1/\(timescale) s is over \(Int(Limits.segmentSeconds)) s", clause: "ISO/IEC 23009-1 5.3.9.6")
                            }
                            let (sinceOffset, overflow) = entry.t.subtractingReportingOverflow(offset)
                            start = overflow ? nil : Double(sinceOffset) / Double(timescale)
                        }
                        rendition.segments.append(Segment(uri: uri, duration: duration, start: start))
                    }
                }
                renditions.append(rendition)
            default:
                break
            }
        }
        if !sawMPD {
            reading.problem("MPD", "no MPD element: it is no DASH manifest", clause: "ISO/IEC 23009-1 5.3.1")
        } else if renditions.isEmpty {
            reading.problem("MPD", "no Representation: the MPD describes no media", clause: "ISO/IEC 23009-1 5.3.5")
        }
        return renditions
    }

    static func templateProblem(_ id: String, _ template: String) -> String {
        "\(id): the template \"\(template.prefix(80))\" asks for a number wider than \(Limits.templateWidth) digits, longer than any file name"
    }

    /// A `SegmentTemplate` URL with its identifiers replaced (5.3.9.4.4, Table 16); `nil` when
    /// a `%0Nd` width is over ``Limits/templateWidth``.
    static func substitute(_ template: String, id: String, number: Int64, time: Int64, bandwidth: String) -> String? {
        URLTemplate(template)?.url(id: id, number: number, time: time, bandwidth: bandwidth)
    }

    /// A `SegmentTemplate` `@media` or `@initialization` split once into its text and its
    /// identifiers (5.3.9.4.4), so a timeline of many segments makes each name in one pass.
    struct URLTemplate {
        enum Piece {
            case text(String)
            /// `$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$`, with a `%0Nd` width.
            case identifier(Substring, width: Int)
        }

        var pieces: [Piece] = []

        /// `nil` when a width is over ``Limits/templateWidth``.
        init?(_ template: String) {
            var rest = Substring(template)
            var text = ""
            while let dollar = rest.firstIndex(of: "$") {
                text += rest[..<dollar]
                rest = rest[rest.index(after: dollar)...]
                guard let end = rest.firstIndex(of: "$") else {
                    text += "$"
                    break
                }
                let identifier = rest[..<end]
                rest = rest[rest.index(after: end)...]
                let name = identifier.prefix { $0 != "%" }
                let format = identifier.dropFirst(name.count)
                var width = 0
                if format.hasPrefix("%0"), format.hasSuffix("d") {
                    let digits = format.dropFirst(2).dropLast()
                    guard digits.count <= 3, let value = Int(digits), value <= Limits.templateWidth else { return nil }
                    width = value
                }
                switch name {
                case "": text += "$"
                case "RepresentationID", "Number", "Time", "Bandwidth":
                    pieces.append(.text(text))
                    text = ""
                    pieces.append(.identifier(name, width: width))
                default: text += "$" + identifier + "$"
                }
            }
            pieces.append(.text(text + rest))
        }

        func url(id: String, number: Int64, time: Int64, bandwidth: String) -> String {
            var result = ""
            for piece in pieces {
                switch piece {
                case .text(let text):
                    result += text
                case .identifier(let name, let width):
                    let value = switch name {
                    case "RepresentationID": id
                    case "Number": String(number)
                    case "Time": String(time)
                    default: bandwidth
                    }
                    if value.count < width { result += String(repeating: "0", count: width - value.count) }
                    result += value
                }
            }
            return result
        }
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
