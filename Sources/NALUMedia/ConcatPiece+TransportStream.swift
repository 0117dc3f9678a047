import NALU

extension ConcatPiece {
    /// What one MPEG-TS input of a join shows of its video, in 90 kHz ticks: every picture at its
    /// own PES times (ISO/IEC 13818-1 2.4.3.7), unwrapped across 2^33 as the join's
    /// ``SampleClock`` will give them (each access unit asked in the same order, at the offset of
    /// its first VCL NAL unit), so a variable frame rate, a gap or B-frames (DTS ≠ PTS) keep their
    /// times. A transport stream has no edit list: the piece shows every picture it keeps, from
    /// its earliest presentation time (no start delay) to the latest picture's end (a picture
    /// lasts until the next one decodes, as the MP4 muxer times it; the last one as long as the
    /// distance before it). The RASL pictures a join drops after a first CRA
    /// (``LeadingPictureFilter``) are neither asked nor counted.
    ///
    /// Reads `source` once (it is used up: the join opens the input again); memory is constant.
    /// `nil` when the input is no transport stream, has no picture with a time, or times past
    /// what a join can add up.
    init?(transportStream source: MediaSource, codec: Codec) throws(NALUError) {
        guard source.container.isTransportStream, let clock = source.sampleClock() else { return nil }
        var splitter = try source.splitter()
        /// H.265: RASL pictures after a first CRA/BLA are dropped until the first trailing picture.
        var dropping: Bool?
        var firstDecode: Int64?
        var previous: (decode: Int64, presentation: Int64)?
        var lastDuration: Int64 = 0
        var earliest = Int64.max
        var latestEnd = Int64.min
        var advance = Int64.min
        var missing = false
        try NALUError.typed(field: "input") { try source.forEachNALUnit { unit in
            let step = try splitter.push(unit)
            guard step.isFirstVCL, !missing else { return }
            if case .hevc(let header) = step.header {
                let type = header.nalUnitType
                if dropping == nil {
                    dropping = type == .cra || type.isBLA
                } else if dropping == true {
                    if type == .raslN || type == .raslR { return }
                    if type != .radlN && type != .radlR { dropping = false }
                }
            }
            guard let timing = clock.timing(at: unit.offset) else {
                // The muxer refuses a picture without a time: the join is timed at a rate.
                missing = true
                return
            }
            if firstDecode == nil { firstDecode = timing.decode }
            if let previous {
                latestEnd = max(latestEnd, previous.presentation &+ max(0, timing.decode &- previous.decode))
            }
            previous = (timing.decode, timing.presentation)
            lastDuration = timing.duration
            earliest = min(earliest, timing.presentation)
            advance = max(advance, timing.decode &- timing.presentation)
        } }
        guard !missing, let firstDecode, let previous else { return nil }
        latestEnd = max(latestEnd, previous.presentation &+ lastDuration)
        let total = previous.decode &- firstDecode &+ lastDuration
        guard latestEnd > earliest,
              Self.timesFit(firstDecode: firstDecode, earliest: earliest, latestEnd: latestEnd, advance: advance, total: total) else { return nil }
        self.firstDecode = firstDecode
        self.total = total
        self.earliest = earliest
        self.latestEnd = latestEnd
        decodeAdvance = advance
        delay = 0
        shownStart = earliest
        shownDuration = latestEnd &- earliest
        isSimple = true
        hiddenBefore = false
        hiddenAfter = false
        edits = [(duration: shownDuration, mediaTime: earliest)]
        // The first picture kept in decoding order presents at or after the earliest.
        lead = earliest &- firstDecode
        guard lead.magnitude <= UInt64(total) else { return nil }
    }
}
