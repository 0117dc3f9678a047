import NALU
@testable import NALUMP4

/// A box tree for building and editing MP4 files in tests.
indirect enum TestBox: Equatable {
    case leaf(String, [UInt8])
    case container(String, [TestBox])

    static let containerTypes: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf"]

    var type: String {
        switch self {
        case .leaf(let type, _), .container(let type, _): type
        }
    }

    /// The box's bytes, with a 32-bit size (or `largesize` when asked).
    func bytes(largeSize: Bool = false) -> [UInt8] {
        var payload: [UInt8]
        switch self {
        case .leaf(_, let bytes): payload = bytes
        case .container(_, let children): payload = children.flatMap { $0.bytes() }
        }
        var out: [UInt8] = []
        if largeSize {
            out += be32(1) + FourCC(type).bytes + be64(UInt64(payload.count + 16))
        } else {
            out += be32(UInt32(payload.count + 8)) + FourCC(type).bytes
        }
        return out + payload
    }

    /// Parses boxes from `bytes` (containers by type).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [TestBox] {
        var boxes: [TestBox] = []
        var position = bytes.startIndex
        while bytes.endIndex - position >= 8 {
            let size = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            let end = size == 0 ? bytes.endIndex : position + size
            let payload = bytes[(position + 8)..<end]
            boxes.append(containerTypes.contains(type) ? .container(type, parse(payload)) : .leaf(type, Array(payload)))
            position = end
        }
        return boxes
    }

    /// The first box at a path like `["moov", "trak", "mdia"]`.
    static func find(_ path: [String], in boxes: [TestBox]) -> TestBox? {
        guard let first = path.first, let box = boxes.first(where: { $0.type == first }) else { return nil }
        if path.count == 1 { return box }
        guard case .container(_, let children) = box else { return nil }
        return find(Array(path.dropFirst()), in: children)
    }

    /// Replaces the box at `path` (the first at each level) with what `transform` returns (`nil` removes it).
    static func edit(_ path: [String], in boxes: [TestBox], _ transform: (TestBox) -> TestBox?) -> [TestBox] {
        guard let first = path.first, let index = boxes.firstIndex(where: { $0.type == first }) else { return boxes }
        var result = boxes
        if path.count == 1 {
            if let replacement = transform(boxes[index]) { result[index] = replacement } else { result.remove(at: index) }
            return result
        }
        guard case .container(let type, let children) = boxes[index] else { return boxes }
        result[index] = .container(type, edit(Array(path.dropFirst()), in: children, transform))
        return result
    }
}

func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
func be64(_ value: UInt64) -> [UInt8] { be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)) }

/// A full box payload: version, flags, then `rest`.
func fullBox(_ rest: [UInt8], version: UInt8 = 0, flags: UInt32 = 0) -> [UInt8] {
    [version, UInt8((flags >> 16) & 0xFF), UInt8((flags >> 8) & 0xFF), UInt8(flags & 0xFF)] + rest
}

/// A small synthetic MP4: `ftyp`, `mdat` holding `sampleSizes` bytes (sample i filled with i),
/// then `moov` with one `avc1` video track whose sample table is built from the arguments.
struct SyntheticMP4 {
    var sampleSizes: [Int]
    var samplesPerChunk: [(firstChunk: UInt32, count: UInt32)] = [(1, 1)]
    var chunkCount: Int? = nil
    var co64 = false
    var sizeBox: (([Int]) -> TestBox)? = nil
    var stts: [(UInt32, UInt32)] = []
    var ctts: (version: UInt8, entries: [(UInt32, Int32)])? = nil
    var stss: [UInt32]? = nil
    var avcC: [UInt8]
    var extraTracksBefore: [TestBox] = []

