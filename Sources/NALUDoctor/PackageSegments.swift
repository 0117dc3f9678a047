import NALU
import NALUMP4
import NALUMedia

/// What ``PackageCheck`` learns from one segment's bytes: whether it reads as the segment it
/// should be (CMAF/fMP4 with its init segment, or MPEG-TS), its first picture and its duration
/// by its samples. Every time read from the segment is combined through ``CheckedNumber``.
enum PackageSegments {
    struct Facts {
        /// The segment's bytes.
        var size: Int
        /// "fMP4" or "MPEG-TS".
        var kind: String
        /// Why it is not readable; `nil` when it is.
        var problem: String?
        var isReadable: Bool { problem == nil }
        var reason: String { problem ?? "" }
        /// Video: the first picture, whether it is a keyframe, and its presentation time after
        /// the edit list (fMP4), seconds.
        var firstPicture: (isKeyframe: Bool, what: String, time: Double?)?
        /// Seconds from the first sample's decoding time to the end of the last one's.
        var duration: Double?
    }

    /// The facts of the segment at `path` (its `range`), read with `initBytes` when the
    /// rendition has an init segment (fMP4), else as MPEG-TS when its name ends in `.ts`;
    /// `nil` for other kinds (packed audio), which are only checked to be on disk.
    static func examine(_ path: String, size: Int64, range: PackageManifests.ByteRange?, initBytes: [UInt8]?, isVideo: Bool, uri: String) throws -> Facts? {
        if let range, range.offset + range.length > size {
            // ByteRange ends below 2^63 (PackageManifests.byteRange).
            throw NALUError(.truncated, field: path, detail: "bytes \(range.offset) to \(range.offset) + \(range.length) run past the end of the file (\(size) bytes)")
        }
        if let initBytes {
            let bytes = try PackageDoctor.read(path, range: range)
            var facts = Facts(size: bytes.count, kind: "fMP4")
            guard hasBox("moof", in: bytes), hasBox("mdat", in: bytes) else {
                facts.problem = "no moof and mdat box (ISO/IEC 14496-12 8.8.4)"
                return facts
            }
            guard isVideo else { return facts }
            guard let first = try firstPictureOfFragment(initBytes + bytes) else {
                facts.problem = "no video sample of its init segment's track can be read from it"
                return facts
            }
            facts.firstPicture = (first.isKeyframe, first.what, first.time)
            facts.duration = first.duration
            return facts
        }
        let name = uri.split(separator: "?").first.map { $0.lowercased() } ?? ""
        guard name.hasSuffix(".ts") || name.hasSuffix(".m2ts") else { return nil }
        // The first packet's sync byte (ISO/IEC 13818-1 2.4.3.2).
        let length = range?.length ?? size
        let head = try PackageFiles.read(path, offset: range?.offset ?? 0, length: min(length, 188), limit: 188)
        var facts = Facts(size: Int(clamping: length), kind: "MPEG-TS")
        guard head.first == 0x47 else {
            facts.problem = head.isEmpty ? "it is empty" : "its first byte is not the sync byte 0x47 (ISO/IEC 13818-1 2.4.3.2)"
            return facts
        }
        // A range of a single-file MPEG-TS package: the sync byte only.
        guard range == nil, isVideo else { return facts }
        guard let first = firstPictureOfTransportStream(path) else { return facts }
        facts.firstPicture = (first.isKeyframe, first.what, nil)
        facts.duration = first.duration
        return facts
    }

    /// Whether a top-level box `type` is in `bytes` (ISO/IEC 14496-12 4.2: 32-bit sizes, 64-bit
    /// `largesize` when 1, to the end when 0).
    static func hasBox(_ type: String, in bytes: [UInt8]) -> Bool {
        let wanted = Array(type.utf8)
        var position = 0
        while position + 8 <= bytes.count {
            var size = 0
            for index in 0..<4 { size = size << 8 | Int(bytes[position + index]) }
            if Array(bytes[(position + 4)..<(position + 8)]) == wanted { return true }
            if size == 1 {
                guard position + 16 <= bytes.count else { return false }
                var large: UInt64 = 0
                for index in 8..<16 { large = large << 8 | UInt64(bytes[position + index]) }
                guard large >= 16, large <= UInt64(bytes.count - position) else { return false }
                size = Int(large)
            } else if size == 0 {
                return false
            }
            guard size >= 8 else { return false }
            position += size
        }
        return false
    }

