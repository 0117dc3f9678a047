import NALU

/// A track's sample table (ISO/IEC 14496-12 8.5 "Sample Tables"), kept as the boxes' own bytes
/// after checking every count against its box: sizes (8.7.3 `stsz`/`stz2`), chunks (8.7.4 `stsc`,
/// 8.7.5 `stco`/`co64`), times (8.6.1.2 `stts`, 8.6.1.3 `ctts`) and sync samples (8.6.2 `stss`).
struct SampleTable: Sendable {
    enum Sizes: Sendable {
        /// `stsz.sample_size` != 0: every sample has this size.
        case constant(UInt32)
        /// `stsz` entries (32 bits) or `stz2` entries of 8 or 16 bits.
        case table(BigEndianTable, width: Int)
        /// `stz2` with 4-bit entries, two per byte, high nibble first.
        case nibbles(BigEndianTable)
    }

    var sampleCount = 0
    var sizes: Sizes = .constant(0)
    /// `stco` (stride 4) or `co64` (stride 8).
    var chunkOffsets = BigEndianTable.empty
    /// `stsc`: first_chunk, samples_per_chunk, sample_description_index.
    var samplesToChunk = BigEndianTable.empty
    /// `stts`: sample_count, sample_delta.
    var timeToSample = BigEndianTable.empty
    /// `ctts`: sample_count, sample_offset (read as signed in both versions, as FFmpeg does).
    var compositionOffsets = BigEndianTable.empty
    /// `stss` sample numbers (1-based, ascending), or `nil` when every sample is a sync sample.
    var syncSamples: [UInt32]?

