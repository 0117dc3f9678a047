import NALU
import NALUMP4

/// What one MP4/MOV input of a join shows of its video track, in ticks of the track's timescale
/// (ISO/IEC 14496-12 8.6.6 `elst` applied), as ``ConcatTiming`` lays it out.
///
/// A piece presents nothing for ``delay`` (its leading empty edits; without an edit list, the
/// composition time of its first picture: a fragmented CMAF file whose video starts at its
/// composition offset), then its media from ``shownStart`` for ``shownDuration``. Pictures outside
/// that range are *hidden*: decoded (other pictures refer to them) but not shown. The RASL
/// pictures a join drops (``LeadingPictureFilter``) are neither.
struct ConcatPiece {
    /// The first sample's decoding time, and the sum of the sample durations.
    var firstDecode: Int64
    var total: Int64
    /// The earliest composition time and the latest composition end of the samples kept.
    var earliest: Int64
    var latestEnd: Int64
    /// Time before the first shown picture (leading empty edits, or the first composition time
    /// without an edit list).
    var delay: Int64
    /// Where the one shown range starts in the media, and how long it lasts (``isSimple``).
    var shownStart: Int64
    var shownDuration: Int64
    /// Whether the piece has one shown range: no edit list, or leading empty edits then one
    /// non-empty edit at normal rate.
    var isSimple: Bool
    /// How far the first sample in decoding order that presents at or after ``shownStart``
    /// decodes before it.
    var lead: Int64
    /// How far a kept sample decodes after it presents, at most (`ctts` version 1 offsets below
    /// zero; 0 or negative when none does).
    var decodeAdvance: Int64
    /// Whether a kept sample presents before the shown range, or at or after its end.
    var hiddenBefore: Bool
    var hiddenAfter: Bool
    /// The piece's edits (durations in these ticks, `mediaTime` −1 for an empty edit), for a
    /// piece laid out edit by edit.
    var edits: [(duration: Int64, mediaTime: Int64)]

    /// Reads `source`'s video sample table (one pass, nothing kept per sample) and edit list;
    /// `nil` when it has no MP4 video track, no samples, or times past what a join can add up.
    init?(_ source: MediaSource, codec: Codec) throws(NALUError) {
        guard let reader = source.mp4, reader.track.timescale > 0, reader.track.movieTimescale > 0 else { return nil }
        let track = reader.track
        let movieScale = Int64(track.movieTimescale), scale = Int64(track.timescale)
        // The edits in the track's ticks (an edit of duration 0, as a fragmented file writes
        // it, is the whole media from its media_time: its end is known after the samples).
        var edits: [(duration: Int64, mediaTime: Int64)] = []
        for edit in track.editList {
            guard let movieTicks = CheckedNumber.int64(edit.segmentDuration),
                  let duration = Self.nearest(movieTicks, from: movieScale, to: scale),
                  edit.mediaTime >= -1, edit.mediaTime <= Int64.max / 4, duration <= Int64.max / 4,
                  edit.mediaRateInteger == 1 || edit.mediaTime == -1 else { return nil }
            edits.append((duration, edit.mediaTime))
        }
        let firstShown = edits.first { $0.mediaTime >= 0 }
        let start = firstShown?.mediaTime
        let end = firstShown.flatMap { $0.duration > 0 ? $0.mediaTime &+ $0.duration : nil }
        let dropped = try Self.droppedLeadingSamples(reader, codec: codec)
        var firstDecode: Int64?
        var total: Int64 = 0
        var earliest = Int64.max
        var latestEnd = Int64.min
        var advance = Int64.min
        var before = false, after = false
        /// The first kept sample in decoding order presenting at or after the shown start
        /// (without an edit list: the first kept one, and the first at or after 0).
        var firstKept: Int64?, firstAtStart: Int64?, firstAtZero: Int64?
        try NALUError.typed(field: "samples") { try reader.forEachSample { sample in
            if firstDecode == nil { firstDecode = sample.dts }
            total &+= Int64(sample.duration)
            guard !dropped.contains(sample.index) else { return }
            earliest = min(earliest, sample.pts)
            latestEnd = max(latestEnd, sample.pts &+ Int64(sample.duration))
            advance = max(advance, sample.dts &- sample.pts)
            if firstKept == nil { firstKept = sample.dts }
            if firstAtZero == nil, sample.pts >= 0 { firstAtZero = sample.dts }
            if let start {
                if sample.pts < start { before = true } else if firstAtStart == nil { firstAtStart = sample.dts }
            }
            if let end, sample.pts >= end { after = true }
        } }
        guard let firstDecode, let firstKept,
              Self.timesFit(firstDecode: firstDecode, earliest: earliest, latestEnd: latestEnd, advance: advance, total: total) else { return nil }
        self.firstDecode = firstDecode
        self.total = total
        self.earliest = earliest
        self.latestEnd = latestEnd
        decodeAdvance = advance
        for index in edits.indices where edits[index].mediaTime >= 0 && edits[index].duration == 0 {
            edits[index].duration = max(0, latestEnd &- edits[index].mediaTime)
        }
        if edits.isEmpty {
            // No edit list: the media timeline is the presentation, nothing before the first picture.
            let origin = max(0, earliest)
            edits = origin > 0 ? [(duration: origin, mediaTime: Int64(-1))] : []
            edits.append((latestEnd &- origin, origin))
            before = earliest < 0
            firstAtStart = earliest < 0 ? firstAtZero : firstKept
        }
        self.edits = edits
        let leading = edits.prefix { $0.mediaTime == -1 }
        delay = leading.reduce(0) { $0 &+ $1.duration }
        let rest = edits.dropFirst(leading.count)
        isSimple = rest.count == 1
        shownStart = rest.first?.mediaTime ?? 0
        shownDuration = rest.first?.duration ?? 0
        hiddenBefore = before
        hiddenAfter = after
        lead = shownStart &- (firstAtStart ?? shownStart)
        guard lead.magnitude <= UInt64(total) else { return nil }
    }

