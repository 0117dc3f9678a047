public import NALU

/// Every track of an MP4 or QuickTime movie (ISO/IEC 14496-12 8.3): its description
/// (``MP4Track``) and a ``MP4TrackReader`` for its samples, from the sample tables and from
/// movie fragments (8.8).
///
/// Opening reads the box headers up to `moov` and each track's sample table (kept as the boxes'
/// own bytes, checked against them); sample bytes are read on demand. The bounds of
/// ``MP4VideoTrackReader`` apply to every track: child boxes per parent, samples per `trun`
/// against its bytes and against the file.
///
/// ```swift
/// let movie = try MP4MovieReader(RandomAccessFile(path: "in.mp4"))
/// for track in movie.tracks where track.track.isAudio {
///     var buffer: [UInt8] = []
///     try track.forEachSample { sample in try track.read(sample, into: &buffer) }
/// }
/// ```
public struct MP4MovieReader<Source: RandomAccessByteSource> {
    /// The file.
    public let source: Source
    /// The `ftyp` box, if any.
    public let fileType: MP4FileType?
    /// The `moov` box.
    public let movieBox: MP4BoxHeader
    /// `mvhd.timescale`: the unit of edit list segment durations.
    public let movieTimescale: UInt32
    /// `mvhd.duration`, or `mehd.fragment_duration` when a fragmented movie has one.
    public let movieDuration: UInt64
    /// Whether the movie has an `mvex` box (samples follow in fragments).
    public let isFragmented: Bool
    /// The tracks, in file order (`trak` boxes with an `mdia` and `hdlr`).
    public let tracks: [MP4TrackReader<Source>]
    /// The movie's times, matrix and user data (``MP4MovieMetadata``; its `video` part at its
    /// defaults: take a video track's ``MP4Track/metadata``).
    public let metadata: MP4MovieMetadata

    /// Tracks read at most: each one's iterator walks every fragment, so reading all of them
    /// costs tracks × file; a movie of more `trak` boxes is refused rather than read.
    public static var maxTracks: Int { 256 }

    /// Opens the movie and every track's sample table.
    /// - Throws: ``NALUError`` for no `moov`/`mvhd`, a track without `tkhd`/`mdhd`/`minf`/
    ///   `stbl`/`stsd`, or any malformed box, naming the field and its offset.
    public init(_ source: Source) throws(NALUError) {
        self.source = source
        let movie = try MovieStructure(source)
        fileType = movie.fileType
        movieBox = movie.movieBox
        movieTimescale = movie.movieHeader.timescale
        movieDuration = movie.fragmentDuration ?? movie.movieHeader.duration
        isFragmented = movie.isFragmented
        metadata = MovieBoxes.movieMetadata(movie, in: source)
        var tracks: [MP4TrackReader<Source>] = []
        for trak in movie.children where trak.type == .trak {
            guard tracks.count < Self.maxTracks else {
                throw NALUError(.tooLarge, field: "moov.trak", byteOffset: trak.offset, detail: "more than \(Self.maxTracks) tracks")
            }
            guard let boxes = try TrackBoxes.parse(trak, in: source) else { continue }
            tracks.append(try MP4TrackReader(boxes, movie: movie, source: source))
        }
        self.tracks = tracks
    }

    /// The track with `trackID`, if any.
    public func track(id trackID: UInt32) -> MP4TrackReader<Source>? {
        tracks.first { $0.track.trackID == trackID }
    }
}

/// The samples of one track of any kind, in decoding order, with their timing (ISO/IEC
/// 14496-12 8.6 sample tables, 8.8 track fragments), and their bytes on demand.
public struct MP4TrackReader<Source: RandomAccessByteSource> {
    /// The track.
    public let track: MP4Track
    let context: TrackSampleContext<Source>

    /// The file.
    public var source: Source { context.source }

    /// Sample entries are copied whole; one larger than this (a 16 MiB `esds`?) is refused.
    public static var maxSampleEntrySize: Int64 { 16 << 20 }

