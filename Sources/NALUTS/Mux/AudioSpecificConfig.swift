public import NALU

/// Finds an AAC stream's AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1), which
/// ``ADTSHeader/init(audioSpecificConfig:)`` and ``TransportStreamMuxer/addAudio(audioSpecificConfig:)``
/// take, in what an MP4 file holds: the `DecoderSpecificInfo` of the `esds` box (ISO/IEC
/// 14496-14 5.6) of an `mp4a` sample entry (ISO/IEC 14496-12 12.2.3).
public enum AudioSpecificConfig {
    /// The `DecoderSpecificInfo` bytes of an `esds` box's payload (after the box header: version,
    /// flags, then an `ES_Descriptor` holding a `DecoderConfigDescriptor`; ISO/IEC 14496-1
    /// 7.2.6.5, 7.2.6.6, 7.2.6.7). Offsets in errors are from the start of `esds`.
    public static func decoderSpecificInfo(esds: [UInt8]) throws(NALUError) -> [UInt8] {
        let config = try decoderConfigDescriptor(esds: esds)
        var decoder = DescriptorReader(bytes: esds, position: config.lowerBound, end: config.upperBound)
        // objectTypeIndication, streamType/upStream, bufferSizeDB, maxBitrate, avgBitrate.
        _ = try decoder.bytes(13, field: "DecoderConfigDescriptor")
        let info = try decoder.descriptor(tag: 0x05, field: "DecoderSpecificInfo")
        return Array(esds[info])
    }

    /// The `objectTypeIndication` of an `esds` box's DecoderConfigDescriptor (ISO/IEC 14496-1
    /// 7.2.6.6, Table 5: 0x40 MPEG-4 audio, 0x6B ISO/IEC 11172-3, 0x69 ISO/IEC 13818-3, …).
    public static func objectTypeIndication(esds: [UInt8]) throws(NALUError) -> UInt8 {
        let config = try decoderConfigDescriptor(esds: esds)
        guard let first = config.first else {
            throw NALUError(.truncated, field: "objectTypeIndication", byteOffset: Int64(config.lowerBound), detail: "an empty DecoderConfigDescriptor")
        }
        return esds[first]
    }

    /// The `objectTypeIndication` of a whole `mp4a` sample entry's `esds` (as ``fromSampleEntry(_:)`` finds it).
    public static func objectTypeIndication(sampleEntry entry: [UInt8]) throws(NALUError) -> UInt8 {
        let esds = try esdsRange(in: entry)
        return try offsetErrors(esds.lowerBound) { () throws(NALUError) in try objectTypeIndication(esds: Array(entry[esds])) }
    }

    /// The body of the DecoderConfigDescriptor in an `esds` box's payload.
    private static func decoderConfigDescriptor(esds: [UInt8]) throws(NALUError) -> Range<Int> {
        var reader = DescriptorReader(bytes: esds, position: 4)
        guard esds.count >= 4 else { throw NALUError(.truncated, field: "esds", byteOffset: 0, detail: "\(esds.count) bytes") }
        let es = try reader.descriptor(tag: 0x03, field: "ES_Descriptor")
        var inner = DescriptorReader(bytes: esds, position: es.lowerBound, end: es.upperBound)
        _ = try inner.bytes(2, field: "ES_ID")
        let flags = try inner.byte(field: "streamDependenceFlag")
        if flags & 0x80 != 0 { _ = try inner.bytes(2, field: "dependsOn_ES_ID") }
        if flags & 0x40 != 0 {
            let length = Int(try inner.byte(field: "URLlength"))
            _ = try inner.bytes(length, field: "URLstring")
        }
        if flags & 0x20 != 0 { _ = try inner.bytes(2, field: "OCR_ES_Id") }
        return try inner.descriptor(tag: 0x04, field: "DecoderConfigDescriptor")
    }