    /// Parses the sample table boxes among `boxes` (the children of `stbl`), whose `stsd` has
    /// `sampleDescriptionCount` entries.
    init(boxes: [MP4BoxHeader], in source: some RandomAccessByteSource, fileSize: Int64, sampleDescriptionCount: Int,
         requireTables: Bool) throws(NALUError) {
        var haveSizes = false
        for box in boxes {
            switch box.type {
            case .stsz:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                let sampleSize = try reader.u32("sample_size")
                if sampleSize != 0 {
                    let countOffset = reader.fileOffset
                    let count = Int(try reader.u32("sample_count"))
                    // Samples of a constant size cannot hold more bytes than the file.
                    guard Int64(count) <= fileSize / Int64(sampleSize) else {
                        throw NALUError(.invalidValue, field: "stsz.sample_count", byteOffset: countOffset,
                                        detail: "\(count) samples of \(sampleSize) bytes exceed the \(fileSize)-byte file")
                    }
                    sampleCount = count
                    sizes = .constant(sampleSize)
                } else {
                    let count = try reader.entryCount("sample_count", entrySize: 4)
                    sampleCount = count
                    sizes = .table(try BigEndianTable(&reader, count: count, stride: 4, field: "entry_size"), width: 4)
                }
                haveSizes = true
            case .stz2:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                try reader.skip(3, "reserved")
                let fieldSizeOffset = reader.position
                let fieldSize = Int(try reader.u8("field_size"))
                let countOffset = reader.position
                let count = Int(try reader.u32("sample_count"))
                switch fieldSize {
                case 4:
                    let bytes = (count + 1) / 2
                    guard bytes <= reader.remaining else {
                        throw reader.error(.lengthPastEnd, "sample_count", at: countOffset,
                                           "\(count) 4-bit entries need \(bytes) bytes, \(reader.remaining) left")
                    }
                    sizes = .nibbles(try BigEndianTable(&reader, count: bytes, stride: 1, field: "entry_size"))
                case 8, 16:
                    let width = fieldSize / 8
                    guard count <= reader.remaining / width else {
                        throw reader.error(.lengthPastEnd, "sample_count", at: countOffset,
                                           "\(count) entries of \(fieldSize) bits, \(reader.remaining) bytes left")
                    }
                    sizes = .table(try BigEndianTable(&reader, count: count, stride: width, field: "entry_size"), width: width)
                default:
                    throw reader.error(.invalidValue, "field_size", at: fieldSizeOffset, "\(fieldSize); must be 4, 8 or 16")
                }
                sampleCount = count
                haveSizes = true
            case .stco, .co64:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                let stride = box.type == .stco ? 4 : 8
                let count = try reader.entryCount("entry_count", entrySize: stride)
                chunkOffsets = try BigEndianTable(&reader, count: count, stride: stride, field: "chunk_offset")
            case .stsc:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                let count = try reader.entryCount("entry_count", entrySize: 12)
                let table = try BigEndianTable(&reader, count: count, stride: 12, field: "first_chunk")
                var previous: UInt32 = 0
                for index in 0..<count {
                    let first = table.u32(index)
                    guard first > previous else {
                        throw NALUError(.invalidValue, field: "stsc.first_chunk", byteOffset: table.offset(of: index),
                                        detail: "\(first) after \(previous); must start at 1 and increase")
                    }
                    previous = first
                    let description = table.u32(index, field: 8)
                    guard description >= 1 && description <= sampleDescriptionCount else {
                        throw NALUError(.invalidValue, field: "stsc.sample_description_index", byteOffset: table.offset(of: index) + 8,
                                        detail: "\(description), but stsd has \(sampleDescriptionCount) sample \(sampleDescriptionCount == 1 ? "entry" : "entries")")
                    }
                }
                samplesToChunk = table
            case .stts, .ctts:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                let count = try reader.entryCount("entry_count", entrySize: 8)
                let table = try BigEndianTable(&reader, count: count, stride: 8, field: "sample_count")
                if box.type == .stts { timeToSample = table } else { compositionOffsets = table }
            case .stss:
                var reader = try MP4BoxPayloadReader(box, in: source)
                _ = try reader.fullBoxHeader()
                let count = try reader.entryCount("entry_count", entrySize: 4)
                var numbers: [UInt32] = []
                numbers.reserveCapacity(count)
                var sorted = true
                for _ in 0..<count {
                    let number = try reader.u32("sample_number")
                    if let last = numbers.last, number <= last { sorted = false }
                    numbers.append(number)
                }
                if !sorted { numbers.sort() }
                syncSamples = numbers
            default:
                break
            }
        }
        if requireTables {
            guard haveSizes else { throw NALUError(.missing, field: "stsz", detail: "the sample table has no stsz or stz2") }
        }
        if sampleCount > 0 {
            guard chunkOffsets.count > 0 else {
                throw NALUError(.missing, field: "stco", detail: "\(sampleCount) samples but no stco or co64")
            }
            guard samplesToChunk.count > 0 else {
                throw NALUError(.missing, field: "stsc", detail: "\(sampleCount) samples but no stsc")
            }
        }
    }

    init() {}

    /// Size of sample `index` (0-based, below `sampleCount`). Always inlined: called once per
    /// sample by ``SampleTableCursor``, where a call copied the whole table (224 bytes) first.
    @inline(__always)
    func size(of index: Int) -> UInt32 {
        switch sizes {
        case .constant(let size): return size
        case .table(let table, let width): return width == 4 ? table.u32(index) : UInt32(truncatingIfNeeded: table.value(index, width: width))
        case .nibbles(let table):
            let byte = UInt32(truncatingIfNeeded: table.value(index / 2, width: 1))
            return index % 2 == 0 ? byte >> 4 : byte & 0x0F
        }
    }
}

/// Walks a ``SampleTable`` in decoding order in constant time per sample, checking each sample's
/// bytes lie inside the file.
struct SampleTableCursor: Sendable {
    let table: SampleTable
    let fileSize: Int64
    private(set) var index = 0
    private var chunk = -1
    private var stscEntry = 0
    private var leftInChunk = 0
    private var nextOffset: Int64 = 0
    private var sttsEntry = -1
    private var sttsLeft = 0
    private var delta: UInt32 = 0
    private var cttsEntry = -1
    private var cttsLeft = 0
    private var compositionOffset: Int32 = 0
    private var syncIndex = 0
    /// The current `stsc` entry's sample_description_index (read when the entry changes).
    private var descriptionIndex = 1
    private(set) var dts: Int64 = 0

