import Foundation
import NALU
import NALUEncoder
import NALUExport
import NALUMP4
import NALUX264
import Testing

/// Issue 39 item 5: what `nalu encode` does is a library call — ``EncodeInputPlan`` opens and
/// plans the input, ``EncodePipeline`` runs frames through an ``EncoderSession`` into an
/// ``EncodedOutput``. Driven here as an app would, with ffprobe reading what was written.
@Suite("EncodePipeline", .serialized)
struct EncodePipelineTests {
    /// The test pattern, 48 frames of 320x180, into MP4 at a constant rate.
    func run(_ directory: URL, checkpoint: @escaping () throws -> Void = {}) throws -> (frames: Int64, summary: EncodeSummary, path: String) {
        var options = EncodeInputOptions(path: nil)
        options.size = (320, 180)
        options.frames = 48
        let plan = try EncodeInputPlan(options)
        #expect(plan.totalFrames == 48 && plan.limit == 48 && plan.frameRate == Rational(30, 1))
        var configuration = plan.configuration(codec: .h264, extraParameters: [], carriesSignal: true)
        configuration.preset = "ultrafast"
        let session = try EncoderSession(configuration: configuration, factory: X264BackendFactory())
        let path = directory.appendingPathComponent("out.mp4").path
        let output = try EncodedOutput(path: path, framing: .mp4, codec: .h264, mp4Options: MP4MuxerOptions(),
                                       maxAccessUnitSize: 1 << 26, frameRate: plan.frameRate, keepsTimes: true,
                                       decoded: nil, keptRange: nil, copyAudio: true)
        let pipeline = EncodePipeline(session: session, output: output, plan: plan)
        pipeline.checkpoint = checkpoint
        var progress: [Int] = []
        pipeline.onFrame = { statistics in progress.append(statistics.framesIn) }
        let frames = try pipeline.encode { try plan.nextFrame(count: $0) }
        _ = try pipeline.finish()
        #expect(progress == Array(1...48))
        return (frames, pipeline.summary(elapsed: 1, frameRate: plan.frameRate, output: path, interruptedBy: 0), path)
    }

    @Test("the test pattern through the library: every frame written, timed at the rate, the summary says so")
    func testPattern() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (frames, summary, path) = try run(directory)
        #expect(frames == 48)
        #expect(try ExportTestSupport.videoPacketCount(path) == 48)
        let probe = try ExportTestSupport.run("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                                               "stream=width,height,r_frame_rate,nb_frames", "-of", "csv=p=0", path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "320,180,30/1,48")
        #expect(summary.line.hasPrefix("encoded 48 frames ("))
        let keys = summary.fields.map(\.0)
        #expect(keys == ["codec", "output", "frames", "packets", "keyframes", "b_frames", "bytes", "average_bitrate", "encode_seconds",
                         "encode_fps", "encoders_created", "failed_frames", "failed_creations"])
    }

    /// A checkpoint that throws (a cancellation) at the 20th frame: the error comes through,
    /// and the output is abandoned — no file, no temporary file.
    @Test("a throwing checkpoint abandons the output")
    func cancelled() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var calls = 0
        #expect(throws: CancellationError.self) {
            _ = try run(directory) {
                calls += 1
                if calls == 20 { throw CancellationError() }
            }
        }
        #expect(ExportTestSupport.contents(directory) == [])
    }
}