    /// Whether an init segment's handler (`hdlr`) is `soun`: an audio rendition, whatever the
    /// playlist implies.
    static func isAudio(_ initBytes: [UInt8]) -> Bool {
        let hdlr = Array("hdlr".utf8), soun = Array("soun".utf8)
        var index = 4
        while index + 16 <= initBytes.count {
            if Array(initBytes[index..<(index + 4)]) == hdlr { return Array(initBytes[(index + 12)..<(index + 16)]) == soun }
            index += 1
        }
        return false
    }

    /// The first picture of a CMAF segment read with its init segment (`bytes`: the two joined,
    /// a fragmented MP4): whether it is a keyframe (IDR, CRA, BLA, H.264 recovery point; the
    /// NAL units say, not the sample flags), its presentation time after the edit (seconds), and
    /// the segment's duration by its samples.
    static func firstPictureOfFragment(_ bytes: [UInt8]) throws -> (isKeyframe: Bool, what: String, time: Double?, duration: Double?)? {
        guard let reader = try? MP4VideoTrackReader(MemoryRandomAccessSource(bytes)) else { return nil }
        var iterator = reader.samples()
        guard let first = try? iterator.next() else { return nil }
        var earliest = first.pts
        var end = CheckedNumber.sum(first.dts, Int64(first.duration))
        while let sample = try? iterator.next() {
            earliest = min(earliest, sample.pts)
            end = CheckedNumber.sum(sample.dts, Int64(sample.duration))
        }
        let timescale = Double(reader.track.timescale)
        let offset = reader.track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0
        let (sinceEdit, overflow) = earliest.subtractingReportingOverflow(offset)
        let time = overflow || timescale <= 0 ? nil : Double(sinceEdit) / timescale
        let duration = end.flatMap { end in
            let (span, overflow) = end.subtractingReportingOverflow(first.dts)
            return overflow || timescale <= 0 ? nil : Double(span) / timescale
        }
        var splitter = AccessUnitSplitter(codec: reader.track.codec)
        let descriptions = reader.track.sampleDescriptions
        guard !descriptions.isEmpty else { return nil }
        let description = descriptions[max(0, min(descriptions.count - 1, first.sampleDescriptionIndex - 1))]
        for unit in description.record.parameterSets { try? splitter.addParameterSet(unit) }
        var buffer: [UInt8] = []
        try reader.read(first, into: &buffer)
        var summary: AccessUnitSummary?
        let lengthSize = description.record.lengthSize
        var position = 0
        try buffer.withUnsafeBytes { raw in
            while position + lengthSize <= raw.count {
                var length = 0
                for index in 0..<lengthSize { length = length << 8 | Int(raw[position + index]) }
                let start = position + lengthSize
                guard length > 0, length <= raw.count - start else { break }
                try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]), offset: Int64(start),
                                            prefixLength: lengthSize) { unit in
                    if let completed = try splitter.push(unit).completed, summary == nil { summary = completed }
                }
                position = start + length
            }
        }
        if summary == nil { summary = splitter.finish() }
        let keyframe = summary?.keyframe
        return (keyframe != nil, keyframe.map(\.name) ?? "\(summary?.pictureType.map { "\($0)" } ?? "a") picture", time, duration)
    }

    /// The first access unit of an MPEG-TS segment (whether it is a keyframe) and the segment's
    /// duration by its PES times; `nil` when it holds no video.
    static func firstPictureOfTransportStream(_ path: String) -> (isKeyframe: Bool, what: String, duration: Double?)? {
        var options = MediaSourceOptions()
        options.readsAhead = false
        // The file checked and opened here (O_NOFOLLOW, O_NONBLOCK, a regular file), reopened
        // through its descriptor: a file swapped in after the checks is not followed.
        guard let file = try? PackageFiles.OpenFile(path) else { return nil }
        let opened = withExtendedLifetime(file) { try? MediaSource(path: file.descriptorPath, options: options) }
        guard let source = opened else { return nil }
        var first: AccessUnitSummary?
        var firstTiming: SampleTiming?
        var lastTiming: SampleTiming?
        do {
            try source.forEachAccessUnit { unit in
                if first == nil { first = unit.summary }
                if let timing = unit.timing {
                    if firstTiming == nil { firstTiming = timing }
                    lastTiming = timing
                }
            }
        } catch {
            guard first != nil else { return nil }
        }
        guard let first else { return nil }
        var duration: Double?
        if let firstTiming, let lastTiming, lastTiming.timescale > 0,
           let end = CheckedNumber.sum(lastTiming.decode, lastTiming.duration) {
            let (span, overflow) = end.subtractingReportingOverflow(firstTiming.decode)
            if !overflow { duration = Double(span) / Double(lastTiming.timescale) }
        }
        return (first.keyframe != nil, first.keyframe.map(\.name) ?? "\(first.pictureType.map { "\($0)" } ?? "a") picture", duration)
    }
}