    init(_ boxes: TrackBoxes, movie: MovieStructure, source: Source) throws(NALUError) {
        let entries = try MovieBoxes.sampleEntryBoxes(boxes.stsd, in: source, depth: 5)
        var raw: [[UInt8]] = []
        raw.reserveCapacity(entries.count)
        var total: Int64 = 0
        for entry in entries {
            total += entry.size
            guard total <= Self.maxSampleEntrySize else {
                throw NALUError(.tooLarge, field: "stsd", byteOffset: entry.offset, detail: "sample entries over \(Self.maxSampleEntrySize) bytes")
            }
            raw.append(try source.readBytes(at: entry.offset, count: Int(entry.size), field: "\(entry.type)"))
        }
        var informationHeader: [UInt8]?
        if let box = boxes.mediaInformationHeader, box.size <= 1 << 16 {
            informationHeader = try source.readBytes(at: box.offset, count: Int(box.size), field: "\(box.type)")
        }
        let table = try SampleTable(boxes: boxes.tables, in: source, fileSize: source.size, sampleDescriptionCount: raw.count,
                                    requireTables: !movie.isFragmented)
        var track = MP4Track(trackID: boxes.header.trackID, handler: boxes.handler, timescale: boxes.media.timescale,
                         duration: boxes.media.duration, languageCode: boxes.media.language, sampleEntries: raw,
                         editList: boxes.editList, trackHeaderFlags: boxes.header.flags, alternateGroup: boxes.header.alternateGroup,
                         volume: boxes.header.volume, width: boxes.header.width, height: boxes.header.height,
                         mediaInformationHeader: informationHeader, sampleTableCount: table.sampleCount)
        track.metadata = boxes.metadata
        self.track = track
        context = TrackSampleContext(source: source, trackID: boxes.header.trackID, sampleDescriptionCount: raw.count,
                                     sampleTable: table, trackExtends: movie.trackExtends, isFragmented: movie.isFragmented,
                                     fragmentsStart: movie.movieBox.end)
    }

    /// The samples in decoding order: the sample table's, then the fragments'.
    public func samples() -> MP4SampleIterator<Source> {
        MP4SampleIterator(context: context)
    }

    /// Calls `body` with every sample in decoding order.
    public func forEachSample(_ body: (MP4Sample) throws -> Void) throws {
        var iterator = samples()
        while let sample = try iterator.next() { try body(sample) }
    }

    /// Calls `body` with the samples whose decoding time (``MP4Sample/dts``, in the track's
    /// timescale) is in `decodeTimes`, in decoding order; stops at the first sample past the
    /// range (decoding times only grow, except where a fragment's `tfdt` restarts them).
    public func forEachSample(decodeTimes: Range<Int64>, _ body: (MP4Sample) throws -> Void) throws {
        var iterator = samples()
        while let sample = try iterator.next() {
            if sample.dts >= decodeTimes.upperBound { break }
            if sample.dts >= decodeTimes.lowerBound { try body(sample) }
        }
    }

    /// Reads `sample`'s bytes into `buffer`, replacing its contents.
    /// - Throws: ``NALUError`` (typed): a sample past the end of the file; the source's error.
    public func read(_ sample: MP4Sample, into buffer: inout [UInt8]) throws(NALUError) {
        try MP4SampleBytes.read(sample, from: context.source, into: &buffer)
    }
}

/// Reads a sample's bytes, checked against the file.
enum MP4SampleBytes {
    static func read(_ sample: MP4Sample, from source: some RandomAccessByteSource, into buffer: inout [UInt8]) throws(NALUError) {
        let (end, overflow) = sample.offset.addingReportingOverflow(Int64(sample.size))
        guard sample.offset >= 0, sample.size >= 0, !overflow, end <= source.size else {
            throw NALUError(.lengthPastEnd, field: "sample", byteOffset: sample.offset,
                            detail: "sample \(sample.index + 1) of \(sample.size) bytes ends past the \(source.size)-byte file")
        }
        if buffer.count != sample.size {
            if buffer.count > sample.size {
                buffer.removeSubrange(sample.size...)
            } else {
                buffer.append(contentsOf: repeatElement(0, count: sample.size - buffer.count))
            }
        }
        try buffer.withMutableBytes { (bytes) throws(NALUError) in try source.readExactly(at: sample.offset, into: bytes, field: "sample") }
    }
}
