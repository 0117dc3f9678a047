import NALU

/// Parsers for the movie-level boxes a video track reader needs (ISO/IEC 14496-12 8.2–8.5).
enum MovieBoxes {
    /// 4.3 File Type Box.
    static func fileType(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> MP4FileType {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 1 << 16)
        let major = try reader.fourCC("major_brand")
        let minor = try reader.u32("minor_version")
        var brands: [FourCC] = []
        while reader.remaining >= 4 { brands.append(try reader.fourCC("compatible_brands")) }
        return MP4FileType(majorBrand: major, minorVersion: minor, compatibleBrands: brands)
    }

    /// 8.2.2 Movie Header Box: `timescale` and `duration`.
    static func movieHeader(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> (timescale: UInt32, duration: UInt64) {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        let version = try reader.fullBoxHeader().version
        if version == 1 {
            try reader.skip(16, "creation_time")
            let timescale = try reader.u32("timescale")
            return (timescale, try reader.u64("duration"))
        }
        try reader.skip(8, "creation_time")
        let timescale = try reader.u32("timescale")
        return (timescale, UInt64(try reader.u32("duration")))
    }

    /// The fields of a Track Header Box (8.3.2) a writer copies.
    struct TrackHeader {
        var flags: UInt32
        var trackID: UInt32
        var layer: Int16
        var alternateGroup: Int16
        /// 8.8 fixed point.
        var volume: UInt16
        /// 16.16 fixed point.
        var width: UInt32
        var height: UInt32
    }

    /// 8.3.2 Track Header Box.
    static func trackHeader(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> TrackHeader {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        let (version, flags) = try reader.fullBoxHeader()
        try reader.skip(version == 1 ? 16 : 8, "creation_time")
        let trackID = try reader.u32("track_ID")
        // A header cut short after track_ID (which is all a reader needs) keeps the defaults.
        guard reader.remaining >= 4 + (version == 1 ? 8 : 4) + 60 else {
            return TrackHeader(flags: flags, trackID: trackID, layer: 0, alternateGroup: 0, volume: 0, width: 0, height: 0)
        }
        try reader.skip(4, "reserved")
        try reader.skip(version == 1 ? 8 : 4, "duration")
        try reader.skip(8, "reserved")
        let layer = Int16(bitPattern: try reader.u16("layer"))
        let group = Int16(bitPattern: try reader.u16("alternate_group"))
        let volume = try reader.u16("volume")
        try reader.skip(2 + 36, "matrix")
        let width = try reader.u32("width")
        let height = try reader.u32("height")
        return TrackHeader(flags: flags, trackID: trackID, layer: layer, alternateGroup: group, volume: volume, width: width, height: height)
    }

    /// 8.3.2 Track Header Box: `track_ID`.
    static func trackID(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> UInt32 {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        let version = try reader.fullBoxHeader().version
        try reader.skip(version == 1 ? 16 : 8, "creation_time")
        return try reader.u32("track_ID")
    }

    /// 8.4.2 Media Header Box fields: `timescale`, `duration` and the packed `language`.
    typealias MediaHeader = (timescale: UInt32, duration: UInt64, language: UInt16)

    /// 8.4.2 Media Header Box: `timescale`, `duration`, `language`.
    static func mediaHeader(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> MediaHeader {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        let version = try reader.fullBoxHeader().version
        try reader.skip(version == 1 ? 16 : 8, "creation_time")
        let timescalePosition = reader.position
        let timescale = try reader.u32("timescale")
        guard timescale > 0 else { throw reader.error(.invalidValue, "timescale", at: timescalePosition, "0") }
        let duration = version == 1 ? try reader.u64("duration") : UInt64(try reader.u32("duration"))
        // Old QuickTime headers may end here; "und" then.
        let language = reader.remaining >= 2 ? try reader.u16("language") : 0x55C4
        return (timescale, duration, language)
    }

    /// 8.4.3 Handler Reference Box: `handler_type` (QuickTime's component subtype, same place).
    static func handlerType(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> FourCC {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 1 << 16)
        _ = try reader.fullBoxHeader()
        try reader.skip(4, "pre_defined")
        return try reader.fourCC("handler_type")
    }

    /// 8.6.6 Edit List Box.
    static func editList(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> [MP4EditListEntry] {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 1 << 24)
        let version = try reader.fullBoxHeader().version
        let count = try reader.entryCount("entry_count", entrySize: version == 1 ? 20 : 12)
        var entries: [MP4EditListEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let duration = version == 1 ? try reader.u64("segment_duration") : UInt64(try reader.u32("segment_duration"))
            let time = version == 1 ? Int64(bitPattern: try reader.u64("media_time")) : Int64(try reader.i32("media_time"))
            let rate = Int16(bitPattern: try reader.u16("media_rate_integer"))
            let fraction = Int16(bitPattern: try reader.u16("media_rate_fraction"))
            entries.append(MP4EditListEntry(segmentDuration: duration, mediaTime: time, mediaRateInteger: rate, mediaRateFraction: fraction))
        }
        return entries
    }

    /// 8.8.2 Movie Extends Header Box: `fragment_duration`.
    static func fragmentDuration(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> UInt64 {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        let version = try reader.fullBoxHeader().version
        return version == 1 ? try reader.u64("fragment_duration") : UInt64(try reader.u32("fragment_duration"))
    }

    /// 8.5.2 Sample Description Box: the entries, or `nil` for each entry that is not
    /// `avc1`/`avc3`/`hvc1`/`hev1` (12.1.3 VisualSampleEntry with an `avcC`/`hvcC`,
    /// ISO/IEC 14496-15 5.4.2.1 and 8.4.1.1).
    static func sampleDescriptions(_ stsd: MP4BoxHeader, in source: some RandomAccessByteSource, depth: Int) throws(NALUError) -> [MP4SampleDescription?] {
        try sampleEntryBoxes(stsd, in: source, depth: depth).map { (entry) throws(NALUError) in
            try sampleDescription(entry, in: source, depth: depth + 1)
        }
    }

    /// 8.5.2 Sample Description Box: the headers of its `entry_count` sample entries (at least one).
    static func sampleEntryBoxes(_ stsd: MP4BoxHeader, in source: some RandomAccessByteSource, depth: Int) throws(NALUError) -> [MP4BoxHeader] {
        var header = try MP4BoxPayloadReader(MP4BoxHeader(type: stsd.type, offset: stsd.offset, size: min(stsd.size, Int64(stsd.headerSize) + 8),
                                                          headerSize: stsd.headerSize), in: source)
        _ = try header.fullBoxHeader()
        let countPosition = header.position
        let count = try header.u32("entry_count")
        let entries = try MP4BoxHeader.children(from: stsd.payloadOffset + 8, to: stsd.end, in: source, parent: .stsd, depth: depth + 1)
        guard UInt64(count) <= UInt64(entries.count) else {
            throw header.error(.lengthPastEnd, "entry_count", at: countPosition, "\(count) entries, \(entries.count) boxes in the box")
        }
        guard count > 0 else { throw header.error(.missing, "entry_count", at: countPosition, "no sample entry") }
        return Array(entries.prefix(Int(count)))
    }

    /// One VisualSampleEntry (ISO/IEC 14496-12 12.1.3.2): 78 bytes of fields, then boxes.
    static func sampleDescription(_ entry: MP4BoxHeader, in source: some RandomAccessByteSource, depth: Int) throws(NALUError) -> MP4SampleDescription? {
        guard let type = MP4SampleEntryType(entry.type) else { return nil }
        var fields = try MP4BoxPayloadReader(MP4BoxHeader(type: entry.type, offset: entry.offset, size: min(entry.size, Int64(entry.headerSize) + 78),
                                                          headerSize: entry.headerSize), in: source)
        try fields.skip(24, "reserved")
        let width = Int(try fields.u16("width"))
        let height = Int(try fields.u16("height"))
        try fields.skip(50, "resolution")
        let recordType: FourCC = type.codec == .h264 ? .avcC : .hvcC
        let boxes = try MP4BoxHeader.children(from: entry.payloadOffset + 78, to: entry.end, in: source, parent: entry.type, depth: depth + 1)
        guard let recordBox = boxes.first(where: { $0.type == recordType }) else {
            throw NALUError(.missing, field: "\(recordType)", byteOffset: entry.offset, detail: "\(type) sample entry without \(recordType)")
        }
        let payload = try MP4BoxPayloadReader(recordBox, in: source, limit: 1 << 24)
        let record: DecoderConfigurationRecord
        do {
            record = try DecoderConfigurationRecord(parsing: payload.bytes, codec: type.codec)
        } catch {
            throw NALUError(error.code, field: "\(recordType).\(error.field)", byteOffset: recordBox.payloadOffset + (error.byteOffset ?? 0),
                            detail: error.detail)
        }
        var description = MP4SampleDescription(type: type, width: width, height: height, recordBytes: payload.bytes, record: record)
        description.readColourBoxes(boxes, in: source)
        return description
    }
}
