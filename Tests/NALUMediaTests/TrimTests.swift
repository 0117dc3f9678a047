import Foundation
import NALU
import NALUIO
import NALUMP4
import NALUMedia
import Testing

/// ``MediaTime`` parsing and ``TrimPlan`` on real streams (Scripts/make-fixtures.sh,
/// `trim_fixtures`): what a cut keeps, counted against what ffprobe says of the fixtures.
@Suite struct TrimTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture(name) }

    static func milliseconds(_ text: String) throws -> Int64? {
        try MediaTime(parsing: text).ticks(of: Rational(1, 1000))
    }

    @Test func parsesSecondsAndClockTimes() throws {
        #expect(try Self.milliseconds("12.5") == 12_500)
        #expect(try Self.milliseconds("90") == 90_000)
        #expect(try Self.milliseconds("01:02.5") == 62_500)
        #expect(try Self.milliseconds("1:00:00.040") == 3_600_040)
        #expect(try Self.milliseconds("00:00:01") == 1_000)
        #expect(try MediaTime(parsing: "0.000000001").ticks(of: Rational(1, 1_000_000_000)) == 1)
        #expect(try MediaTime(parsing: "01:02.5").description == "62.5")
        #expect(try MediaTime(parsing: "1:00:00.040").description == "3600.04")
        #expect(try MediaTime(parsing: "1.5") < MediaTime(parsing: "00:02"))
        #expect(try MediaTime(parsing: "1").adding(MediaTime(parsing: "0.25"))?.description == "1.25")
    }

    @Test(arguments: ["", "-1", "1:60", "1:60:00", "1:2:3:4", "abc", "1.2.3", "1.", ".5", "1e3", " 1", "0.0000000001", "99999999999"])
    func refusesWhatIsNoTime(text: String) {
        #expect(throws: NALUError.self) { try MediaTime(parsing: text, field: "--start") }
        do {
            _ = try MediaTime(parsing: text, field: "--start")
        } catch {
            #expect(error.field == "--start")
            #expect(error.code == .invalidValue)
        }
    }

    @Test func roundsTicksUpToTheFirstFrameAtOrAfter() throws {
        // 25 fps: 1 s is frame 25 exactly; 1.01 s is inside frame 25, so frame 26 is the first after.
        #expect(try MediaTime(parsing: "1").ticks(of: Rational(1, 25)) == 25)
        #expect(try MediaTime(parsing: "1.01").ticks(of: Rational(1, 25)) == 26)
        #expect(try MediaTime(parsing: "1.01").ticks(of: Rational(1, 25), roundingUp: false) == 25)
        // 29.97 fps: 1001/30000 s a frame; 1 s is 29.97 frames, so frame 30 is the first at or after.
        #expect(try MediaTime(parsing: "1").ticks(of: Rational(1001, 30000)) == 30)
        #expect(MediaTime.zero.ticks(of: Rational(0, 1)) == nil)
    }

    /// The B-frame MP4 (25 fps, IDR every 12 frames, timescale 12800): 1 s to 2 s starts at the
    /// IDR of frame 24 (0.96 s), shows frames 25–49, and keeps the P picture of frame 51 that
    /// frames 49 and 50 need.
    @Test func plansAnMP4CutFromTheKeyframeBefore() throws {
        let trimmer = try Trimmer(path: Self.fixture("trim_avc_bframes_audio.mp4"))
        let index = try trimmer.index()
        #expect(index.entries.count == 75)
        #expect(index.timeBase == Rational(1, 12800))
        #expect(index.frameRate == Rational(25, 1))
        #expect(index.frameDuration == 512)
        #expect(index.endTime == 3 * 12800)
        // The documented memory per access unit.
        #expect(MemoryLayout<TrimIndex.Entry>.stride == 40)
        let plan = try trimmer.plan(start: MediaTime(parsing: "1"), end: MediaTime(parsing: "2"))
        #expect(plan.keyframe == .idr)
        #expect(plan.firstAccessUnit == 24)
        #expect(plan.lastAccessUnit == 50)
        #expect(plan.droppedAccessUnits.isEmpty)
        #expect(plan.leadInPictures == 1)
        #expect(plan.presentedPictures == 25)
        #expect(plan.trailingPictures == 1)
        #expect(plan.presentedStart == 12800)
        #expect(plan.presentedDuration == 12800)
        #expect(plan.presentedRange(timescale: 48000) == 48000..<96000)
        #expect(plan.presentedSeconds.start == 1.0 && plan.presentedSeconds.end == 2.0)
        // Two B pictures are decoded before the first P they follow: a shift of 2 frames, plus the
        // lead-in frame.
        #expect(plan.decodeLead == 2)
        #expect(plan.mp4EditList(timescale: 12800, frameDuration: 512) == [MP4EditListEntry(segmentDuration: 12800, mediaTime: 3 * 512)])
    }

    /// The open-GOP HEVC stream (25 fps, a CRA every 12 frames, 3 B frames): a cut at 1 s starts
    /// at the CRA of frame 24 and drops its 3 RASL pictures, which present before it.
    @Test func dropsTheLeadingPicturesOfACRA() throws {
        let trimmer = try Trimmer(path: Self.fixture("trim_hevc_open_gop.h265"))
        let index = try trimmer.index()
        #expect(index.timeBase == Rational(1, 25))
        #expect(index.entries.count == 75)
        let plan = try trimmer.plan(start: MediaTime(parsing: "1"), end: MediaTime(parsing: "2"))
        #expect(plan.keyframe == .cra)
        #expect(index.entries[plan.firstAccessUnit].presentationTime == 24)
        #expect(plan.droppedAccessUnits.count == 3)
        for position in plan.droppedAccessUnits {
            #expect((index.entries[position].presentationTime ?? 99) < 24)
        }
        #expect(plan.leadInPictures == 1)
        #expect(plan.presentedPictures == 25)
    }

    @Test func withoutAnEndTheCutRunsToTheEndOfTheStream() throws {
        let trimmer = try Trimmer(path: Self.fixture("trim_avc_bframes_audio.mp4"))
        let plan = try trimmer.plan(start: MediaTime(parsing: "2.5"), end: nil)
        #expect(plan.presentedPictures == 12)
        #expect(plan.trailingPictures == 0)
        #expect(plan.endTick == 3 * 12800)
        #expect(plan.lastAccessUnit == 74)
    }

    @Test func refusesARangeWithNoPicture() throws {
        let trimmer = try Trimmer(path: Self.fixture("trim_avc_bframes_audio.mp4"))
        #expect(throws: NALUError.self) { try trimmer.plan(start: MediaTime(parsing: "5"), end: MediaTime(parsing: "6")) }
        #expect(throws: NALUError.self) { try trimmer.plan(start: MediaTime(parsing: "2"), end: MediaTime(parsing: "1")) }
    }
    /// The MP4 written carries the plan's edit list verbatim (every layout), and its samples run
    /// from the keyframe to the last access unit kept.
    @Test(arguments: [MP4Layout.moovAtEnd, .faststart, .fragmented]) func writesTheEditListItPlanned(layout: MP4Layout) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-trim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cut.mp4").path
        let trimmer = try Trimmer(path: Self.fixture("trim_avc_bframes_audio.mp4"))
        let plan = try trimmer.plan(start: MediaTime(parsing: "1"), end: MediaTime(parsing: "2"))
        let output = try FileSink(path: path)
        let report = try trimmer.writeMP4(plan, output: output, options: MP4MuxerOptions(layout: layout))
        try output.commit()
        let summary = try #require(report.mp4)
        #expect(summary.writer.samples == 27)
        #expect(summary.writer.editMediaTime == 1536)
        let reader = try MP4VideoTrackReader(AnyRandomAccessSource(RandomAccessFile(path: path)))
        #expect(reader.track.timescale == 12800)
        #expect(reader.track.editList == [MP4EditListEntry(segmentDuration: 12800, mediaTime: 1536)])
        var samples = reader.samples()
        var count = 0
        var firstSync: Bool?
        while let sample = try samples.next() {
            if firstSync == nil { firstSync = sample.isSync }
            count += 1
        }
        #expect(count == 27)
        #expect(firstSync == true)
    }
}
