import NALU

/// What a remux keeps of one track besides its samples (ISO/IEC 14496-12 8.3.2 `tkhd`, 8.4.2
/// `mdhd`, 8.4.3 `hdlr`, 8.10.1 `udta`): times, the display matrix, the layer, the handler name
/// and the track's user data, copied from the input so a phone clip keeps its rotation.
public struct MP4TrackMetadata: Hashable, Sendable {
    /// `tkhd.creation_time` and `modification_time`: seconds since 1904-01-01 00:00 UTC.
    public var creationTime: UInt64
    public var modificationTime: UInt64
    /// `mdhd.creation_time` and `modification_time` (what ffprobe shows as the stream's
    /// `creation_time` tag).
    public var mediaCreationTime: UInt64
    public var mediaModificationTime: UInt64
    /// `tkhd.matrix`: a, b, u, c, d, v, x, y, w (16.16, but u, v, w 2.30).
    public var matrix: [Int32]
    /// `tkhd.layer`.
    public var layer: Int16
    /// `hdlr.name` as stored (a null-terminated UTF-8 string, or QuickTime's counted string);
    /// `nil` writes the writer's default ("VideoHandler", "SoundHandler").
    public var handlerName: [UInt8]?
    /// The track's `udta` box, whole (header included), or `nil`.
    public var userData: [UInt8]?
    /// `mdhd.language` as stored (packed ISO 639-2/T; 0x55C4 is "und").
    public var languageCode: UInt16 = 0x55C4

    /// The identity matrix (8.2.2.2).
    public static let unityMatrix: [Int32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

    public init(creationTime: UInt64 = 0, modificationTime: UInt64 = 0, mediaCreationTime: UInt64 = 0, mediaModificationTime: UInt64 = 0,
                matrix: [Int32] = MP4TrackMetadata.unityMatrix, layer: Int16 = 0, handlerName: [UInt8]? = nil, userData: [UInt8]? = nil) {
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.mediaCreationTime = mediaCreationTime
        self.mediaModificationTime = mediaModificationTime
        self.matrix = matrix.count == 9 ? matrix : Self.unityMatrix
        self.layer = layer
        self.handlerName = handlerName
        self.userData = userData
    }

    /// The display rotation the matrix applies, in degrees as ffprobe reports it (`rotation`
    /// side data: counter-clockwise, so a matrix turning the picture 90° clockwise gives −90),
    /// or `nil` for the identity or a matrix that is no rotation by a multiple of 90° with
    /// unit scale (a mirror, a scale).
    public var rotation: Int? { MP4TrackMetadata.rotation(of: matrix) }

    /// See ``rotation``: `atan2(b, a)` of the matrix, for the four right angles.
    public static func rotation(of matrix: [Int32]) -> Int? {
        guard matrix.count == 9 else { return nil }
        let (a, b, c, d) = (matrix[0], matrix[1], matrix[3], matrix[4])
        let one: Int32 = 0x0001_0000
        switch (a, b, c, d) {
        case (one, 0, 0, one): return nil
        case (0, one, -one, 0): return -90
        case (-one, 0, 0, -one): return 180
        case (0, -one, one, 0): return 90
        default: return nil
        }
    }
}

/// What a remux keeps of the movie besides its tracks (8.2.2 `mvhd`, 8.10.1 `udta`, 8.11.1
/// `meta`): its times, its matrix, its user data (location `©xyz`, title, Apple `meta` keys),
/// the video track's ``MP4TrackMetadata`` and whether the file is QuickTime (`qt  ` brand).
public struct MP4MovieMetadata: Hashable, Sendable {
    /// `mvhd.creation_time` and `modification_time`: seconds since 1904-01-01 00:00 UTC (what
    /// ffprobe shows as the format's `creation_time` tag).
    public var creationTime: UInt64
    public var modificationTime: UInt64
    /// `mvhd.matrix`.
    public var matrix: [Int32]
    /// `moov`'s `udta` box, whole, or `nil`.
    public var userData: [UInt8]?
    /// `moov`'s `meta` box, whole (QuickTime `keys`/`ilst` metadata), or `nil`.
    public var meta: [UInt8]?
    /// The video track's metadata.
    public var video: MP4TrackMetadata
    /// Write `ftyp` with the QuickTime brand (`qt  `), as a `.mov` file has.
    public var quickTime: Bool

    public init(creationTime: UInt64 = 0, modificationTime: UInt64 = 0, matrix: [Int32] = MP4TrackMetadata.unityMatrix,
                userData: [UInt8]? = nil, meta: [UInt8]? = nil, video: MP4TrackMetadata = MP4TrackMetadata(), quickTime: Bool = false) {
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.matrix = matrix.count == 9 ? matrix : MP4TrackMetadata.unityMatrix
        self.userData = userData
        self.meta = meta
        self.video = video
        self.quickTime = quickTime
    }

    /// Seconds between 1904-01-01 (the ISO BMFF epoch) and 1970-01-01 (Unix).
    public static let epochOffset: UInt64 = 2_082_844_800

