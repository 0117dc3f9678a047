// Docs/export.md and Docs/embedding-an-encoder.md (fault injection): the examples, compiled.
import NALUEncoder
import NALUExport
import NALUMedia
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

    /// Docs/coming-from-avfoundation.md: a thumbnail.
    static func thumbnail() throws {
        let generator = try ImageGenerator(path: "in.mp4")
        let image = try generator.image(at: 2.5)
        try image.writePNG(to: "frame.png")
    }
}
