import Testing
@testable import NALU

/// Splits a whole stream into access-unit summaries.
func accessUnits(_ bytes: [UInt8], codec: Codec, chunkSize: Int? = nil) throws -> [AccessUnitSummary] {
    var reader = try ElementaryStreamReader(MemorySource(bytes, chunkSize: chunkSize), codec: codec)
    var splitter = AccessUnitSplitter(codec: codec)
    var units: [AccessUnitSummary] = []
    try reader.forEachNALUnit { unit in
        if let completed = try splitter.push(unit).completed { units.append(completed) }
    }
    if let last = splitter.finish() { units.append(last) }
    return units
}

@Suite struct AccessUnitSplitterTests {
    /// Access units equal ffprobe's packets: same count, same byte offsets, same keyframes.
    @Test(arguments: Fixture.all) func accessUnitsMatchFFprobe(fixture: Fixture) throws {
        let facts = try fixture.facts()
        let units = try accessUnits(try fixture.annexB(), codec: fixture.codec)
        #expect(units.count == facts.packets)
        #expect(units.count == facts.frames)
        // ffmpeg's HEVC parser starts a packet after the zero_byte of a 4-byte start code (the byte
        // stays with the previous packet), except at the very start; nalu counts the zero_byte as
        // part of the access unit (ITU-T H.265 B.2). x265 writes 4-byte start codes throughout.
        let ffmpegOffsets = units.map { unit in
            fixture.codec == .hevc && unit.index > 0 ? unit.offset + 1 : unit.offset
        }
        #expect(ffmpegOffsets == facts.packet_pos)
        #expect(units.enumerated().filter { $0.element.keyframe != nil }.map(\.offset) == facts.key_packets)
        #expect(units.map(\.index) == Array(0..<units.count))
    }

    /// Per access unit, the NAL unit count equals the number ffmpeg's parser put in each packet.
    @Test(arguments: Fixture.all) func nalUnitsPerAccessUnitMatchFFmpeg(fixture: Fixture) throws {
        let facts = try fixture.facts()
        let units = try accessUnits(try fixture.lengthPrefixed(), codec: fixture.codec, chunkSize: 777)
        #expect(units.map(\.nalUnitCount) == facts.packet_nal_types.map(\.count))
    }

    /// Picture types: the same number of I, P and B pictures as ffprobe (which lists output order).
    @Test(arguments: Fixture.all) func pictureTypesMatchFFprobe(fixture: Fixture) throws {
        let facts = try fixture.facts()
        let units = try accessUnits(try fixture.annexB(), codec: fixture.codec)
        let ours = units.map { $0.pictureType?.rawValue ?? "?" }.sorted().joined()
        let theirs = String(facts.pict_types.sorted())
        #expect(ours == theirs)
    }
}

/// Issue 32 item 16: a splitter or assembler used for a second stream after `finish()` gives
/// what a new one gives (the second stream's indexes started at 301 after a 300-picture stream).
@Suite struct AccessUnitReuseTests {
    @Test(arguments: [Fixture.all[0], Fixture.all[Fixture.all.count - 1]]) func splitterAfterFinish(fixture: Fixture) throws {
        let bytes = try fixture.annexB()
        var splitter = AccessUnitSplitter(codec: fixture.codec)
        var runs: [[AccessUnitSummary]] = []
        for _ in 0..<2 {
            var reader = try ElementaryStreamReader(MemorySource(bytes, chunkSize: nil), codec: fixture.codec)
            var units: [AccessUnitSummary] = []
            try reader.forEachNALUnit { unit in
                if let completed = try splitter.push(unit).completed { units.append(completed) }
            }
            if let last = splitter.finish() { units.append(last) }
            runs.append(units)
        }
        #expect(runs[0] == (try accessUnits(bytes, codec: fixture.codec)))
        #expect(runs[1] == runs[0])
        #expect(runs[1].first?.index == 0)
    }

    @Test(arguments: [Fixture.all[0], Fixture.all[Fixture.all.count - 1]]) func assemblerAfterFinish(fixture: Fixture) throws {
        let bytes = try fixture.annexB()
        var assembler = try AccessUnitAssembler(codec: fixture.codec)
        var runs: [[AccessUnit]] = []
        for _ in 0..<2 {
            var units = try assembler.append(Array(bytes[..<(bytes.count / 2)]))
            units += try assembler.append(Array(bytes[(bytes.count / 2)...]))
            units += try assembler.finish()
            runs.append(units)
        }
        #expect(runs[0].map(\.summary) == (try accessUnits(bytes, codec: fixture.codec)))
        #expect(runs[1] == runs[0])
    }

    /// A stream cut after 100 bytes (inside a NAL unit), finished whatever `finish()` says: the
    /// next stream starts afresh.
    @Test func assemblerAfterACutStream() throws {
        let fixture = Fixture.all[0]
        let bytes = try fixture.annexB()
        var fresh = try AccessUnitAssembler(codec: fixture.codec)
        var reused = try AccessUnitAssembler(codec: fixture.codec)
        _ = try? reused.append(Array(bytes[..<100]))
        _ = try? reused.finish()
        let expected = try fresh.append(bytes) + fresh.finish()
        #expect(try reused.append(bytes) + reused.finish() == expected)
    }
}
