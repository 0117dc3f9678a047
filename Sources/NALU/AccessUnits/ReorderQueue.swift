/// Access units in decoding order waiting for their presentation index: the queue the MP4 and
/// MPEG-TS muxers keep between the splitter and their writers. A ``PresentationOrderer`` decides
/// each picture's presentation index from its picture order count (ITU-T H.264 8.2.1, ITU-T
/// H.265 8.3.1); a picture held back past ``maxPending`` pictures or the caller's byte bound is
/// decided at once, so the queue stays bounded whatever the stream claims.
///
/// Inlinable (and `@usableFromInline`, without which a `package` type's inlinable methods are not
/// specialized in other modules), so each muxer gets a copy specialized for its element type
/// instead of looking up generic metadata at run time for every access unit.
@usableFromInline package struct ReorderQueue<Element> {
    /// One access unit: what the muxer keeps of it, its bytes, and its presentation index once known.
    @usableFromInline package struct Entry {
        @usableFromInline package var element: Element
        @usableFromInline package var size: Int
        @usableFromInline package var presentation: Int?

        @inlinable
        package init(element: Element, size: Int, presentation: Int?) {
            self.element = element
            self.size = size
            self.presentation = presentation
        }
    }

    /// The most pictures that wait for their presentation index (more than any valid stream's
    /// DPB holds: H.264 A.3.1 and H.265 A.4.2 allow at most 16).
    @inlinable package static var maxPending: Int { 64 }

    /// The waiting access units from ``head`` on (the ones before it were removed; dropped from
    /// the array in one step once they are many, so a removal is no array shift per access unit).
    @usableFromInline var entries: [Entry] = []
    @usableFromInline var head = 0
    @usableFromInline var orderer = PresentationOrderer()
    /// The pairs the orderer decided at the last ``append(_:size:poc:reorderLimit:maxBytes:)``
    /// (reused: no allocation per access unit).
    @usableFromInline var decided: [(decodeIndex: Int, presentationIndex: Int)] = []
    /// The decode index of the first waiting access unit.
    @usableFromInline package internal(set) var base = 0
    /// Access units appended so far.
    @usableFromInline package internal(set) var decodeCount = 0
    /// Bytes of the waiting access units.
    @usableFromInline package internal(set) var bytes = 0

    @inlinable package init() {}

    /// The most pictures the orderer currently lets wait.
    @inlinable
    package var window: Int { orderer.window }
    @inlinable
    package var count: Int { entries.count - head }

    /// Appends the next access unit in decoding order and decides what its picture order count
    /// settles; returns its decode index. `poc` `nil`: presentation in decoding order.
    @inlinable @discardableResult
    package mutating func append(_ element: Element, size: Int, poc: PictureOrderCount?, reorderLimit: Int?,
                                 maxBytes: Int) -> Int {
        let decodeIndex = decodeCount
        decodeCount += 1
        if head >= 32 && head * 2 >= entries.count {
            entries.removeSubrange(0..<head)
            head = 0
        }
        entries.append(Entry(element: element, size: size, presentation: nil))
        bytes += size
        let poc = poc ?? PictureOrderCount(value: decodeIndex, startsCodedVideoSequence: false)
        if poc.startsCodedVideoSequence {
            decided.removeAll(keepingCapacity: true)
            orderer.push(poc: poc.value, decodeIndex: decodeIndex, startsSequence: true, reorderLimit: reorderLimit, into: &decided)
            for (index, presentation) in decided { setPresentation(index, presentation) }
        } else if let (index, presentation) = orderer.pushContinuing(poc: poc.value, decodeIndex: decodeIndex, reorderLimit: reorderLimit) {
            // Most pictures: at most one decided, no array emptied and filled.
            setPresentation(index, presentation)
        }
        if count > Self.maxPending || bytes > maxBytes, head < entries.count, entries[head].presentation == nil,
           let (index, presentation) = orderer.force(base) {
            setPresentation(index, presentation)
        }
        return decodeIndex
    }

    /// Changes what is kept of the last appended access unit.
    @inlinable
    package mutating func updateLast(_ body: (inout Element) -> Void) {
        guard count > 0 else { return }
        body(&entries[entries.count - 1].element)
    }

    /// Decides every picture still waiting (the end of the stream).
    @inlinable
    package mutating func flush() {
        for (index, presentation) in orderer.flush() { setPresentation(index, presentation) }
    }

    /// The `offset`-th waiting access unit with its decode index, when it and every one before it
    /// have their presentation index: what a muxer may write next.
    @inlinable
    package func ready(_ offset: Int) -> (entry: Entry, decodeIndex: Int, presentation: Int)? {
        guard offset >= 0, offset < count, let presentation = entries[head + offset].presentation else { return nil }
        return (entries[head + offset], base + offset, presentation)
    }

    /// Drops the first `count` access units (written).
    @inlinable @inline(__always)
    package mutating func removeFirst(_ count: Int) {
        guard count > 0 else { return }
        // By index: a slice of `entries` would retain and release its storage.
        for index in head..<(head + count) { bytes -= entries[index].size }
        head += count
        base += count
    }

    @inlinable @inline(__always)
    mutating func setPresentation(_ decodeIndex: Int, _ presentation: Int) {
        let position = decodeIndex - base
        guard position >= 0, position < count else { return }
        entries[head + position].presentation = presentation
    }
}
