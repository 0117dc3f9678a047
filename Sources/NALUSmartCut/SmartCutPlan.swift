public import NALU
public import NALUMedia

/// Which access units a smart cut copies and which pictures it re-encodes (issue 34).
///
/// Given the pictures presenting in `[start, end)` (``NALUMedia/TrimIndex`` times):
/// - The copy starts at the first *copy point* in decoding order presenting at or after the
///   start: an IDR picture (ITU-T H.264 7.4.1.2.4; H.265 IDR), or for H.265 a CRA or BLA
///   picture (H.265 7.4.2.4.4), whose leading pictures (presenting before it) are not copied: a
///   CRA's RASL pictures reference pictures before it, and are re-encoded instead. The CRA is then
///   rewritten as a BLA picture (``rewritesCopyPointAsBLA``) so a decoder starts a new coded
///   video sequence there (H.265 8.1.3: NoRaslOutputFlag 1), where the sequence parameter set may
///   change.
/// - The copy runs on in decoding order while every access unit presents before the end: a
///   prefix in decoding order of a group of pictures references nothing after it, so it decodes
///   alone (H.264 8.2.4, H.265 8.3.2: references precede in decoding order).
/// - Every other picture in the range is re-encoded: those presenting before the copy (the
///   *head*) and those after it (the *tail*), each as a closed GOP starting with an IDR picture.
public struct SmartCutPlan: Sendable, Hashable {
    /// Decoding-order positions (``NALUMedia/TrimIndex/entries``) of the access units copied.
    public var copied: [Int]
    /// Positions of the pictures re-encoded before the copy, in presentation order.
    public var head: [Int]
    /// Positions of the pictures re-encoded after the copy, in presentation order.
    public var tail: [Int]
    /// Presentation times of every picture shown, in presentation order (ticks of the index's
    /// time base).
    public var presentationTimes: [Int64]
    /// Whether the first copied access unit is an H.265 CRA picture rewritten as BLA_N_LP.
    public var rewritesCopyPointAsBLA: Bool
    /// The position to start decoding at for the head and the tail (a keyframe), or `nil`.
    public var headDecodeStart: Int?
    public var tailDecodeStart: Int?

    /// Plans the smart cut of `[startTick, endTick)` over `index`.
    /// - Throws: ``NALU/NALUError`` `.invalidValue` `--start` when no picture presents in the
    ///   range; `.missing` `keyframe` when a re-encoded picture has no keyframe to decode from.
    public init(index: TrimIndex, startTick: Int64, endTick: Int64) throws(NALUError) {
        let entries = index.entries
        func inRange(_ entry: TrimIndex.Entry) -> Bool {
            guard let time = entry.presentationTime else { return false }
            return time >= startTick && time < endTick
        }
        let shown = entries.indices.filter { inRange(entries[$0]) }
        guard !shown.isEmpty else {
            throw NALUError(.invalidValue, field: "--start", detail: "no picture presents in the range")
        }
        presentationTimes = shown.compactMap { entries[$0].presentationTime }.sorted()
        func isCopyPoint(_ entry: TrimIndex.Entry) -> Bool {
            switch entry.keyframe {
            case .idr?: true
            case .cra?, .bla?: index.codec == .hevc
            default: false
            }
        }
        // The copy point and the run after it.
        var copied: [Int] = []
        var rewrite = false
        if let first = entries.indices.first(where: { isCopyPoint(entries[$0]) && inRange(entries[$0]) }),
           let keyTime = entries[first].presentationTime {
            for position in first..<entries.count {
                let entry = entries[position]
                guard let time = entry.presentationTime else {
                    copied.append(position)
                    continue
                }
                if time >= endTick { break }
                // The copy point's leading pictures (RASL/RADL) are re-encoded instead; trailing
                // pictures never reference them (H.265 8.3.2).
                if position > first && time < keyTime { continue }
                copied.append(position)
            }
            rewrite = index.codec == .hevc && entries[first].keyframe == .cra
        }
        self.copied = copied
        rewritesCopyPointAsBLA = rewrite
        let copiedSet = Set(copied)
        let copiedTimes = copied.compactMap { entries[$0].presentationTime }
        let low = copiedTimes.min() ?? Int64.max
        let high = copiedTimes.max() ?? Int64.min
        let rest = shown.filter { !copiedSet.contains($0) }.sorted { (entries[$0].presentationTime ?? 0) < (entries[$1].presentationTime ?? 0) }
        // Nothing copied (no copy point in the range): every picture is re-encoded as one GOP.
        head = copied.isEmpty ? rest : rest.filter { (entries[$0].presentationTime ?? 0) < low }
        tail = copied.isEmpty ? [] : rest.filter { (entries[$0].presentationTime ?? 0) > high }
        guard head.count + tail.count == rest.count else {
            throw NALUError(.unsupported, field: "smart cut",
                            detail: "pictures that cannot be copied present between copied ones; cut at another time")
        }
        func decodeStart(_ pictures: [Int]) throws(NALUError) -> Int? {
            guard let earliest = pictures.min(),
                  let firstTime = pictures.compactMap({ entries[$0].presentationTime }).min() else { return nil }
            // The last keyframe before them in decoding order that presents no later than they do
            // (so none of them is one of its undecodable leading pictures).
            var found: Int?
            for position in 0...earliest where entries[position].keyframe != nil {
                if let time = entries[position].presentationTime, time <= firstTime { found = position }
            }
            guard let found else {
                throw NALUError(.missing, field: "keyframe", detail: "no keyframe to decode access unit \(earliest) from")
            }
            return found
        }
        headDecodeStart = try decodeStart(head)
        tailDecodeStart = try decodeStart(tail)
    }

    /// Pictures shown.
    public var pictureCount: Int { presentationTimes.count }
}

