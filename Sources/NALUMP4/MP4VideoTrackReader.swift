public import NALU

/// Reads the first H.264 or H.265 video track (`avc1`, `avc3`, `hvc1` or `hev1`) of an MP4 or
/// QuickTime file (ISO/IEC 14496-12, ISO/IEC 14496-15) and yields its samples in decoding
/// order, from the sample table (progressive files, `moov` before or after `mdat`) and then
/// from movie fragments (`moof`/`traf`/`trun`, 8.8).
///
/// Reading is streaming: opening reads the box headers up to `moov` and the chosen track's
/// sample table (the only memory that grows with the file), and each sample's bytes are read at
/// its offset on demand. Other tracks (audio, text, other codecs) are skipped. Every size and
/// count is checked against the box that holds it, so malformed files give ``NALUError``s with
/// the box and field name and the byte offset, never a trap or a large allocation.
///
/// ```swift
/// let reader = try MP4VideoTrackReader(RandomAccessFile(path: "in.mp4"))
/// var buffer: [UInt8] = []
/// try reader.forEachSample { sample in
///     try reader.read(sample, into: &buffer)   // length-prefixed NAL units
/// }
/// ```
public struct MP4VideoTrackReader<Source: RandomAccessByteSource> {
    /// The file.
    public let source: Source
    /// The `ftyp` box, if the file has one (old QuickTime files may not).
    public let fileType: MP4FileType?
    /// The video track.
    public let track: MP4VideoTrack
    /// The `moov` box.
    public let movieBox: MP4BoxHeader

    let sampleTable: SampleTable
    let trackExtends: [UInt32: TrackExtends]

    /// Opens the file: finds `moov` and the first video track, and reads its sample table.
    /// - Throws: ``NALUError`` `.missing` (field `moov`, or `trak` when there is no
    ///   H.264/H.265 video track), and any error of a malformed box on the way.
    public init(_ source: Source) throws {
        self.source = source
        let fileSize = source.size
        var fileType: MP4FileType?
        var movie: MP4BoxHeader?
        var position: Int64 = 0
        var first = true
        while position < fileSize {
            let box = try MP4BoxHeader.read(from: source, at: position, parentEnd: fileSize)
            if first && box.type == .ftyp { fileType = try MovieBoxes.fileType(box, in: source) }
            first = false
            if box.type == .moov {
                movie = box
                break
            }
            position = box.end
        }
        guard let movie else {
            throw NALUError(.missing, field: "moov", byteOffset: position, detail: "no movie box in the \(fileSize)-byte file")
        }
        self.fileType = fileType
        movieBox = movie

        let movieChildren = try MP4BoxHeader.children(of: movie, in: source, depth: 1)
        guard let mvhd = movieChildren.first(where: { $0.type == .mvhd }) else {
            throw NALUError(.missing, field: "mvhd", byteOffset: movie.offset, detail: "moov without mvhd")
        }
        let movieHeader = try MovieBoxes.movieHeader(mvhd, in: source)
        var extends: [UInt32: TrackExtends] = [:]
        var fragmentDuration: UInt64?
        let mvex = movieChildren.first { $0.type == .mvex }
        if let mvex {
            for box in try MP4BoxHeader.children(of: mvex, in: source, depth: 2) {
                if box.type == .trex {
                    let trex = try TrackExtends(box, in: source)
                    extends[trex.trackID] = trex
                } else if box.type == .mehd {
                    fragmentDuration = try MovieBoxes.fragmentDuration(box, in: source)
                }
            }
        }
        trackExtends = extends

        for trak in movieChildren where trak.type == .trak {
            guard let found = try Self.videoTrack(trak, in: source, fileSize: fileSize, isFragmented: mvex != nil) else { continue }
            let (descriptions, table, trackID, media, editList) = found
            guard let primary = descriptions.first else { continue }
            track = MP4VideoTrack(trackID: trackID, sampleDescription: primary, additionalSampleDescriptions: Array(descriptions.dropFirst()),
                                  timescale: media.timescale, duration: media.duration,
                                  movieTimescale: movieHeader.timescale, movieDuration: fragmentDuration ?? movieHeader.duration,
                                  editList: editList, sampleTableCount: table.sampleCount, isFragmented: mvex != nil)
            sampleTable = table
            return
        }
        throw NALUError(.missing, field: "trak", byteOffset: movie.offset, detail: "no avc1, avc3, hvc1 or hev1 video track")
    }

