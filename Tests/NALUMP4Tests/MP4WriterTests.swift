import Foundation
import Testing
import NALU
import NALUIO
@testable import NALUMP4

/// ``MP4Writer`` with samples given directly: the tables it writes read back exactly.
@Suite struct MP4WriterTests {
    let record: [UInt8]
    init() throws { record = try ContainerFixture.remuxRecord("avc_baseline") }

    func configuration(_ layout: MP4Layout, negative: Bool = false, chunkSize: Int = 1 << 20, maxFragmentSize: Int = 16 << 20,
                       large: Bool = false) -> MP4WriterConfiguration {
        MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: record, width: 176, height: 144, timescale: 90000,
                               layout: layout, negativeCompositionOffsets: negative, chunkSize: chunkSize,
                               maxFragmentSize: maxFragmentSize, forceLargeChunkOffsets: large)
    }

    /// Samples: sizes 10…, durations 3000 then 1500, offsets of an I P B B pattern, sync at 0 and 4.
    let sizes = [10, 11, 12, 13, 14, 15, 16]
    let durations: [UInt32] = [3000, 3000, 3000, 3000, 1500, 1500, 1500]
    let offsets: [Int64] = [0, 6000, -3000, -3000, 0, 3000, -1500]
    let sync = [true, false, false, false, true, false, false]

    func write(_ configuration: MP4WriterConfiguration, spool: (any ByteSink & RandomAccessByteSource)? = nil) throws -> (bytes: [UInt8], summary: MP4WriterSummary) {
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration, spool: spool)
        for index in sizes.indices {
            try writer.append([UInt8](repeating: UInt8(index), count: sizes[index]), duration: durations[index],
                              compositionOffset: offsets[index], isSync: sync[index])
        }
        let summary = try writer.finish()
        return (writer.output.bytes, summary)
    }

    @Test(arguments: [MP4Layout.moovAtEnd, .faststart, .fragmented]) func tablesReadBack(layout: MP4Layout) throws {
        let (bytes, summary) = try write(configuration(layout, chunkSize: 30, maxFragmentSize: 40), spool: MemorySpool())
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        let samples = try allSamples(reader)
        #expect(samples.map(\.size) == sizes)
        #expect(samples.map(\.duration) == durations)
        #expect(samples.map(\.isSync) == sync)
        #expect(samples.map(\.dts) == [0, 3000, 6000, 9000, 12000, 13500, 15000])
        // Version 0 offsets shifted by 3000, and an edit list that starts at the first picture.
        let shift: Int64 = layout == .fragmented ? 0 : 3000
        #expect(samples.map(\.compositionOffset) == offsets.map { $0 + shift })
        #expect(reader.track.editList == (layout == .fragmented ? [] : [MP4EditListEntry(segmentDuration: 16500, mediaTime: 3000)]))
        #expect(summary.editMediaTime == (layout == .fragmented ? nil : 3000))
        var buffer: [UInt8] = []
        for sample in samples {
            try reader.read(sample, into: &buffer)
            #expect(buffer == [UInt8](repeating: UInt8(sample.index), count: sizes[sample.index]))
        }
        #expect(summary.samples == 7)
        #expect(summary.syncSamples == 2)
        #expect(summary.duration == 16500)
        #expect(summary.bytes == Int64(bytes.count))
        switch layout {
        case .moovAtEnd: #expect(summary.mediaDataBoxes == 3)     // chunks of 30+ bytes: 10+11+12, 13+14+15, 16
        case .faststart: #expect(summary.mediaDataBoxes == 1)
        case .fragmented: #expect(summary.mediaDataBoxes == 4)    // 40-byte limit: 10+11+12, 13 | 14+15, 16
        }
    }

    @Test func signedOffsetsAndLargeChunkOffsets() throws {
        let (bytes, summary) = try write(configuration(.moovAtEnd, negative: true, large: true))
        let boxes = TestBox.parse(bytes[...])
        let stbl = ["moov", "trak", "mdia", "minf", "stbl"]
        guard case .leaf(_, let ctts)? = TestBox.find(stbl + ["ctts"], in: boxes) else {
            Issue.record("no ctts")
            return
        }
        #expect(ctts.first == 1)  // version 1: signed
        #expect(TestBox.find(stbl + ["co64"], in: boxes) != nil)
        #expect(summary.largeChunkOffsets)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        #expect(try allSamples(reader).map(\.compositionOffset) == offsets)
        // Signed offsets put the first picture at 0 already: no edit list.
        #expect(reader.track.editList.isEmpty)
        #expect(summary.editMediaTime == nil)
    }

    @Test func noReorderingMeansNoCompositionOffsetsOrEditList() throws {
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration(.moovAtEnd))
        for index in 0..<3 { try writer.append([1, 2, 3], duration: 3000, compositionOffset: 0, isSync: index == 0) }
        let summary = try writer.finish()
        let boxes = TestBox.parse(writer.output.bytes[...])
        let stbl = ["moov", "trak", "mdia", "minf", "stbl"]
        #expect(TestBox.find(stbl + ["ctts"], in: boxes) == nil)
        #expect(TestBox.find(["moov", "trak", "edts"], in: boxes) == nil)
        #expect(summary.editMediaTime == nil)
        // Equal sizes: stsz with one sample_size and no table.
        guard case .leaf(_, let stsz)? = TestBox.find(stbl + ["stsz"], in: boxes) else {
            Issue.record("no stsz")
            return
        }
        #expect(stsz == fullBox(be32(3) + be32(3)))
    }

    @Test func misuseIsTyped() throws {
        #expect(throws: NALUError(.missing, field: "spool", detail: "the faststart layout needs a spool for the media data")) {
            _ = try MP4Writer(sink: MemorySink(), configuration: configuration(.faststart))
        }
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration(.moovAtEnd))
        #expect(throws: NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset 4294967296 does not fit 32 bits")) {
            try writer.append([1], duration: 1, compositionOffset: 1 << 32, isSync: true)
        }
        try writer.finish()
        #expect(throws: NALUError(.unsupported, field: "sample", detail: "the writer is finished")) {
            try writer.append([1], duration: 1, compositionOffset: 0, isSync: true)
        }
        let fragmented = try MP4Writer(sink: MemorySink(), configuration: configuration(.fragmented))
        try fragmented.append([1], duration: 1, compositionOffset: 0, isSync: true)
        try fragmented.append([2], duration: 1, compositionOffset: 0, isSync: true)  // writes moov and the first fragment
        #expect(throws: NALUError(.unsupported, field: "decoderConfigurationRecord", detail: "moov is already written")) {
            try fragmented.updateDecoderConfigurationRecord(record)
        }
    }

    /// The spool and the file reader of NALUIO: faststart through a real temporary file.
    @Test func faststartThroughSpoolFile() throws {
        let spool = try SpoolFile(bufferSize: 4096)
        let (bytes, _) = try write(configuration(.faststart), spool: spool)
        #expect(spool.size == Int64(sizes.reduce(0, +)))
        let path = temporaryPath("faststart.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try RandomAccessFile(path: path)
        #expect(file.size == Int64(bytes.count))
        let reader = try MP4VideoTrackReader(file)
        #expect(try allSamples(reader).map(\.size) == sizes)
        #expect(TestBox.parse(bytes[...]).map(\.type) == ["ftyp", "moov", "mdat"])
    }

    @Test func randomAccessFileRefusesPipesAndReadsAtOffsets() throws {
        #expect(throws: NALUError.self) { _ = try RandomAccessFile(path: "/dev/stdin") }
        let path = temporaryPath("bytes")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((0..<100).map { UInt8($0) }).write(to: URL(fileURLWithPath: path))
        let file = try RandomAccessFile(path: path)
        #expect(try file.readBytes(at: 95, count: 5, field: "tail") == [95, 96, 97, 98, 99])
        #expect(throws: NALUError(.lengthPastEnd, field: "tail", byteOffset: 96, detail: "5 bytes, 4 left in 100")) {
            _ = try file.readBytes(at: 96, count: 5, field: "tail")
        }
    }
}

