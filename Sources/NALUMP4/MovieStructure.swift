import NALU

/// The movie-level structure every track reader starts from (ISO/IEC 14496-12 4.3, 8.2, 8.8.1):
/// `ftyp`, `moov` and its children, `mvhd`, and `mvex`'s `trex` defaults and `mehd` duration.
struct MovieStructure {
    let fileType: MP4FileType?
    let movieBox: MP4BoxHeader
    let children: [MP4BoxHeader]
    let movieHeader: (timescale: UInt32, duration: UInt64)
    let trackExtends: [UInt32: TrackExtends]
    let fragmentDuration: UInt64?
    let isFragmented: Bool

    /// Reads the top-level boxes up to `moov`, then `moov`'s headers.
    /// - Throws: ``NALUError`` `.missing` for no `moov` or no `mvhd`, and any malformed box's error.
    init(_ source: some RandomAccessByteSource) throws(NALUError) {
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
        children = try MP4BoxHeader.children(of: movie, in: source, depth: 1)
        guard let mvhd = children.first(where: { $0.type == .mvhd }) else {
            throw NALUError(.missing, field: "mvhd", byteOffset: movie.offset, detail: "moov without mvhd")
        }
        movieHeader = try MovieBoxes.movieHeader(mvhd, in: source)
        var extends: [UInt32: TrackExtends] = [:]
        var fragmentDuration: UInt64?
        let mvex = children.first { $0.type == .mvex }
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
        self.fragmentDuration = fragmentDuration
        isFragmented = mvex != nil
    }
}

/// The boxes of one `trak` (ISO/IEC 14496-12 8.3–8.5) every track kind has: `tkhd`, `edts`,
/// `mdia` with `mdhd`, `hdlr`, `minf` and its `stbl` children.
struct TrackBoxes {
    let header: MovieBoxes.TrackHeader
    let handler: FourCC
    let media: MovieBoxes.MediaHeader
    let editList: [MP4EditListEntry]
    /// `minf`'s media information header (`vmhd`, `smhd`, `hmhd`, `sthd`, `nmhd`, QuickTime `gmhd`), if any.
    let mediaInformationHeader: MP4BoxHeader?
    let stsd: MP4BoxHeader
    /// The children of `stbl`.
    let tables: [MP4BoxHeader]
    /// Times, matrix, handler name, user data.
    var metadata = MP4TrackMetadata()

    /// Parses `trak`; `nil` when it has no `mdia` or `hdlr`, or `wanted` is given and its
    /// handler is another. `what` names the track in errors ("video").
    static func parse(_ trak: MP4BoxHeader, in source: some RandomAccessByteSource, wanted: FourCC? = nil) throws(NALUError) -> TrackBoxes? {
        let children = try MP4BoxHeader.children(of: trak, in: source, depth: 2)
        guard let mdia = children.first(where: { $0.type == .mdia }) else { return nil }
        let media = try MP4BoxHeader.children(of: mdia, in: source, depth: 3)
        guard let hdlr = media.first(where: { $0.type == .hdlr }) else { return nil }
        let handler = try MovieBoxes.handlerType(hdlr, in: source)
        if let wanted, handler != wanted { return nil }
        let what = handler == .vide ? "video" : "\(handler)"
        guard let tkhd = children.first(where: { $0.type == .tkhd }) else {
            throw NALUError(.missing, field: "tkhd", byteOffset: trak.offset, detail: "\(what) trak without tkhd")
        }
        let header = try MovieBoxes.trackHeader(tkhd, in: source)
        guard let mdhd = media.first(where: { $0.type == .mdhd }) else {
            throw NALUError(.missing, field: "mdhd", byteOffset: mdia.offset, detail: "\(what) mdia without mdhd")
        }
        let mediaHeader = try MovieBoxes.mediaHeader(mdhd, in: source)
        guard let minf = media.first(where: { $0.type == .minf }) else {
            throw NALUError(.missing, field: "minf", byteOffset: mdia.offset, detail: "\(what) mdia without minf")
        }
        let information = try MP4BoxHeader.children(of: minf, in: source, depth: 4)
        guard let stbl = information.first(where: { $0.type == .stbl }) else {
            throw NALUError(.missing, field: "stbl", byteOffset: minf.offset, detail: "\(what) minf without stbl")
        }
        let tables = try MP4BoxHeader.children(of: stbl, in: source, depth: 5)
        guard let stsd = tables.first(where: { $0.type == .stsd }) else {
            throw NALUError(.missing, field: "stsd", byteOffset: stbl.offset, detail: "\(what) sample table without stsd")
        }
        var editList: [MP4EditListEntry] = []
        if let edts = children.first(where: { $0.type == .edts }),
           let elst = try MP4BoxHeader.children(of: edts, in: source, depth: 3).first(where: { $0.type == .elst }) {
            editList = try MovieBoxes.editList(elst, in: source)
        }
        let mediaInformationHeader = information.first { ["vmhd", "smhd", "hmhd", "sthd", "nmhd", "gmhd"].contains($0.type) }
        var boxes = TrackBoxes(header: header, handler: handler, media: mediaHeader, editList: editList,
                               mediaInformationHeader: mediaInformationHeader, stsd: stsd, tables: tables)
        boxes.metadata = MovieBoxes.trackMetadata(trak: children, media: media, in: source)
        return boxes
    }
}

/// What a sample iterator needs of a track: the file, the sample table, and for fragmented
/// movies the `trex` defaults and where the fragments start.
struct TrackSampleContext<Source: RandomAccessByteSource> {
    let source: Source
    let trackID: UInt32
    let sampleDescriptionCount: Int
    let sampleTable: SampleTable
    let trackExtends: [UInt32: TrackExtends]
    let isFragmented: Bool
    /// Where the search for `moof` boxes starts: the end of `moov`.
    let fragmentsStart: Int64
}