    /// The track in `trak` if it is a video track whose first sample entry is H.264 or H.265.
    private static func videoTrack(_ trak: MP4BoxHeader, in source: Source, fileSize: Int64, isFragmented: Bool) throws
        -> ([MP4SampleDescription], SampleTable, UInt32, (timescale: UInt32, duration: UInt64), [MP4EditListEntry])? {
        let children = try MP4BoxHeader.children(of: trak, in: source, depth: 2)
        guard let mdia = children.first(where: { $0.type == .mdia }) else { return nil }
        let media = try MP4BoxHeader.children(of: mdia, in: source, depth: 3)
        guard let hdlr = media.first(where: { $0.type == .hdlr }),
              try MovieBoxes.handlerType(hdlr, in: source) == .vide else { return nil }
        guard let tkhd = children.first(where: { $0.type == .tkhd }) else {
            throw NALUError(.missing, field: "tkhd", byteOffset: trak.offset, detail: "video trak without tkhd")
        }
        let trackID = try MovieBoxes.trackID(tkhd, in: source)
        guard let mdhd = media.first(where: { $0.type == .mdhd }) else {
            throw NALUError(.missing, field: "mdhd", byteOffset: mdia.offset, detail: "video mdia without mdhd")
        }
        let mediaHeader = try MovieBoxes.mediaHeader(mdhd, in: source)
        guard let minf = media.first(where: { $0.type == .minf }) else {
            throw NALUError(.missing, field: "minf", byteOffset: mdia.offset, detail: "video mdia without minf")
        }
        guard let stbl = try MP4BoxHeader.children(of: minf, in: source, depth: 4).first(where: { $0.type == .stbl }) else {
            throw NALUError(.missing, field: "stbl", byteOffset: minf.offset, detail: "video minf without stbl")
        }
        let tables = try MP4BoxHeader.children(of: stbl, in: source, depth: 5)
        guard let stsd = tables.first(where: { $0.type == .stsd }) else {
            throw NALUError(.missing, field: "stsd", byteOffset: stbl.offset, detail: "video sample table without stsd")
        }
        let entries = try MovieBoxes.sampleDescriptions(stsd, in: source, depth: 5)
        guard let first = entries.first, let primary = first else { return nil }
        // Further entries of another format are kept as copies of the first: samples that use
        // them cannot be read as H.264/H.265 anyway.
        let descriptions = entries.map { $0 ?? primary }
        var editList: [MP4EditListEntry] = []
        if let edts = children.first(where: { $0.type == .edts }),
           let elst = try MP4BoxHeader.children(of: edts, in: source, depth: 3).first(where: { $0.type == .elst }) {
            editList = try MovieBoxes.editList(elst, in: source)
        }
        let table = try SampleTable(boxes: tables, in: source, fileSize: fileSize, sampleDescriptionCount: descriptions.count,
                                    requireTables: !isFragmented)
        return (descriptions, table, trackID, mediaHeader, editList)
    }

    /// The samples in decoding order: the sample table's, then the fragments'.
    public func samples() -> MP4SampleIterator<Source> {
        MP4SampleIterator(reader: self)
    }

    /// Calls `body` with every sample in decoding order.
    public func forEachSample(_ body: (MP4Sample) throws -> Void) throws {
        var iterator = samples()
        while let sample = try iterator.next() { try body(sample) }
    }

