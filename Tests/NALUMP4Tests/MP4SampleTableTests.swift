import Testing
import NALU
@testable import NALUMP4

/// Sample tables built by hand: every layout ISO/IEC 14496-12 8.6–8.7 allows, not only FFmpeg's.
@Suite struct MP4SampleTableTests {
    let avcC: [UInt8]

    init() throws { avcC = try ContainerFixture.remuxRecord("avc_baseline") }

    func samples(_ file: SyntheticMP4) throws -> (samples: [MP4Sample], offsets: [Int64], reader: MP4VideoTrackReader<MemoryRandomAccessSource>) {
        let (bytes, offsets) = file.build()
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        return (try allSamples(reader), offsets, reader)
    }

    @Test func chunksTimesAndSyncSamples() throws {
        var file = SyntheticMP4(sampleSizes: [10, 20, 30, 40, 50, 60, 70], avcC: avcC)
        file.samplesPerChunk = [(1, 3), (3, 1)]
        file.stts = [(2, 3000), (5, 1500)]
        file.ctts = (1, [(1, 3000), (2, -1500), (4, 0)])
        file.stss = [1, 5]
        let (samples, offsets, reader) = try samples(file)
        #expect(samples.map(\.offset) == offsets)
        #expect(samples.map(\.size) == [10, 20, 30, 40, 50, 60, 70])
        #expect(samples.map(\.dts) == [0, 3000, 6000, 7500, 9000, 10500, 12000])
        #expect(samples.map(\.pts) == [3000, 1500, 4500, 7500, 9000, 10500, 12000])
        #expect(samples.map(\.duration) == [3000, 3000, 1500, 1500, 1500, 1500, 1500])
        #expect(samples.map(\.isSync) == [true, false, false, false, true, false, false])
        #expect(reader.track.trackID == 7)
        #expect(reader.track.timescale == 90000)
        #expect(reader.track.width == 176 && reader.track.height == 144)
        // The buffer is resized to each sample.
        var buffer = [UInt8](repeating: 9, count: 100)
        try reader.read(samples[3], into: &buffer)
        #expect(buffer == [UInt8](repeating: 3, count: 40))
    }

    @Test func emptyChunksAreSkipped() throws {
        var file = SyntheticMP4(sampleSizes: [5, 6, 7, 8], avcC: avcC)
        file.samplesPerChunk = [(1, 2), (2, 0), (3, 2)]
        let (samples, offsets, _) = try samples(file)
        #expect(samples.map(\.offset) == offsets)
    }

    @Test(arguments: [4, 8, 16]) func compactSampleSizes(fieldSize: Int) throws {
        var file = SyntheticMP4(sampleSizes: fieldSize == 4 ? [3, 15, 1, 7, 2] : [3, 200, 1, 7, fieldSize == 16 ? 4000 : 255], avcC: avcC)
        file.sizeBox = { sizes in
            var entries: [UInt8] = []
            switch fieldSize {
            case 4:
                for pair in stride(from: 0, to: sizes.count, by: 2) {
                    entries.append(UInt8(sizes[pair] << 4 | (pair + 1 < sizes.count ? sizes[pair + 1] : 0)))
                }
            case 8: entries = sizes.map { UInt8($0) }
            default: entries = sizes.flatMap { be16(UInt16($0)) }
            }
            let header: [UInt8] = [0, 0, 0, UInt8(fieldSize)] + be32(UInt32(sizes.count))
            return .leaf("stz2", fullBox(header + entries))
        }
        let (samples, offsets, _) = try samples(file)
        #expect(samples.map(\.size) == file.sampleSizes)
        #expect(samples.map(\.offset) == offsets)
    }

    @Test func constantSampleSizeAndCo64() throws {
        var file = SyntheticMP4(sampleSizes: [12, 12, 12], avcC: avcC)
        file.co64 = true
        file.sizeBox = { sizes in .leaf("stsz", fullBox(be32(12) + be32(UInt32(sizes.count)))) }
        let (samples, offsets, _) = try samples(file)
        #expect(samples.map(\.size) == [12, 12, 12])
        #expect(samples.map(\.offset) == offsets)
    }

    @Test func emptySyncSampleTableMeansNoSyncSamplesAndUnsortedIsSorted() throws {
        var file = SyntheticMP4(sampleSizes: [1, 2, 3], avcC: avcC)
        file.stss = []
        #expect(try samples(file).samples.map(\.isSync) == [false, false, false])
        file.stss = [3, 1]
        #expect(try samples(file).samples.map(\.isSync) == [true, false, true])
    }

    @Test func otherTracksAreSkipped() throws {
        var file = SyntheticMP4(sampleSizes: [4, 4], avcC: avcC)
        let tkhd1: [UInt8] = fullBox(be32(0) + be32(0) + be32(1) + [UInt8](repeating: 0, count: 72))
        let soundHandler: [UInt8] = fullBox(be32(0) + FourCC("soun").bytes + [UInt8](repeating: 0, count: 13))
        let sound = TestBox.container("trak", [.leaf("tkhd", tkhd1), .container("mdia", [.leaf("hdlr", soundHandler)])])
        // A video track of another codec (mp4v) is skipped too.
        let tkhd2: [UInt8] = fullBox(be32(0) + be32(0) + be32(2) + [UInt8](repeating: 0, count: 72))
        let mdhd: [UInt8] = fullBox(be32(0) + be32(0) + be32(600) + be32(0) + be32(0))
        let videoHandler: [UInt8] = fullBox(be32(0) + FourCC("vide").bytes + [UInt8](repeating: 0, count: 13))
        let stsd: [UInt8] = fullBox(be32(1) + TestBox.leaf("mp4v", visualSampleEntryFields(width: 16, height: 16)).bytes())
        let mpeg4 = TestBox.container("trak", [
            .leaf("tkhd", tkhd2),
            .container("mdia", [.leaf("mdhd", mdhd), .leaf("hdlr", videoHandler), .container("minf", [.container("stbl", [.leaf("stsd", stsd)])])]),
        ])
        file.extraTracksBefore = [sound, mpeg4]
        let (samples, _, reader) = try samples(file)
        #expect(reader.track.trackID == 7)
        #expect(samples.count == 2)
    }

    @Test func noVideoTrackIsTyped() throws {
        let file = SyntheticMP4(sampleSizes: [4], avcC: avcC)
        var boxes = TestBox.parse(file.build().bytes[...])
        boxes = TestBox.edit(["moov", "trak"], in: boxes) { _ in nil }
        let bytes = boxes.flatMap { $0.bytes() }
        let moov = try #require(boxes.last)
        #expect(moov.type == "moov")
        #expect(throws: NALUError(.missing, field: "trak", byteOffset: Int64(bytes.count - moov.bytes().count), detail: "no avc1, avc3, hvc1 or hev1 video track")) {
            _ = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        }
    }
}

extension ContainerFixture {
    /// The avcC/hvcC ffmpeg wrote for an elementary-stream fixture.
    static func remuxRecord(_ name: String) throws -> [UInt8] {
        try RemuxFixture(name: name).bytes(name.hasPrefix("hevc") ? "hvcC" : "avcC")
    }
}
