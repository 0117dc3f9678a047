import Testing
import NALU
@testable import NALUMP4

/// The muxer keeps queued access units in one reused buffer, moving the unwritten bytes to its
/// front once 64 KiB and more have been written past them. Streams long enough for that (a
/// B-frame fixture repeated, so the reorder queue is rarely empty) must still give one sample
/// per access unit with the stream's NAL units, in every layout.
@Suite struct MP4MuxerBufferTests {
    static let cases: [(String, Int, MP4Layout)] = [
        ("avc_high_bframes", 8, .moovAtEnd), ("avc_high_bframes", 8, .faststart), ("avc_high_bframes", 8, .fragmented),
        ("hevc_open_gop", 10, .moovAtEnd), ("hevc_open_gop", 10, .fragmented),
    ]

    @Test(arguments: 0..<cases.count) func repeatedStreamReadsBack(index: Int) throws {
        let (name, copies, layout) = Self.cases[index]
        let fixture = RemuxFixture(name: name)
        let once = try fixture.bytes(fixture.streamExtension)
        let annexB = Array([[UInt8]](repeating: once, count: copies).joined())
        #expect(annexB.count > 200 << 10)
        let (bytes, summary) = try mux(annexB, codec: fixture.codec, options: MP4MuxerOptions(layout: layout, chunkSize: 16 << 10))
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        let samples = try allSamples(reader)
        let units = try accessUnits(annexB, codec: fixture.codec)
        #expect(samples.count == units.count)
        #expect(samples.count == copies * (try fixture.facts()).frames)
        #expect(samples.indices.filter { samples[$0].isSync } == units.indices.filter { units[$0].keyframe != nil })
        let original = annexBNALUnits(annexB).filter { !isParameterSet($0, fixture.codec) }
        #expect(firstDifference(try sampleNALUnits(reader), original) == nil)
        let duration = Int64(summary.frameDuration)
        let shift = reader.track.editList.first?.mediaTime ?? 0
        #expect(samples.map { ($0.pts - shift) / duration }.sorted() == Array(0..<Int64(samples.count)))
    }
}
