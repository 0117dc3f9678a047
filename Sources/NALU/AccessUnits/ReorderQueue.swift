/// Access units in decoding order waiting for their presentation index: the queue the MP4 and
/// MPEG-TS muxers keep between the splitter and their writers. A ``PresentationOrderer`` decides
/// each picture's presentation index from its picture order count (ITU-T H.264 8.2.1, ITU-T
/// H.265 8.3.1); a picture held back past ``maxPending`` pictures or the caller's byte bound is
/// decided at once, so the queue stays bounded whatever the stream claims.
package struct ReorderQueue<Element> {
    /// One access unit: what the muxer keeps of it, its bytes, and its presentation index once known.
    package struct Entry {
        package var element: Element
        package var size: Int
        package var presentation: Int?
    }

    /// The most pictures that wait for their presentation index (more than any valid stream's
    /// DPB holds: H.264 A.3.1 and H.265 A.4.2 allow at most 16).
    package static var maxPending: Int { 64 }

    private var entries: [Entry] = []
    private var orderer = PresentationOrderer()
    /// The decode index of the first waiting access unit.
    package private(set) var base = 0
    /// Access units appended so far.
    package private(set) var decodeCount = 0
    /// Bytes of the waiting access units.
    package private(set) var bytes = 0

    package init() {}

    /// The most pictures the orderer currently lets wait.
    package var window: Int { orderer.window }
    package var count: Int { entries.count }

    /// Appends the next access unit in decoding order and decides what its picture order count
    /// settles; returns its decode index. `poc` `nil`: presentation in decoding order.
    @discardableResult
    package mutating func append(_ element: Element, size: Int, poc: PictureOrderCount?, reorderLimit: Int?,
                                 maxBytes: Int) -> Int {
        let decodeIndex = decodeCount
        decodeCount += 1
        entries.append(Entry(element: element, size: size, presentation: nil))
        bytes += size
        let poc = poc ?? PictureOrderCount(value: decodeIndex, startsCodedVideoSequence: false)
        for (index, presentation) in orderer.push(poc: poc.value, decodeIndex: decodeIndex, startsSequence: poc.startsCodedVideoSequence,
                                                  reorderLimit: reorderLimit) {
            setPresentation(index, presentation)
        }
        if entries.count > Self.maxPending || bytes > maxBytes, entries.first?.presentation == nil,
           let (index, presentation) = orderer.force(base) {
            setPresentation(index, presentation)
        }
        return decodeIndex
    }

    /// Changes what is kept of the last appended access unit.
    package mutating func updateLast(_ body: (inout Element) -> Void) {
        guard !entries.isEmpty else { return }
        body(&entries[entries.count - 1].element)
    }

    /// Decides every picture still waiting (the end of the stream).
    package mutating func flush() {
        for (index, presentation) in orderer.flush() { setPresentation(index, presentation) }
    }

    /// The `offset`-th waiting access unit with its decode index, when it and every one before it
    /// have their presentation index: what a muxer may write next.
    package func ready(_ offset: Int) -> (entry: Entry, decodeIndex: Int, presentation: Int)? {
        guard offset < entries.count, let presentation = entries[offset].presentation else { return nil }
        return (entries[offset], base + offset, presentation)
    }

    /// Drops the first `count` access units (written).
    package mutating func removeFirst(_ count: Int) {
        guard count > 0 else { return }
        for entry in entries[0..<count] { bytes -= entry.size }
        entries.removeFirst(count)
        base += count
    }

    private mutating func setPresentation(_ decodeIndex: Int, _ presentation: Int) {
        let position = decodeIndex - base
        guard position >= 0, position < entries.count else { return }
        entries[position].presentation = presentation
    }
}
