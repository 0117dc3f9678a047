// Docs/export.md and Docs/embedding-an-encoder.md (fault injection): the examples, compiled.
import NALU
import NALUEncoder
import NALUExport
import NALUMedia
import NALUPackager
import NALUX264

enum ExportSnippets {
    static func export() async throws {
        var settings = ExportSettings()                       // H.264, x264 medium, 5 Mbit/s, audio copied
        settings.video = .encode(VideoEncoding(codec: .hevc))  // or .passthrough
        settings.start = try MediaTime(parsing: "12.5")        // seconds on the presentation timeline
        settings.end = try MediaTime(parsing: "20")
        let session = ExportSession(input: "in.mp4", output: "out.mp4", settings: settings)
        let watcher = Task { for await step in session.progress { print(step.fraction, step.framesPerSecond) } }
        let report = try await session.export()                // report.frames: pictures written
        _ = (watcher, report)
    }

    static func faultInjection() -> FaultInjectingBackendFactory {
        let plan = FaultPlan(creationFailures: 2, invalidSessionAtFrame: [45: 1, 90: 3])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        return factory
    }

    /// Docs/export.md: live capture.
    static func liveCapture(configuration: EncoderConfiguration, frame: Frame, samples: [Float]) throws -> PackageSummary {
        var options = PackagerOptions(segmentDuration: Rational(1, 1))
        options.partDuration = Rational(1, 5)                   // LL-HLS parts
        options.window = .max                                   // no sliding window
        let writer = try LiveCaptureWriter(directory: "live", video: configuration, options: options)
        try writer.append(frame)                                // at the configuration's frame rate
        try writer.append(audio: [samples])                     // 48 kHz mono, from time 0
        let summary = try writer.finish()
        return summary
    }

    /// Docs/export.md: a thumbnail.
    static func thumbnail() throws {
        let generator = try ImageGenerator(path: "in.mp4")
        let image = try generator.image(at: 2.5)
        try image.writePNG(to: "frame.png")
    }
}
