/// Gives pictures presentation indices from their picture order counts, the way a decoder's
/// output process orders them ("bumping", ITU-T H.264 C.4.5.3, H.265 C.5.2.2): pictures wait
/// in a small buffer and the one with the smallest count leaves when more pictures wait than
/// the sequence may reorder (`max_num_reorder_frames`, `sps_max_num_reorder_pics`; 16, the
/// most any stream may, when the SPS does not say), or when its coded video sequence ends.
///
/// Within a coded video sequence the indices follow picture order count; sequences follow each
/// other. A stream that reorders by more than the buffer holds still gets every index exactly
/// once, so timestamps stay unique.
///
/// Shared by the MP4 muxer (composition offsets) and the transport stream muxer (PTS/DTS).
@usableFromInline package struct PresentationOrderer: Sendable {
    /// Pictures that may wait: the sequence's reorder limit.
    @usableFromInline package private(set) var window: Int
    private var waiting: [(poc: Int, decodeIndex: Int)] = []
    /// The presentation index the next decided picture gets.
    package private(set) var nextIndex = 0

    @usableFromInline package init(window: Int = 16) { self.window = window }

    /// Adds a picture; returns the (decode index, presentation index) pairs now decided.
    /// - Parameter reorderLimit: for the first picture of a sequence, how many pictures the
    ///   sequence may reorder (0...16).
    package mutating func push(poc: Int, decodeIndex: Int, startsSequence: Bool, reorderLimit: Int? = nil) -> [(decodeIndex: Int, presentationIndex: Int)] {
        var decided: [(decodeIndex: Int, presentationIndex: Int)] = []
        push(poc: poc, decodeIndex: decodeIndex, startsSequence: startsSequence, reorderLimit: reorderLimit, into: &decided)
        return decided
    }

    /// ``push(poc:decodeIndex:startsSequence:reorderLimit:)`` appending the decided pairs to
    /// `decided` (an array the caller reuses: no allocation per picture).
    @usableFromInline package mutating func push(poc: Int, decodeIndex: Int, startsSequence: Bool, reorderLimit: Int?,
                                                 into decided: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        if startsSequence { while !waiting.isEmpty { decided.append(bump()) } }
        if startsSequence || waiting.isEmpty, let reorderLimit { window = min(16, max(0, reorderLimit)) }
        waiting.append((poc, decodeIndex))
        while waiting.count > window { decided.append(bump()) }
    }

    /// Decides every waiting picture, in picture order count order.
    @usableFromInline package mutating func flush() -> [(decodeIndex: Int, presentationIndex: Int)] {
        var decided: [(decodeIndex: Int, presentationIndex: Int)] = []
        while !waiting.isEmpty { decided.append(bump()) }
        return decided
    }

    /// Decides the picture `decodeIndex` now, whatever its count (for streams that hold a picture
    /// back longer than any valid stream can).
    @usableFromInline package mutating func force(_ decodeIndex: Int) -> (decodeIndex: Int, presentationIndex: Int)? {
        guard let position = waiting.firstIndex(where: { $0.decodeIndex == decodeIndex }) else { return nil }
        waiting.remove(at: position)
        defer { nextIndex += 1 }
        return (decodeIndex, nextIndex)
    }

    private mutating func bump() -> (decodeIndex: Int, presentationIndex: Int) {
        var best = 0
        for index in waiting.indices.dropFirst() where waiting[index].poc < waiting[best].poc { best = index }
        let picture = waiting.remove(at: best)
        defer { nextIndex += 1 }
        return (picture.decodeIndex, nextIndex)
    }
}
