public import NALU

/// The header of an ISO BMFF box (ISO/IEC 14496-12 4.2 "Object structure"): a 32-bit size and a
/// four-character type, a 64-bit `largesize` when the size is 1, a 16-byte `usertype` for
/// `uuid` boxes; size 0 means the box runs to the end of the file (top level only).
///
/// ``read(from:at:parentEnd:parent:depth:)`` checks every size against the box's parent, so a
/// box never claims bytes outside the box (or file) that holds it.
public struct MP4BoxHeader: Hashable, Sendable, CustomStringConvertible {
    /// Boxes nest at most this deep: deeper structures are rejected rather than followed.
    public static let maxDepth = 16
    /// A box holds at most this many child boxes. ISO/IEC 14496-12 sets no count, but the
    /// containers read here hold a handful (a `moov` one `trak` per track, a `traf` one `trun`
    /// per run); a `moov` of millions of empty children would otherwise cost ~40 bytes of
    /// memory per 8 bytes of file. 65,536 headers are under 3 MiB.
    public static let maxChildren = 1 << 16

    /// The box type.
    public let type: FourCC
    /// Offset of the box's first byte in the file.
    public let offset: Int64
    /// Size of the whole box, header included.
    public let size: Int64
    /// Size of the header: 8, 16 with `largesize`, plus 16 for a `uuid` type.
    public let headerSize: Int
    /// The 16-byte `usertype` of a `uuid` box.
    public let userType: [UInt8]?

    public init(type: FourCC, offset: Int64, size: Int64, headerSize: Int, userType: [UInt8]? = nil) {
        self.type = type
        self.offset = offset
        self.size = size
        self.headerSize = headerSize
        self.userType = userType
    }

    /// Offset of the first byte after the header.
    public var payloadOffset: Int64 { offset + Int64(headerSize) }
    /// Bytes after the header.
    public var payloadSize: Int64 { size - Int64(headerSize) }
    /// Offset just past the box.
    public var end: Int64 { offset + size }

    public var description: String { "\(type) at \(offset), \(size) bytes" }

    /// Reads the header of the box at `offset`, inside a parent that ends at `parentEnd` (the file
    /// size at the top level).
    ///
    /// - Parameters:
    ///   - parent: the parent box's type (`nil` at the top level), for error messages and for
    ///     size 0, which only the top level allows.
    ///   - depth: how many boxes enclose this one; more than ``maxDepth`` is an error.
    /// - Throws: ``NALUError`` `.truncated` when fewer than 8 (or 16) header bytes remain,
    ///   `.lengthPastEnd` when the size runs past the parent, `.invalidValue` for sizes smaller
    ///   than the header or 0 inside a box, `.tooLarge` past the depth limit.
    public static func read(from source: some RandomAccessByteSource, at offset: Int64, parentEnd: Int64,
                            parent: FourCC? = nil, depth: Int = 0) throws(NALUError) -> MP4BoxHeader {
        let context = parent.map { "\($0) child box" } ?? "box"
        guard depth <= maxDepth else {
            throw NALUError(.tooLarge, field: "\(context) nesting", byteOffset: offset, detail: "more than \(maxDepth) levels")
        }
        let available = parentEnd - offset
        guard offset >= 0, available >= 8 else {
            throw NALUError(.truncated, field: "\(context) header", byteOffset: offset,
                            detail: "\(max(0, available)) bytes left, a box header needs 8")
        }
        var raw = [UInt8](repeating: 0, count: 16)
        let want = available >= 16 ? 16 : 8
        try raw.withMutableBytes { (buffer) throws(NALUError) in
            try source.readExactly(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), field: "\(context) header")
        }
        let size32 = UInt32(raw[0]) << 24 | UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8 | UInt32(raw[3])
        let type = FourCC(rawValue: UInt32(raw[4]) << 24 | UInt32(raw[5]) << 16 | UInt32(raw[6]) << 8 | UInt32(raw[7]))
        var headerSize = 8
        var size: Int64
        switch size32 {
        case 0:
            guard parent == nil else {
                throw NALUError(.invalidValue, field: "\(type).size", byteOffset: offset,
                                detail: "size 0 (to the end of the file) inside \(context)")
            }
            size = available
        case 1:
            guard want == 16 else {
                throw NALUError(.truncated, field: "\(type).largesize", byteOffset: offset + 8,
                                detail: "\(available - 8) bytes left, largesize needs 8")
            }
            var large: UInt64 = 0
            for index in 8..<16 { large = large << 8 | UInt64(raw[index]) }
            guard large <= UInt64(Int64.max) else {
                throw NALUError(.lengthPastEnd, field: "\(type).largesize", byteOffset: offset + 8,
                                detail: "\(large) bytes, \(available) left in \(parent.map { "\($0)" } ?? "the file")")
            }
            size = Int64(large)
            headerSize = 16
        default:
            size = Int64(size32)
        }
        // Errors name the field that holds the size: `largesize` when the 32-bit size is 1.
        let sizeField = headerSize == 16 ? (name: "\(type).largesize", offset: offset + 8) : (name: "\(type).size", offset: offset)
        if type == .uuid { headerSize += 16 }
        guard size >= Int64(headerSize) else {
            throw NALUError(.invalidValue, field: sizeField.name, byteOffset: sizeField.offset,
                            detail: "\(size) bytes is smaller than its \(headerSize)-byte header")
        }
        guard size <= available else {
            throw NALUError(.lengthPastEnd, field: sizeField.name, byteOffset: sizeField.offset,
                            detail: "\(size) bytes, \(available) left in \(parent.map { "\($0)" } ?? "the file")")
        }
        var userType: [UInt8]?
        if type == .uuid {
            userType = try source.readBytes(at: offset + Int64(headerSize - 16), count: 16, field: "uuid.usertype")
        }
        return MP4BoxHeader(type: type, offset: offset, size: size, headerSize: headerSize, userType: userType)
    }

    /// The headers of the boxes inside `parent`'s payload (or inside `range` at the top level),
    /// in file order.
    /// - Throws: ``NALUError`` (typed): what ``read(from:at:parentEnd:parent:depth:)`` throws; `.tooLarge` past ``maxChildren``.
    public static func children(of parent: MP4BoxHeader, in source: some RandomAccessByteSource, depth: Int) throws(NALUError) -> [MP4BoxHeader] {
        try children(from: parent.payloadOffset, to: parent.end, in: source, parent: parent.type, depth: depth)
    }

    /// The headers of the boxes from `start` to `end`.
    static func children(from start: Int64, to end: Int64, in source: some RandomAccessByteSource,
                         parent: FourCC?, depth: Int) throws(NALUError) -> [MP4BoxHeader] {
        var boxes: [MP4BoxHeader] = []
        var position = start
        while position < end {
            // Some writers pad a container with fewer than 8 zero bytes (QuickTime's 32-bit terminator).
            if parent != nil, end - position < 8 { break }
            guard boxes.count < maxChildren else {
                throw NALUError(.tooLarge, field: "\(parent.map { "\($0)" } ?? "file") children", byteOffset: position,
                                detail: "more than \(maxChildren) child boxes")
            }
            let box = try read(from: source, at: position, parentEnd: end, parent: parent, depth: depth)
            boxes.append(box)
            position = box.end
        }
        return boxes
    }
}
