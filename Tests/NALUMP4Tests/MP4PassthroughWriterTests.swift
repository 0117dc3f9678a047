import Foundation
import Testing
import NALU
import NALUIO
@testable import NALUMP4

/// ``MP4Writer`` with passthrough tracks: what is appended reads back exactly, in every layout.
@Suite struct MP4PassthroughWriterTests {
    /// The AAC track of a real file: its sample entry (`mp4a` + `esds`) and edit list.
    let aac: MP4Track
    let record: [UInt8]
    init() throws {
        let movie = try MP4MovieReader(RandomAccessFile(path: fixtureDirectory.appendingPathComponent("tracks_avc_aac.mp4").path))
        aac = try #require(movie.tracks.first { $0.track.isAudio }).track
        record = try ContainerFixture.remuxRecord("avc_baseline")
    }

    func write(_ layout: MP4Layout) throws -> (bytes: [UInt8], summary: MP4WriterSummary, totals: [(samples: Int, duration: UInt64)]) {
        var configuration = MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: record, width: 176, height: 144,
                                                   timescale: 90000, layout: layout, chunkSize: 1 << 20, maxFragmentSize: 1 << 20)
        configuration.movieTimescale = 1000
        configuration.passthroughTracks = [MP4PassthroughTrack(copying: aac),
                                           MP4PassthroughTrack(handler: "text", timescale: 1000, sampleEntries: [[0, 0, 0, 8] + Array("tx3g".utf8)],
                                                               volume: 0)]
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration, spool: MemorySpool())
        // Video: 6 samples of 3000 ticks (1/30 s), a GOP of 3; audio: 10 samples of 1024 (48 kHz),
        // two audio runs and a text sample between the video.
        for index in 0..<3 { try writer.append([UInt8](repeating: UInt8(index), count: 20 + index), duration: 3000, compositionOffset: 0, isSync: index == 0) }
        for index in 0..<5 { try writer.append([UInt8](repeating: 0xA0 + UInt8(index), count: 7 + index), track: 0, duration: 1024) }
        try writer.append([0, 2, 0x68, 0x69], track: 1, duration: 500)
        for index in 3..<6 { try writer.append([UInt8](repeating: UInt8(index), count: 20 + index), duration: 3000, compositionOffset: 0, isSync: index == 3) }
        for index in 5..<10 { try writer.append([UInt8](repeating: 0xA0 + UInt8(index), count: 7 + index), track: 0, duration: 1024) }
        let totals = writer.passthroughTotals
        let summary = try writer.finish()
        return (writer.output.bytes, summary, totals)
    }

    @Test(arguments: [MP4Layout.moovAtEnd, .faststart, .fragmented]) func tracksReadBack(layout: MP4Layout) throws {
        let (bytes, summary, _) = try write(layout)
        let movie = try MP4MovieReader(MemoryRandomAccessSource(bytes))
        #expect(movie.movieTimescale == 1000)
        #expect(movie.tracks.map(\.track.trackID) == [1, 2, 3])
        #expect(movie.tracks.map(\.track.handler) == ["vide", "soun", "text"])
        // mvhd: the longest track, the AAC edit list's 2000 ms (the video is 200 ms, the text 500).
        #expect(movie.movieDuration == (layout == .fragmented ? 0 : 2000))
        #expect(summary.samples == 6)
        let audio = movie.tracks[1].track
        #expect(audio.sampleEntries == aac.sampleEntries)
        #expect(audio.editList == aac.editList)
        #expect(audio.timescale == 48000)
        #expect(audio.volume == 0x0100)
        #expect(audio.duration == (layout == .fragmented ? 0 : 10240))
        var samples: [MP4Sample] = []
        try movie.tracks[1].forEachSample { samples.append($0) }
        #expect(samples.map(\.size) == Array(7..<17))
        #expect(samples.map(\.dts) == (0..<10).map { Int64($0) * 1024 })
        #expect(samples.allSatisfy { $0.isSync && $0.duration == 1024 && $0.compositionOffset == 0 })
        var buffer: [UInt8] = []
        for sample in samples {
            try movie.tracks[1].read(sample, into: &buffer)
            #expect(buffer == [UInt8](repeating: 0xA0 + UInt8(sample.index), count: 7 + sample.index))
        }
        var text: [MP4Sample] = []
        try movie.tracks[2].forEachSample { text.append($0) }
        #expect(text.map(\.size) == [4])
        try movie.tracks[2].read(text[0], into: &buffer)
        #expect(buffer == [0, 2, 0x68, 0x69])
        var video: [MP4Sample] = []
        try movie.tracks[0].forEachSample { video.append($0) }
        #expect(video.map(\.size) == Array(20..<26))
        // next_track_ID: 4.
        let boxes = TestBox.parse(bytes[...])
        guard case .leaf(_, let mvhd)? = TestBox.find(["moov", "mvhd"], in: boxes) else {
            Issue.record("no mvhd")
            return
        }
        #expect(Array(mvhd[(mvhd.count - 4)...]) == [0, 0, 0, 4])
    }

    /// Progressive layouts: a chunk per run of one track, in the order appended.
    @Test func chunksFollowTheAppends() throws {
        let (bytes, _, totals) = try write(.moovAtEnd)
        #expect(totals.map(\.samples) == [10, 1])
        let movie = try MP4MovieReader(MemoryRandomAccessSource(bytes))
        var offsets: [(track: UInt32, offset: Int64)] = []
        for track in movie.tracks { try track.forEachSample { offsets.append((track.track.trackID, $0.offset)) } }
        let order = offsets.sorted { $0.offset < $1.offset }.map(\.track)
        #expect(order == [1, 1, 1] + Array(repeating: 2, count: 5) + [3] + [1, 1, 1] + Array(repeating: 2, count: 5))
    }

    /// QuickTime PCM: a sample per PCM frame, all of one size and all sync. The `stsz` says one
    /// size (and the writer keeps no size per sample), there is no `stss`.
    @Test func constantSizeSamples() throws {
        var configuration = MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: record, width: 176, height: 144, timescale: 90000)
        configuration.passthroughTracks = [MP4PassthroughTrack(handler: "soun", timescale: 8000, sampleEntries: [[0, 0, 0, 8] + Array("sowt".utf8)])]
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration)
        try writer.append([1, 2, 3], duration: 90000, compositionOffset: 0, isSync: true)
        let frame: [UInt8] = [0, 1]
        for _ in 0..<8000 { try writer.append(frame, track: 0, duration: 1) }
        try writer.finish()
        let boxes = TestBox.parse(writer.output.bytes[...])
        guard case .container(_, let children) = boxes.first(where: { $0.type == "moov" }),
              case .container(_, let trak)? = children.filter({ $0.type == "trak" }).last,
              case .leaf(_, let stsz)? = TestBox.find(["mdia", "minf", "stbl", "stsz"], in: trak) else {
            Issue.record("no stsz")
            return
        }
        #expect(stsz == [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x1F, 0x40])  // sample_size 2, sample_count 8000, no table
        #expect(TestBox.find(["mdia", "minf", "stbl", "stss"], in: trak) == nil)
        let movie = try MP4MovieReader(MemoryRandomAccessSource(writer.output.bytes))
        var total = 0
        try movie.tracks[1].forEachSample { total += $0.size }
        #expect(total == 16000)
        #expect(movie.tracks[1].track.duration == 8000)
    }

    @Test func refusesBadTrackIndices() throws {
        var configuration = MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: record, width: 176, height: 144, timescale: 90000)
        configuration.passthroughTracks = [MP4PassthroughTrack(copying: aac)]
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration)
        #expect(throws: NALUError.self) { try writer.append([1], track: 1, duration: 1) }
        #expect(throws: NALUError.self) { try writer.append([1], track: 0, duration: 1, sampleDescription: 2) }
        configuration.passthroughTracks[0].timescale = 0
        #expect(throws: NALUError.self) { _ = try MP4Writer(sink: MemorySink(), configuration: configuration) }
    }
}
