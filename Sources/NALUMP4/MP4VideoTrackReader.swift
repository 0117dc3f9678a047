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

    let context: TrackSampleContext<Source>

    /// Opens the file: finds `moov` and the first video track, and reads its sample table.
    /// - Throws: ``NALUError`` `.missing` (field `moov`, or `trak` when there is no
    ///   H.264/H.265 video track), and any error of a malformed box on the way.
    public init(_ source: Source) throws(NALUError) {
        self.source = source
        let fileSize = source.size
        let movie = try MovieStructure(source)
        fileType = movie.fileType
        movieBox = movie.movieBox
        for trak in movie.children where trak.type == .trak {
            guard let boxes = try TrackBoxes.parse(trak, in: source, wanted: .vide) else { continue }
            let entries = try MovieBoxes.sampleDescriptions(boxes.stsd, in: source, depth: 5)
            guard let first = entries.first, let primary = first else { continue }
            // Further entries of another format are kept as copies of the first: samples that use
            // them cannot be read as H.264/H.265 anyway.
            let descriptions = entries.map { $0 ?? primary }
            let table = try SampleTable(boxes: boxes.tables, in: source, fileSize: fileSize, sampleDescriptionCount: descriptions.count,
                                        requireTables: !movie.isFragmented)
            track = MP4VideoTrack(trackID: boxes.header.trackID, sampleDescription: primary,
                                  additionalSampleDescriptions: Array(descriptions.dropFirst()),
                                  timescale: boxes.media.timescale, duration: boxes.media.duration,
                                  movieTimescale: movie.movieHeader.timescale, movieDuration: movie.fragmentDuration ?? movie.movieHeader.duration,
                                  editList: boxes.editList, sampleTableCount: table.sampleCount, isFragmented: movie.isFragmented)
            context = TrackSampleContext(source: source, trackID: boxes.header.trackID, sampleDescriptionCount: descriptions.count,
                                         sampleTable: table, trackExtends: movie.trackExtends, isFragmented: movie.isFragmented,
                                         fragmentsStart: movie.movieBox.end)
            return
        }
        throw NALUError(.missing, field: "trak", byteOffset: movie.movieBox.offset, detail: "no avc1, avc3, hvc1 or hev1 video track")
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

    /// Reads `sample`'s bytes (its length-prefixed NAL units) into `buffer`, replacing its contents.
    /// - Throws: ``NALUError`` (typed): a sample past the end of the file; the source's error.
    public func read(_ sample: MP4Sample, into buffer: inout [UInt8]) throws(NALUError) {
        try MP4SampleBytes.read(sample, from: source, into: &buffer)
    }
}

/// Yields a track's samples in decoding order: the sample table's (ISO/IEC 14496-12 8.5), then
/// those of each movie fragment (8.8) found after `moov`, read one `moof` at a time.
public struct MP4SampleIterator<Source: RandomAccessByteSource> {
    private let context: TrackSampleContext<Source>
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

    init(context: TrackSampleContext<Source>) {
        self.context = context
        table = SampleTableCursor(table: context.sampleTable, fileSize: context.source.size)
        scanPosition = context.fragmentsStart
        sampleBudget = context.source.size
    }

    /// The next sample, or `nil` after the last.
    /// - Throws: ``NALUError`` (typed): a malformed sample table or movie fragment, naming the field and its byte offset.
    public mutating func next() throws(NALUError) -> MP4Sample? {
        if !inFragments {
            if let sample = try table.next() {
                index = sample.index + 1
                return sample
            }
            inFragments = true
            dts = table.dts
            guard context.isFragmented else { return nil }
        }
        let fileSize = context.source.size
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
            let box = try MP4BoxHeader.read(from: context.source, at: scanPosition, parentEnd: fileSize)
            scanPosition = box.end
            guard box.type == .moof else { continue }
            runs = try MovieFragment.runs(of: box, trackID: context.trackID,
                                          sampleDescriptionCount: context.sampleDescriptionCount, extends: context.trackExtends,
                                          in: context.source, fileSize: fileSize, sampleBudget: &sampleBudget)
            runIndex = 0
            sampleInRun = 0
        }
    }
}
