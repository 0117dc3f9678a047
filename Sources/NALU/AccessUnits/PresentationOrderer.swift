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
    /// The waiting pictures from ``waitingHead`` on, sorted by picture order count, pictures of
    /// equal count in decoding order: the next to leave is the first (the one a search for the
    /// smallest count, first of equal ones, in decoding order finds). A picture is inserted
    /// from the end (with B-frames a few places from it) and leaves from the front by moving
    /// ``waitingHead``: no search of the buffer and no shift of it per picture. The left
    /// entries before the head are dropped once they are many.
    private var waiting: [(poc: Int, decodeIndex: Int)] = []
    private var waitingHead = 0
    /// The presentation index the next decided picture gets.
    package private(set) var nextIndex = 0

    @usableFromInline package init(window: Int = 16) { self.window = window }

    /// Pictures waiting.
    private var waitingCount: Int { waiting.count - waitingHead }

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
        if startsSequence { while waitingCount > 0 { decided.append(bump()) } }
        if startsSequence || waitingCount == 0, let reorderLimit { window = min(16, max(0, reorderLimit)) }
        insert(poc: poc, decodeIndex: decodeIndex)
        while waitingCount > window { decided.append(bump()) }
    }

    /// ``push(poc:decodeIndex:startsSequence:reorderLimit:into:)`` for a picture that does not
    /// start a coded video sequence: it decides at most one picture (the buffer held at most
    /// ``window`` before, and the window changes only while it is empty), returned without an
    /// array (the muxers' once-per-picture path).
    @usableFromInline package mutating func pushContinuing(poc: Int, decodeIndex: Int, reorderLimit: Int?) -> (decodeIndex: Int, presentationIndex: Int)? {
        if waitingCount == 0, let reorderLimit { window = min(16, max(0, reorderLimit)) }
        insert(poc: poc, decodeIndex: decodeIndex)
        return waitingCount > window ? bump() : nil
    }

    /// Decides every waiting picture, in picture order count order.
    @usableFromInline package mutating func flush() -> [(decodeIndex: Int, presentationIndex: Int)] {
        var decided: [(decodeIndex: Int, presentationIndex: Int)] = []
        while waitingCount > 0 { decided.append(bump()) }
        return decided
    }

    /// Decides the picture `decodeIndex` now, whatever its count (for streams that hold a picture
    /// back longer than any valid stream can).
    @usableFromInline package mutating func force(_ decodeIndex: Int) -> (decodeIndex: Int, presentationIndex: Int)? {
        guard let position = waiting[waitingHead...].firstIndex(where: { $0.decodeIndex == decodeIndex }) else { return nil }
        waiting.remove(at: position)
        defer { nextIndex += 1 }
        return (decodeIndex, nextIndex)
    }

    /// Inserts a picture after every waiting one whose count is not larger.
    private mutating func insert(poc: Int, decodeIndex: Int) {
        if waitingHead >= 32 && waitingHead * 2 >= waiting.count {
            waiting.removeSubrange(0..<waitingHead)
            waitingHead = 0
        }
        waiting.append((poc, decodeIndex))
        let head = waitingHead
        waiting.withUnsafeMutableBufferPointer { buffer in
            var index = buffer.count - 1
            while index > head && buffer[index - 1].poc > poc {
                buffer[index] = buffer[index - 1]
                index -= 1
            }
            buffer[index] = (poc, decodeIndex)
        }
    }

    /// Removes the waiting picture with the smallest count (the first of equal ones in decoding
    /// order), the first of the sorted buffer, and gives it the next index.
    private mutating func bump() -> (decodeIndex: Int, presentationIndex: Int) {
        let picture = waiting[waitingHead]
        waitingHead += 1
        defer { nextIndex += 1 }
        return (picture.decodeIndex, nextIndex)
    }
}