    /// The file and the offset of each sample.
    func build() -> (bytes: [UInt8], offsets: [Int64]) {
        let ftyp = TestBox.leaf("ftyp", FourCC("isom").bytes + be32(512) + FourCC("isom").bytes)
        var data: [UInt8] = []
        var offsets: [Int64] = []
        let mdatStart = ftyp.bytes().count + 8
        for (index, size) in sampleSizes.enumerated() {
            offsets.append(Int64(mdatStart + data.count))
            data += [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
        }
        // Chunks: walk stsc over the samples.
        var chunkOffsets: [UInt64] = []
        var sample = 0
        var chunk = 1
        while sample < sampleSizes.count || (chunkCount.map { chunkOffsets.count < $0 } ?? false) {
            let perChunk = Int(samplesPerChunk.last { $0.firstChunk <= UInt32(chunk) }?.count ?? 1)
            chunkOffsets.append(UInt64(sample < offsets.count ? offsets[sample] : Int64(mdatStart + data.count)))
            sample += perChunk
            chunk += 1
            if chunkOffsets.count > 10_000 { break }
        }
        if let chunkCount { chunkOffsets = Array(chunkOffsets.prefix(chunkCount)) }
        let mdat = TestBox.leaf("mdat", data)
        let entry = TestBox.leaf("avc1", visualSampleEntryFields(width: 176, height: 144) + TestBox.leaf("avcC", avcC).bytes())
        var stblChildren: [TestBox] = [.leaf("stsd", fullBox(be32(1) + entry.bytes()))]
        let sttsEntries: [UInt8] = stts.flatMap { be32($0.0) + be32($0.1) }
        stblChildren.append(.leaf("stts", fullBox(be32(UInt32(stts.count)) + sttsEntries)))
        if let ctts {
            let entries: [UInt8] = ctts.entries.flatMap { be32($0.0) + be32(UInt32(bitPattern: $0.1)) }
            stblChildren.append(.leaf("ctts", fullBox(be32(UInt32(ctts.entries.count)) + entries, version: ctts.version)))
        }
        if let stss { stblChildren.append(.leaf("stss", fullBox(be32(UInt32(stss.count)) + stss.flatMap(be32)))) }
        let stscEntries: [UInt8] = samplesPerChunk.flatMap { be32($0.firstChunk) + be32($0.count) + be32(1) }
        stblChildren.append(.leaf("stsc", fullBox(be32(UInt32(samplesPerChunk.count)) + stscEntries)))
        let sizeEntries: [UInt8] = sampleSizes.flatMap { be32(UInt32($0)) }
        stblChildren.append(sizeBox?(sampleSizes) ?? .leaf("stsz", fullBox(be32(0) + be32(UInt32(sampleSizes.count)) + sizeEntries)))
        let offsetEntries: [UInt8] = co64 ? chunkOffsets.flatMap(be64) : chunkOffsets.flatMap { be32(UInt32($0)) }
        stblChildren.append(.leaf(co64 ? "co64" : "stco", fullBox(be32(UInt32(chunkOffsets.count)) + offsetEntries)))
        let trak = TestBox.container("trak", [
            .leaf("tkhd", fullBox(be32(0) + be32(0) + be32(7) + be32(0) + be32(0) + [UInt8](repeating: 0, count: 60))),
            .container("mdia", [
                .leaf("mdhd", fullBox(be32(0) + be32(0) + be32(90000) + be32(UInt32(sampleSizes.count * 3000)) + be32(0))),
                .leaf("hdlr", fullBox(be32(0) + FourCC("vide").bytes + [UInt8](repeating: 0, count: 13))),
                .container("minf", [.container("stbl", stblChildren)]),
            ]),
        ])
        let mvhd = TestBox.leaf("mvhd", fullBox(be32(0) + be32(0) + be32(1000) + be32(0) + [UInt8](repeating: 0, count: 80)))
        let moov = TestBox.container("moov", [mvhd] + extraTracksBefore + [trak])
        return (ftyp.bytes() + mdat.bytes() + moov.bytes(), offsets)
    }
}

/// The 78 bytes of a VisualSampleEntry before its boxes (ISO/IEC 14496-12 12.1.3.2).
func visualSampleEntryFields(width: UInt16, height: UInt16) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 16)
    bytes += be16(width) + be16(height) + be32(0x0048_0000) + be32(0x0048_0000) + be32(0) + be16(1)
    bytes += [UInt8](repeating: 0, count: 32) + be16(24) + be16(0xFFFF)
    return bytes
}
