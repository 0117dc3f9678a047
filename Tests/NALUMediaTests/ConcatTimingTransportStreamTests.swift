import Foundation
import NALU
import NALUMP4
import NALUMedia
import Testing

/// ``ConcatTiming`` over transport stream inputs (issue 41, item 1): each piece's times are its
/// PES times (Scripts/make-tsjoin-fixtures.sh), so the second input starts where the first one's
/// last picture ends, read from its own times, not from a frame rate; one edit shows them all.
@Suite struct ConcatTimingTransportStreamTests {
    static func path(_ name: String) -> String { MediaSourceTests.fixture("tsjoin/" + name) }

    /// The video packets' (DTS, PTS) in 90 kHz ticks, as ffprobe reads them (unwrapped).
    static func packets(_ name: String) throws -> [(dts: Int64, pts: Int64)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", path(name)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").compactMap { Int64($0) }
            return fields.count >= 2 ? (fields[1], fields[0]) : nil
        }
    }

    /// How long a piece shows (90 kHz): from its earliest picture to its latest picture's end, a
    /// picture lasting until the next one decodes, the last as long as the distance before it.
    static func shown(_ name: String) throws -> Int64 {
        let packets = try packets(name)
        var end = Int64.min
        for (index, packet) in packets.enumerated() {
            let duration = index + 1 < packets.count ? packets[index + 1].dts - packet.dts : packet.dts - packets[index - 1].dts
            end = max(end, packet.pts + duration)
        }
        return end - (packets.map(\.pts).min() ?? 0)
    }

    @Test(arguments: [["vfr.ts", "r30.ts"], ["wrap.ts", "r25.ts", "vfr.ts"]])
    func inputsStartWhereTheOneBeforeEnds(names: [String]) throws {
        let sources = try names.map { try MediaSource(path: Self.path($0)) }
        let timing = try #require(try ConcatTiming(sources))
        #expect(timing.timescale == 90_000)
        #expect(timing.continuousJoins == names.count - 1)
        #expect(timing.presentationOrigin != nil)
        var start: Int64 = 0
        for (position, name) in names.enumerated() {
            #expect(timing.inputStart(position, scale: 90_000) == start, "\(names): input \(position)")
            start += try Self.shown(name)
        }
        // One edit, as long as every piece shows.
        #expect(timing.editList(movieTimescale: 90_000).map(\.segmentDuration) == [UInt64(start)])
    }
}
