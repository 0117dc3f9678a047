import Foundation
import Testing
import NALU
import NALUIO
@testable import NALUMP4

/// ``MP4WriterConfiguration/editList``: an explicit edit list is written verbatim.
@Suite struct MP4EditListTests {
    @Test(arguments: [MP4Layout.moovAtEnd, .faststart, .fragmented]) func explicitEditListReadsBack(layout: MP4Layout) throws {
        var configuration = MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: try ContainerFixture.remuxRecord("avc_baseline"),
                                                   width: 176, height: 144, timescale: 90000, layout: layout)
        // An empty edit of 1500 ticks, then the media from 3000 for 9000 ticks, and a 64-bit media time.
        let edits = [MP4EditListEntry(segmentDuration: 1500, mediaTime: -1),
                     MP4EditListEntry(segmentDuration: 9000, mediaTime: 3000),
                     MP4EditListEntry(segmentDuration: 100, mediaTime: 1 << 33, mediaRateInteger: 1, mediaRateFraction: 0)]
        configuration.editList = edits
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration, spool: MemorySpool())
        for index in 0..<4 {
            try writer.append([0, 0, 0, 1, UInt8(index)], duration: 3000, compositionOffset: 0, isSync: index == 0)
        }
        let summary = try writer.finish()
        #expect(summary.editMediaTime == 3000)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(writer.output.bytes))
        #expect(reader.track.editList == edits)
        // mvhd duration: the sum of the segments (fragmented movies leave it 0).
        #expect(reader.track.movieDuration == (layout == .fragmented ? 0 : 10600))
    }

    /// ``MP4WriterConfiguration/videoStartDelay``: an empty edit, then the composition shift's edit.
    @Test func startDelayPrecedesTheShift() throws {
        var configuration = MP4WriterConfiguration(sampleEntry: .avc1, decoderConfigurationRecord: try ContainerFixture.remuxRecord("avc_baseline"),
                                                   width: 176, height: 144, timescale: 90000)
        configuration.movieTimescale = 1000
        configuration.videoStartDelay = 500
        let writer = try MP4Writer(sink: MemorySink(), configuration: configuration)
        // I P B: the B picture shows first; version 0 offsets shifted by 3000 put it at 6000; 9000 ticks = 100 ms.
        try writer.append([0, 0, 0, 1, 0x65], duration: 3000, compositionOffset: 3000, isSync: true)
        try writer.append([0, 0, 0, 1, 0x41], duration: 3000, compositionOffset: 3000, isSync: false)
        try writer.append([0, 0, 0, 1, 0x01], duration: 3000, compositionOffset: -3000, isSync: false)
        try writer.finish()
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(writer.output.bytes))
        #expect(reader.track.editList == [MP4EditListEntry(segmentDuration: 500, mediaTime: -1),
                                          MP4EditListEntry(segmentDuration: 100, mediaTime: 6000)])
        #expect(reader.track.movieDuration == 600)
    }
}
