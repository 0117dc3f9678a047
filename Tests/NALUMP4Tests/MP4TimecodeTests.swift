import Testing
import NALU
import NALUMP4

/// QuickTime `tmcd` timecode (issue 41 item 14): the label of a frame number and a cut's move,
/// drop-frame aware, against counting labels one frame at a time (SMPTE ST 12-1).
@Suite struct MP4TimecodeTests {
    /// ffmpeg's `-timecode 01:00:00;00` sample entry at 29.97 fps: drop frame, 30000/1001, 30.
    static let entry: [UInt8] = [0, 0, 0, 0x24, 0x74, 0x6D, 0x63, 0x64, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
                                 0, 0, 0, 1, 0, 0, 0x75, 0x30, 0, 0, 0x03, 0xE9, 0x1E, 0, 0, 0]

    /// The drop-frame label after `frames` frames from 00:00:00;00, counted one at a time.
    static func counted(_ frames: Int) -> String {
        var (h, m, s, f) = (0, 0, 0, 0)
        for _ in 0..<frames {
            f += 1
            if f == 30 { f = 0; s += 1 }
            if s == 60 { s = 0; m += 1 }
            if m == 60 { m = 0; h += 1 }
            if s == 0, f == 0, m % 10 != 0 { f = 2 }
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(h)):\(two(m)):\(two(s));\(two(f))"
    }

    @Test func readsTheSampleEntry() throws {
        let timecode = try MP4TimecodeEntry(sampleEntry: Self.entry)
        #expect(timecode.isDropFrame && timecode.timescale == 30000 && timecode.frameDuration == 1001 && timecode.numberOfFrames == 30)
        #expect(throws: NALUError.self) { try MP4TimecodeEntry(sampleEntry: Array(Self.entry.prefix(20))) }
    }

    /// Labels at the minute and ten-minute boundaries, and through an hour, match counting.
    @Test(arguments: [0, 1, 1799, 1800, 1801, 3597, 3598, 17981, 17982, 17983, 107891, 107892, 107991])
    func labelsMatchCounting(_ frame: Int) throws {
        let timecode = try MP4TimecodeEntry(sampleEntry: Self.entry)
        #expect(timecode.label(frame: Int64(frame)) == Self.counted(frame))
    }

    /// A cut 3.3 s into a sample at 01:00:00;00 (frame 107892) starts at picture 99: 01:00:03;09.
    @Test func advanceMovesToTheCut() throws {
        let timecode = try MP4TimecodeEntry(sampleEntry: Self.entry)
        let start = try #require(MP4TimecodeSample.frame([0, 1, 0xA5, 0x74]))
        #expect(timecode.label(frame: start) == "01:00:00;00")
        let moved = try #require(timecode.advance(start, by: 99 * 1001, mediaTimescale: 30000))
        #expect(timecode.label(frame: moved) == "01:00:03;09")
        #expect(MP4TimecodeSample.frame(try #require(MP4TimecodeSample.replacing([0, 1, 0xA5, 0x74], frame: moved))) == moved)
        #expect(timecode.advance(start, by: -1, mediaTimescale: 30000) == nil)
    }
}