    init(table: SampleTable, fileSize: Int64) {
        self.table = table
        self.fileSize = fileSize
    }

    /// The next sample, or `nil` after the last.
    mutating func next() throws(NALUError) -> MP4Sample? {
        guard index < table.sampleCount else { return nil }
        // Chunk: advance until one holds a sample (samples_per_chunk may be 0).
        while leftInChunk == 0 {
            chunk += 1
            guard chunk < table.chunkOffsets.count else {
                throw NALUError(.lengthPastEnd, field: "stsc", byteOffset: table.samplesToChunk.offset(of: 0),
                                detail: "sample \(index + 1) of \(table.sampleCount) has no chunk: the \(table.chunkOffsets.count) chunks hold fewer samples")
            }
            while stscEntry + 1 < table.samplesToChunk.count, UInt64(chunk + 1) >= UInt64(table.samplesToChunk.u32(stscEntry + 1)) {
                stscEntry += 1
            }
            leftInChunk = Int(table.samplesToChunk.u32(stscEntry, field: 4))
            descriptionIndex = Int(table.samplesToChunk.u32(stscEntry, field: 8))
            let raw = table.chunkOffsets.stride == 4 ? UInt64(table.chunkOffsets.u32(chunk)) : table.chunkOffsets.value(chunk, width: 8)
            guard raw <= UInt64(fileSize) else {
                throw NALUError(.lengthPastEnd, field: table.chunkOffsets.stride == 4 ? "stco.chunk_offset" : "co64.chunk_offset",
                                byteOffset: table.chunkOffsets.offset(of: chunk), detail: "chunk \(chunk + 1) at \(raw), past the \(fileSize)-byte file")
            }
            nextOffset = Int64(raw)
        }
        // Duration: stts runs; past the last run, the last delta continues.
        while sttsLeft == 0 && sttsEntry + 1 < table.timeToSample.count {
            sttsEntry += 1
            sttsLeft = Int(table.timeToSample.u32(sttsEntry))
            delta = table.timeToSample.u32(sttsEntry, field: 4)
        }
        if sttsLeft > 0 { sttsLeft -= 1 }
        // Composition offset: ctts runs; past the last run, 0.
        while cttsLeft == 0 && cttsEntry + 1 < table.compositionOffsets.count {
            cttsEntry += 1
            cttsLeft = Int(table.compositionOffsets.u32(cttsEntry))
            compositionOffset = Int32(bitPattern: table.compositionOffsets.u32(cttsEntry, field: 4))
        }
        var offsetNow: Int32 = 0
        if cttsLeft > 0 {
            cttsLeft -= 1
            offsetNow = compositionOffset
        }
        let size = table.size(of: index)
        let offset = nextOffset
        let (end, overflow) = offset.addingReportingOverflow(Int64(size))
        guard !overflow, end <= fileSize else {
            throw NALUError(.lengthPastEnd, field: "sample", byteOffset: offset,
                            detail: "sample \(index + 1) of \(size) bytes at \(offset) ends past the \(fileSize)-byte file")
        }
        var isSync = true
        if let sync = table.syncSamples {
            let number = UInt32(truncatingIfNeeded: index + 1)
            while syncIndex < sync.count && sync[syncIndex] < number { syncIndex += 1 }
            isSync = syncIndex < sync.count && sync[syncIndex] == number
        }
        let (pts, ptsOverflow) = dts.addingReportingOverflow(Int64(offsetNow))
        let (nextDTS, dtsOverflow) = dts.addingReportingOverflow(Int64(delta))
        guard !ptsOverflow, !dtsOverflow else {
            throw NALUError(.invalidValue, field: "stts.sample_delta", byteOffset: table.timeToSample.offset(of: max(0, sttsEntry)),
                            detail: "decoding time overflows at sample \(index + 1)")
        }
        let sample = MP4Sample(index: index, offset: offset, size: Int(size), dts: dts, pts: pts,
                               duration: delta, isSync: isSync, sampleDescriptionIndex: descriptionIndex)
        nextOffset = end
        leftInChunk -= 1
        index += 1
        dts = nextDTS
        return sample
    }
}