    /// Reads `sample`'s bytes (its length-prefixed NAL units) into `buffer`, replacing its contents.
    public func read(_ sample: MP4Sample, into buffer: inout [UInt8]) throws {
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
        try buffer.withUnsafeMutableBytes { try source.readExactly(at: sample.offset, into: $0, field: "sample") }
    }
}

/// Yields a track's samples in decoding order: the sample table's (ISO/IEC 14496-12 8.5), then
/// those of each movie fragment (8.8) found after `moov`, read one `moof` at a time.
public struct MP4SampleIterator<Source: RandomAccessByteSource> {
    private let reader: MP4VideoTrackReader<Source>
    private var table: SampleTableCursor
    private var inFragments = false
    private var scanPosition: Int64
    private var runs: [TrackRun] = []
    private var runIndex = 0
    private var sampleInRun = 0
    private var dataOffset: Int64 = 0
    private var dts: Int64 = 0
    private var index = 0
    /// Samples the fragments may still declare: one per byte of the file (see `MovieFragment.runs`).
    private var sampleBudget: Int64

    init(reader: MP4VideoTrackReader<Source>) {
        self.reader = reader
        table = SampleTableCursor(table: reader.sampleTable, fileSize: reader.source.size)
        scanPosition = reader.movieBox.end
        sampleBudget = reader.source.size
    }

    /// The next sample, or `nil` after the last.
    public mutating func next() throws -> MP4Sample? {
        if !inFragments {
            if let sample = try table.next() {
                index = sample.index + 1
                return sample
            }
            inFragments = true
            dts = table.dts
            guard reader.track.isFragmented else { return nil }
        }
        let fileSize = reader.source.size
        while true {
            if runIndex < runs.count {
                let run = runs[runIndex]
                if sampleInRun == 0 {
                    if let base = run.baseMediaDecodeTime { dts = base }
                    dataOffset = run.dataOffset
                }
                if sampleInRun < run.sampleCount {
                    let position = sampleInRun
                    let size = run.size(position)
                    let offset = dataOffset
                    let (end, overflow) = offset.addingReportingOverflow(Int64(size))
                    guard !overflow, end <= fileSize else {
                        throw NALUError(.lengthPastEnd, field: "trun", byteOffset: offset,
                                        detail: "sample \(index + 1) of \(size) bytes at \(offset) ends past the \(fileSize)-byte file")
                    }
                    let duration = run.duration(position)
                    let (pts, ptsOverflow) = dts.addingReportingOverflow(Int64(run.compositionOffset(position)))
                    let (nextDTS, dtsOverflow) = dts.addingReportingOverflow(Int64(duration))
                    guard !ptsOverflow, !dtsOverflow else {
                        throw NALUError(.invalidValue, field: "trun.sample_duration", byteOffset: offset,
                                        detail: "decoding time overflows at sample \(index + 1)")
                    }
                    let sample = MP4Sample(index: index, offset: offset, size: Int(size), dts: dts, pts: pts, duration: duration,
                                           isSync: SampleFlags.isSync(run.flags(position)),
                                           sampleDescriptionIndex: run.sampleDescriptionIndex)
                    dts = nextDTS
                    dataOffset = end
                    sampleInRun += 1
                    index += 1
                    return sample
                }
                runIndex += 1
                sampleInRun = 0
                continue
            }
            // The next movie fragment.
            guard scanPosition < fileSize else { return nil }
            let box = try MP4BoxHeader.read(from: reader.source, at: scanPosition, parentEnd: fileSize)
            scanPosition = box.end
            guard box.type == .moof else { continue }
            runs = try MovieFragment.runs(of: box, trackID: reader.track.trackID,
                                          sampleDescriptionCount: reader.track.sampleDescriptions.count, extends: reader.trackExtends,
                                          in: reader.source, fileSize: fileSize, sampleBudget: &sampleBudget)
            runIndex = 0
            sampleInRun = 0
        }
    }
}