    /// The AudioSpecificConfig of a whole `mp4a` sample entry (box header included): its `esds`
    /// child, or the one inside a QuickTime `wave` box. Sound sample entry versions 0, 1 and 2
    /// (QuickTime's longer layouts) are read.
    public static func fromSampleEntry(_ entry: [UInt8]) throws(NALUError) -> [UInt8] {
        let esds = try esdsRange(in: entry)
        return try offsetErrors(esds.lowerBound) { () throws(NALUError) in try decoderSpecificInfo(esds: Array(entry[esds])) }
    }

    /// Where the `esds` payload of a whole `mp4a` sample entry is: its child, or the one in a `wave` box.
    private static func esdsRange(in entry: [UInt8]) throws(NALUError) -> Range<Int> {
        guard entry.count >= 36 else { throw NALUError(.truncated, field: "mp4a", byteOffset: 0, detail: "\(entry.count) bytes, needs 36") }
        // SampleEntry (8 + 8 bytes), then the sound description's version.
        let version = Int(entry[16]) << 8 | Int(entry[17])
        let childrenStart = switch version {
        case 0: 36
        case 1: 52
        case 2: 72
        default: -1
        }
        guard childrenStart > 0 else { throw NALUError(.unsupported, field: "sound sample entry version", byteOffset: 16, detail: "\(version)") }
        if let esds = try child("esds", in: entry, from: childrenStart, to: entry.count) { return esds }
        if let wave = try child("wave", in: entry, from: childrenStart, to: entry.count),
           let esds = try child("esds", in: entry, from: wave.lowerBound, to: wave.upperBound) { return esds }
        throw NALUError(.missing, field: "esds", detail: "the sample entry has no esds box")
    }

    /// The payload range of the first box of type `type` among the boxes in `bytes[start..<end]`.
    private static func child(_ type: String, in bytes: [UInt8], from start: Int, to end: Int) throws(NALUError) -> Range<Int>? {
        let wanted = Array(type.utf8)
        var position = start
        while position + 8 <= end {
            let size = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard size >= 8, size <= end - position else {
                throw NALUError(.lengthPastEnd, field: "box size", byteOffset: Int64(position), detail: "\(size) bytes, \(end - position) left")
            }
            if Array(bytes[(position + 4)..<(position + 8)]) == wanted { return (position + 8)..<(position + size) }
            position += size
        }
        return nil
    }

    private static func offsetErrors<T>(_ base: Int, _ body: () throws(NALUError) -> T) throws(NALUError) -> T {
        do { return try body() } catch { throw error.offset(by: Int64(base)) }
    }
}

/// Reads MPEG-4 descriptors: a tag, a size of one to four bytes of 7 bits each (ISO/IEC 14496-1
/// 8.3.3 `sizeOfInstance`), the body; every read checked against the end.
private struct DescriptorReader {
    let bytes: [UInt8]
    var position: Int
    var end: Int

    init(bytes: [UInt8], position: Int, end: Int? = nil) {
        self.bytes = bytes
        self.position = position
        self.end = end ?? bytes.count
    }

    mutating func bytes(_ count: Int, field: String) throws(NALUError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - position else {
            throw NALUError(.truncated, field: field, byteOffset: Int64(position), detail: "needs \(count) bytes, \(max(0, end - position)) left")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func byte(field: String) throws(NALUError) -> UInt8 {
        guard position < end else { throw NALUError(.truncated, field: field, byteOffset: Int64(position), detail: "needs 1 byte, 0 left") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The body of the next descriptor, which must have tag `tag`; moves past it.
    mutating func descriptor(tag: UInt8, field: String) throws(NALUError) -> Range<Int> {
        let start = position
        let found = try byte(field: field)
        guard found == tag else {
            throw NALUError(.invalidValue, field: field, byteOffset: Int64(start), detail: "tag \(found), expected \(tag)")
        }
        var size = 0
        for index in 0..<4 {
            let byte = try self.byte(field: "\(field) size")
            size = size << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            if index == 3 { throw NALUError(.invalidValue, field: "\(field) size", byteOffset: Int64(position - 1), detail: "more than 4 bytes") }
        }
        let body = try bytes(size, field: field)
        return body.startIndex..<body.endIndex
    }
}