    /// `value × to / from` rounded to the nearest tick; `nil` past 64 bits.
    static func nearest(_ value: Int64, from: Int64, to: Int64) -> Int64? {
        guard let twice = CheckedNumber.product(value, 2), let scaled = CheckedNumber.rescale(twice, from: from, to: to) else { return nil }
        return scaled >= 0 ? (scaled &+ 1) / 2 : (scaled &- 1) / 2
    }

    /// Every kept time multiplied by `factor` (the output's ticks per tick of the piece's);
    /// `nil` past what a join can add up.
    func scaled(by factor: Int64) -> ConcatPiece? {
        guard factor != 1 else { return self }
        let limit = UInt64(Int64.max / 4 / factor)
        var values = [firstDecode, total, earliest, latestEnd, delay, shownStart, shownDuration, lead, decodeAdvance]
        values += edits.flatMap { [$0.duration, $0.mediaTime] }
        guard values.allSatisfy({ $0.magnitude <= limit }) else { return nil }
        var piece = self
        piece.firstDecode *= factor
        piece.total *= factor
        piece.earliest *= factor
        piece.latestEnd *= factor
        piece.delay *= factor
        piece.shownStart *= factor
        piece.shownDuration *= factor
        piece.lead *= factor
        piece.decodeAdvance *= factor
        piece.edits = edits.map { ($0.duration * factor, $0.mediaTime == -1 ? -1 : $0.mediaTime * factor) }
        return piece
    }

    /// The decoding positions of the RASL pictures a join drops from the start of an H.265
    /// input (``LeadingPictureFilter``): those that follow a first CRA or BLA picture in
    /// decoding order, before its first trailing picture (H.265 7.4.2.2: leading pictures
    /// precede the trailing ones). Empty for H.264 and for inputs that start with an IDR.
    static func droppedLeadingSamples(_ reader: MP4VideoTrackReader<AnyRandomAccessSource>, codec: Codec) throws(NALUError) -> Set<Int> {
        guard codec == .hevc else { return [] }
        var dropped: Set<Int> = []
        var iterator = reader.samples()
        var buffer: [UInt8] = []
        var first = true
        while let sample = try iterator.next() {
            try reader.read(sample, into: &buffer)
            guard let type = try firstSliceType(buffer, lengthSize: reader.track.lengthSize, offset: sample.offset) else { break }
            if first {
                guard type == .cra || type.isBLA else { return [] }
                first = false
                continue
            }
            if type == .raslN || type == .raslR {
                dropped.insert(sample.index)
            } else if type != .radlN && type != .radlR {
                break
            }
        }
        return dropped
    }

    /// The `nal_unit_type` of the first VCL NAL unit of a sample of length-prefixed H.265 NAL
    /// units (ISO/IEC 14496-15 5.3.2; walked by ``NALU/LengthPrefixed``), `nil` when it has none.
    /// - Throws: ``NALUError`` naming the NAL unit length and its byte offset in the file
    ///   (`offset`: the sample's) when a length runs past the sample, or a header that is no
    ///   H.265 NAL unit header.
    static func firstSliceType(_ bytes: [UInt8], lengthSize: Int, offset: Int64) throws(NALUError) -> HEVCNALUnitType? {
        var found: HEVCNALUnitType?
        try NALUError.typed(field: "sample") { try bytes.withUnsafeBytes { buffer in
            try LengthPrefixed.forEachNALUnit(in: buffer, lengthSize: lengthSize, baseOffset: offset, within: "sample") { unit in
                guard found == nil, unit.count >= 2 else { return }
                let header = try HEVCNALUnitHeader(unit.bytes)
                if header.nalUnitType.isVCL { found = header.nalUnitType }
            }
        } }
        return found
    }

    /// Whether a piece's times leave room to be laid end to end with others: a positive length
    /// and every time within a quarter of `Int64`, so sums of a join's pieces cannot overflow.
    static func timesFit(firstDecode: Int64, earliest: Int64, latestEnd: Int64, advance: Int64, total: Int64) -> Bool {
        total > 0 && total <= Int64.max / 4
            && [firstDecode, earliest, latestEnd, advance].allSatisfy { $0.magnitude <= UInt64(Int64.max / 4) }
    }
}