@Suite struct PresentationOrderTests {
    /// Bumping outputs the smallest picture order count once more pictures wait than may be
    /// reordered; a new sequence flushes.
    @Test func bumpingFollowsPictureOrderCount() {
        var orderer = PresentationOrderer()
        // I0 P8 B4 b2 b6 | IDR: decode order with counts.
        let pictures: [(Int, Bool)] = [(0, true), (8, false), (4, false), (2, false), (6, false), (0, true), (4, false), (2, false)]
        var result = [Int](repeating: -1, count: pictures.count)
        for (index, picture) in pictures.enumerated() {
            for (decode, presentation) in orderer.push(poc: picture.0, decodeIndex: index, startsSequence: picture.1, reorderLimit: 2) {
                result[decode] = presentation
            }
        }
        for (decode, presentation) in orderer.flush() { result[decode] = presentation }
        #expect(result == [0, 4, 2, 1, 3, 5, 7, 6])
    }

    @Test func forcedOutputKeepsIndicesUnique() {
        var orderer = PresentationOrderer(window: 16)
        #expect(orderer.push(poc: 100, decodeIndex: 0, startsSequence: true).isEmpty)
        #expect(orderer.push(poc: 1, decodeIndex: 1, startsSequence: false).isEmpty)
        #expect(orderer.force(0)?.presentationIndex == 0)
        #expect(orderer.flush().map(\.presentationIndex) == [1])
    }
}