    /// `seconds` since 1904 as ffprobe prints a `creation_time` tag:
    /// `2024-05-01T12:34:56.000000Z` (ISO 8601, UTC, microseconds); `nil` for 0 (unset).
    public static func iso8601(_ seconds: UInt64) -> String? {
        guard seconds > 0 else { return nil }
        // Before 1970: ffmpeg prints the negative Unix time the same way; days from the civil calendar.
        let unix = Int64(clamping: seconds) - Int64(epochOffset)
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let rest = unix - days * 86_400
        // Howard Hinnant's days_from_civil inverse.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year4 = year < 1000 ? String(repeating: "0", count: 4 - "\(max(0, year))".count) + "\(max(0, year))" : "\(year)"
        return "\(year4)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)).000000Z"
    }
}

/// Largest `udta`/`meta` box copied (a cover image in `ilst` can be large; past this the box is left out).
let maxMetadataBoxSize: Int64 = 4 << 20

extension MovieBoxes {
    /// 8.2.2 Movie Header Box times and matrix; `nil` when the box is cut short.
    static func movieTimes(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) -> (creation: UInt64, modification: UInt64, matrix: [Int32])? {
        guard var reader = try? MP4BoxPayloadReader(box, in: source, limit: 4096),
              let version = try? reader.fullBoxHeader().version else { return nil }
        let width = version == 1 ? 8 : 4
        guard let creation = try? reader.uint(width, "creation_time"), let modification = try? reader.uint(width, "modification_time"),
              (try? reader.skip(4 + width + 4 + 2 + 10, "timescale … reserved")) != nil,
              let matrix = try? (0..<9).map({ _ throws(NALUError) in try reader.i32("matrix") }) else { return nil }
        return (creation, modification, matrix)
    }

    /// The metadata of a track: `tkhd` times, matrix and layer, `mdhd` times, the `hdlr` name,
    /// the `udta` box. Parts that do not parse keep their defaults: they are informative.
    static func trackMetadata(trak children: [MP4BoxHeader], media: [MP4BoxHeader], in source: some RandomAccessByteSource) -> MP4TrackMetadata {
        var metadata = MP4TrackMetadata()
        if let tkhd = children.first(where: { $0.type == .tkhd }), var reader = try? MP4BoxPayloadReader(tkhd, in: source, limit: 4096),
           let version = try? reader.fullBoxHeader().version {
            let width = version == 1 ? 8 : 4
            if let creation = try? reader.uint(width, "creation_time"), let modification = try? reader.uint(width, "modification_time") {
                metadata.creationTime = creation
                metadata.modificationTime = modification
            }
            // track_ID, reserved, duration, reserved[2].
            if (try? reader.skip(4 + 4 + width + 8, "track_ID … reserved")) != nil, let layer = try? reader.u16("layer"),
               (try? reader.skip(6, "alternate_group, volume, reserved")) != nil,
               let matrix = try? (0..<9).map({ _ throws(NALUError) in try reader.i32("matrix") }) {
                metadata.layer = Int16(bitPattern: layer)
                metadata.matrix = matrix
            }
        }
        if let mdhd = media.first(where: { $0.type == .mdhd }), var reader = try? MP4BoxPayloadReader(mdhd, in: source, limit: 4096),
           let version = try? reader.fullBoxHeader().version {
            let width = version == 1 ? 8 : 4
            if let creation = try? reader.uint(width, "creation_time"), let modification = try? reader.uint(width, "modification_time") {
                metadata.mediaCreationTime = creation
                metadata.mediaModificationTime = modification
            }
            if (try? reader.skip(4 + width, "timescale, duration")) != nil, let language = try? reader.u16("language") {
                metadata.languageCode = language
            }
        }
        if let hdlr = media.first(where: { $0.type == .hdlr }), var reader = try? MP4BoxPayloadReader(hdlr, in: source, limit: 1 << 12),
           (try? reader.skip(24, "version … reserved")) != nil, reader.remaining > 0 {
            metadata.handlerName = try? reader.bytes(reader.remaining, "name")
        }
        if let udta = children.first(where: { $0.type == "udta" }), udta.size <= maxMetadataBoxSize {
            metadata.userData = try? source.readBytes(at: udta.offset, count: Int(udta.size), field: "udta")
        }
        return metadata
    }

    /// The movie's metadata (``MP4MovieMetadata``) from `moov`'s children; the video track's
    /// part is left at its defaults (the caller sets it from the track read).
    static func movieMetadata(_ movie: MovieStructure, in source: some RandomAccessByteSource) -> MP4MovieMetadata {
        var metadata = MP4MovieMetadata(quickTime: movie.fileType?.isQuickTime == true)
        if let mvhd = movie.children.first(where: { $0.type == .mvhd }), let times = movieTimes(mvhd, in: source) {
            metadata.creationTime = times.creation
            metadata.modificationTime = times.modification
            metadata.matrix = times.matrix
        }
        for (type, keyPath) in [("udta", \MP4MovieMetadata.userData), ("meta", \MP4MovieMetadata.meta)] as [(FourCC, WritableKeyPath<MP4MovieMetadata, [UInt8]?>)] {
            if let box = movie.children.first(where: { $0.type == type }), box.size <= maxMetadataBoxSize {
                metadata[keyPath: keyPath] = try? source.readBytes(at: box.offset, count: Int(box.size), field: "\(type)")
            }
        }
        return metadata
    }
}

extension BoxBuilder {
    /// A 3×3 matrix of `mvhd`/`tkhd` (8.2.2.2).
    mutating func matrix(_ values: [Int32]) {
        for value in values.count == 9 ? values : MP4TrackMetadata.unityMatrix { i32(value) }
    }

    /// Whether `creation` or `modification` needs version 1 (64-bit) fields.
    static func needsWideTimes(_ metadata: MP4TrackMetadata?) -> Bool {
        guard let metadata else { return false }
        return [metadata.creationTime, metadata.modificationTime, metadata.mediaCreationTime, metadata.mediaModificationTime]
            .contains { $0 > UInt64(UInt32.max) }
    }

    /// Creation and modification times, 32 or 64 bits (`wide`, version 1).
    mutating func times(_ creation: UInt64, _ modification: UInt64, wide: Bool) {
        if wide {
            u64(creation)
            u64(modification)
        } else {
            u32(UInt32(truncatingIfNeeded: creation))
            u32(UInt32(truncatingIfNeeded: modification))
        }
    }
}
