import Foundation
import Testing
import NALU
import NALUIO
import NALUMP4
import NALUMedia

/// The three ways ``MP4Muxer`` writes a file give the same bytes: access units held in the
/// muxer's buffer until their composition offsets are known (the path passthrough tracks take),
/// samples streamed into the writer's chunk or fragment buffer as they arrive (any sink), and
/// chunks written through to a file with each `mdat` size filled in afterwards (`FileSink`, an
/// ``MP4OverwritableSink``; progressive layouts).
@Suite struct MP4WriteThroughTests {
    enum Path: CaseIterable { case buffered, streamed, throughFile }

    /// Real streams: B-frames (reordering), several slices, AUDs, HEVC, and a stream whose
    /// parameter sets change midway (a second sample entry in its own chunk).
    static let streams: [(name: String, codec: Codec)] = [
        ("avc_high_bframes.h264", .h264), ("avc_multislice.h264", .h264), ("avc_ntsc_aud.h264", .h264),
        ("hevc_main.h265", .hevc), ("avc_main.h264+avc_odd_174x98.h264", .h264), ("hevc_main.h265+hevc_odd_174x98.h265", .hevc),
    ]

    static func stream(_ name: String) throws -> [UInt8] {
        try name.split(separator: "+").flatMap { part in
            Array(try Data(contentsOf: URL(fileURLWithPath: MediaSourceTests.fixture(String(part)))))
        }
    }

    /// `stream` with `padding` bytes of 0x55 after every VCL NAL unit's own bytes (slice data the
    /// muxer does not read), so NAL units of 64 KiB and more go out from the caller's memory.
    static func padded(_ stream: [UInt8], codec: Codec, padding: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var reader = AnnexBReader(MemorySource(stream))
        try reader.forEachNALUnit { unit in
            out += [0, 0, 0, 1]
            out += unit.array
            let isVCL = codec == .h264 ? AVCNALUnitType(rawValue: unit.firstByte).isVCL
                : HEVCNALUnitType(rawValue: unit.firstByte >> 1).isVCL
            if isVCL { out += repeatElement(0x55, count: padding) }
        }
        return out
    }

    static func mux(_ stream: [UInt8], codec: Codec, layout: MP4Layout, chunkSize: Int, path: Path) throws -> [UInt8] {
        let options = MP4MuxerOptions(layout: layout, frameRate: Rational(25, 1), chunkSize: chunkSize)
        let spool = layout == .faststart ? try SpoolFile() : nil
        if path == .throughFile {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-writethrough-\(UUID().uuidString).mp4")
            defer { try? FileManager.default.removeItem(at: url) }
            let sink = try FileSink(path: url.path)
            #expect(sink.canOverwrite)
            let muxer = try MP4Muxer(codec: codec, sink: sink, options: options, spool: spool)
            var reader = AnnexBReader(MemorySource(stream))
            try reader.forEachNALUnit { try muxer.push($0) }
            try muxer.finish()
            try sink.commit()
            return Array(try Data(contentsOf: url))
        }
        let muxer = try MP4Muxer(codec: codec, sink: MemorySink(), options: options, spool: spool)
        // A passthrough hook keeps the samples in the muxer until they are written whole.
        if path == .buffered { muxer.willAppendVideoSample = { _, _, _ in } }
        var reader = AnnexBReader(MemorySource(stream))
        try reader.forEachNALUnit { try muxer.push($0) }
        try muxer.finish()
        return try #require(muxer.output?.bytes)
    }

    /// Where `a` and `b` first differ (`nil`: identical).
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        if let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) { return index }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    @Test(arguments: streams.indices, [MP4Layout.moovAtEnd, .faststart, .fragmented])
    func samePathsSameBytes(stream index: Int, layout: MP4Layout) throws {
        let (name, codec) = Self.streams[index]
        let plain = try Self.stream(name)
        for (stream, chunkSize) in [(plain, 1 << 20), (plain, 3000), (try Self.padded(plain, codec: codec, padding: 70_000), 200_000)] {
            let files = try Path.allCases.map { try Self.mux(stream, codec: codec, layout: layout, chunkSize: chunkSize, path: $0) }
            // The first differing byte, not whole files, in a failure.
            #expect(Self.firstDifference(files[1], files[0]) == nil, "\(name) \(layout) chunk \(chunkSize): streamed")
            #expect(Self.firstDifference(files[2], files[0]) == nil, "\(name) \(layout) chunk \(chunkSize): written through")
            // Reads back: every sample (in the sample tables, or in fragments).
            let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(files[2]))
            var samples = 0
            try reader.forEachSample { _ in samples += 1 }
            #expect(samples > 0)
            if layout != .fragmented { #expect(samples == reader.track.sampleTableCount) }
        }
    }
}
