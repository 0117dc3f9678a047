import Foundation
import Testing
import NALU
import NALUMP4

/// ``MP4Muxer`` on a stream whose parameter sets change: two x264/x265 fixtures of different
/// size (176x144, then 174x98, both SPS/PPS id 0) back to back. Progressive layouts get a sample
/// entry per record; the fragmented one keeps the sets in band from the change on.
@Suite struct MP4SampleEntryChangeTests {
    static func joined(_ codec: Codec) throws -> [UInt8] {
        let prefix = codec == .h264 ? "avc" : "hevc"
        let suffix = codec == .h264 ? "h264" : "h265"
        return try ["main", "odd_174x98"].flatMap { name in
            Array(try Data(contentsOf: fixtureDirectory.appendingPathComponent("\(prefix)_\(name).\(suffix)")))
        }
    }

    static func mux(_ stream: [UInt8], codec: Codec, layout: MP4Layout) throws -> (MP4MuxerSummary, [UInt8]) {
        let muxer = try MP4Muxer(codec: codec, sink: MemorySink(), options: MP4MuxerOptions(layout: layout),
                                 spool: layout == .faststart ? MemorySpool() : nil)
        var reader = AnnexBReader(MemorySource(stream))
        try reader.forEachNALUnit { try muxer.push($0) }
        let summary = try muxer.finish()
        return (summary, try #require(muxer.output?.bytes))
    }

    @Test(arguments: [Codec.h264, .hevc], [MP4Layout.moovAtEnd, .faststart])
    func newSampleEntry(codec: Codec, layout: MP4Layout) throws {
        let stream = try Self.joined(codec)
        let (summary, file) = try Self.mux(stream, codec: codec, layout: layout)
        #expect(summary.sampleDescriptions == 2)
        #expect(!summary.parameterSetsInBandAfterChange)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(file))
        let descriptions = reader.track.sampleDescriptions
        #expect(descriptions.map(\.width) == [176, 174])
        #expect(descriptions.map(\.height) == [144, 98])
        var indices: [Int] = []
        try reader.forEachSample { indices.append($0.sampleDescriptionIndex) }
        // ffprobe: 20 frames of the first fixture, 12 of the second.
        #expect(indices == Array(repeating: 1, count: 20) + Array(repeating: 2, count: 12))
        // Each record parses and holds the SPS of its pictures.
        let sizes = try descriptions.map { description -> Int? in
            var store = ParameterSetStore(codec: codec)
            for unit in description.record.parameterSets { try store.add(unit) }
            return store.streamDescription?.width
        }
        #expect(sizes == [176, 174])
        // The pictures come back unchanged.
        let isPicture = { (unit: [UInt8]) in
            guard let first = unit.first else { return false }
            return codec == .h264 ? AVCNALUnitType(rawValue: first).isVCL : HEVCNALUnitType(rawValue: first >> 1).isVCL
        }
        var back: [[UInt8]] = []
        try reader.forEachNALUnit { back.append($0.array) }
        var original: [[UInt8]] = []
        var annexB = AnnexBReader(MemorySource(stream))
        try annexB.forEachNALUnit { original.append($0.array) }
        #expect(back.filter(isPicture) == original.filter(isPicture))
    }

    @Test(arguments: [Codec.h264, .hevc]) func fragmentedKeepsTheSetsInBand(codec: Codec) throws {
        let stream = try Self.joined(codec)
        let (summary, file) = try Self.mux(stream, codec: codec, layout: .fragmented)
        #expect(summary.sampleDescriptions == 1)
        #expect(summary.parameterSetsInBandAfterChange)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(file))
        var inBand = 0
        try reader.forEachNALUnit { unit in
            if codec.isParameterSet(firstByte: unit.firstByte) { inBand += 1 }
        }
        // The second fixture's sets from the first changed one on: its SPS and PPS (its H.265 VPS,
        // sent before them, is byte for byte the first fixture's, so it stays in the record only).
        #expect(inBand == 2)
    }
}
