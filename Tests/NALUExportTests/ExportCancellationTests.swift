import Foundation
import NALU
import NALUExport
import NALUMedia
import Testing

/// Issue 39: cancelling the task that awaits `ExportSession.export()` throws
/// `CancellationError` within 100 ms, commits no output and leaves no temporary file — before
/// the first picture, inside a GOP, while the encoder is flushed, and for a smart-cut
/// (passthrough) export.
@Suite("ExportCancellation", .serialized)
struct ExportCancellationTests {
    /// When to cancel: after this many pictures were written (`nil`: at once).
    struct Point: Sendable, CustomStringConvertible {
        var name: String
        var afterFrames: Int?
        var passthrough = false
        var description: String { name }
    }

    /// phone.mp4 has 300 pictures; x264's lookahead and B-frames hold the last few dozen until
    /// the flush, so the last points fall inside it.
    static let points: [Point] = [
        Point(name: "before the first picture", afterFrames: nil),
        Point(name: "after the first picture", afterFrames: 1),
        Point(name: "mid-GOP", afterFrames: 77),
        Point(name: "late", afterFrames: 200),
        Point(name: "during the flush", afterFrames: 280),
        Point(name: "during the flush, last pictures", afterFrames: 296),
        Point(name: "passthrough smart cut, at once", afterFrames: nil, passthrough: true),
    ] + (0..<5).map { index in Point(name: "random point \(index)", afterFrames: Int.random(in: 2...295)) }

    @Test("cancellation throws CancellationError within 100 ms, nothing written", arguments: points)
    func cancel(_ point: Point) async throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.mp4").path
        var settings = ExportSettings()
        if point.passthrough {
            settings.video = .passthrough
            settings.start = try MediaTime(parsing: "1.1")
            settings.end = try MediaTime(parsing: "8.3")
        }
        let session = ExportSession(input: ExportTestSupport.fixture("realworld/phone.mp4"), output: output, settings: settings)
        let export = Task { try await session.export() }
        let cancelledAt: Double
        if let frames = point.afterFrames {
            var reached = false
            for await step in session.progress where step.frames >= frames {
                reached = step.fraction < 1
                break
            }
            cancelledAt = ExportTestSupport.now()
            export.cancel()
            #expect(reached, "the export ended before \(frames) pictures")
        } else {
            cancelledAt = ExportTestSupport.now()
            export.cancel()
        }
        do {
            let report = try await export.value
            Issue.record("\(point): the export completed (\(report.frames) pictures) although cancelled")
        } catch is CancellationError {
            let latency = ExportTestSupport.now() - cancelledAt
            #expect(latency < 0.1, "\(point): CancellationError after \(Int(latency * 1000)) ms")
        }
        #expect(ExportTestSupport.contents(directory) == [], "\(point): left \(ExportTestSupport.contents(directory))")
    }

    /// Without cancellation the same passthrough export commits its output: the test above
    /// can fail.
    @Test("an export not cancelled commits its output")
    func notCancelled() async throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.mp4").path
        var settings = ExportSettings()
        settings.video = .passthrough
        settings.start = try MediaTime(parsing: "1.1")
        settings.end = try MediaTime(parsing: "8.3")
        let report = try await ExportSession(input: ExportTestSupport.fixture("realworld/phone.mp4"), output: output, settings: settings).export()
        #expect(ExportTestSupport.contents(directory) == ["out.mp4"])
        // 1.1 s to 8.3 s at 30 fps: 216 pictures, frame-exact.
        #expect(report.frames == 216)
        #expect(try ExportTestSupport.videoPacketCount(output) == 216)
    }
}
