import Foundation
import NALU
import NALUExport
import NALUMedia
import NALUSmartCut
import Testing

/// The library's composition export (``CompositionSession``): clip ranges frame-exact against
/// ffprobe's view of the inputs, progress, cancellation that leaves nothing behind.
@Suite struct CompositionSessionTests {
    static let phone = CompositionTestSupport.fixture("realworld/phone.mp4")
    static let mov = CompositionTestSupport.fixture("realworld/avc_2997.mov")

    @Test("clip ranges in seconds show exactly the pictures ffprobe shows in those ranges; progress is monotonic and ends at 1.0 with the output's count")
    func rangesAndProgress() async throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var composition = Composition()
        try composition.append(Self.phone, seconds: 2.2, to: 7.5)
        try composition.append(Self.mov, seconds: 1, to: 2.5)
        composition.append(Self.phone, range: try SmartCutRange(parsing: "8.5-"))
        var settings = CompositionSettings()
        settings.temporaryDirectory = directory.path
        let output = directory.appendingPathComponent("joined.mp4").path
        let session = CompositionSession(composition: composition, output: output, settings: settings)
        let watcher = Task { () -> [ExportProgress] in
            var steps: [ExportProgress] = []
            for await step in session.progress { steps.append(step) }
            return steps
        }
        let report = try await session.export()
        let steps = await watcher.value
        // What each range holds, by ffprobe's times of the inputs.
        let phone = try CompositionTestSupport.pictureTimes(Self.phone)
        let mov = try CompositionTestSupport.pictureTimes(Self.mov)
        let expected = [phone.filter { $0 >= 2.2 && $0 < 7.5 }.count, mov.filter { $0 >= 1 && $0 < 2.5 }.count, phone.filter { $0 >= 8.5 }.count]
        #expect(report.clips.map(\.pictures) == expected)
        let joined = try CompositionTestSupport.pictureTimes(output)
        #expect(joined.count == expected.reduce(0, +))
        #expect(report.frames == joined.count)
        #expect(report.reencodedClips.isEmpty)
        #expect(report.audioSamples != nil)
        #expect(CompositionTestSupport.contents(directory) == ["joined.mp4"], "the clips' temporary files are removed")
        // Progress: monotonic, below 1 until the end, the last 1.0 with the output's pictures.
        #expect(!steps.isEmpty)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.fraction <= $1.fraction && $0.frames <= $1.frames })
        #expect(steps.dropLast().allSatisfy { $0.fraction < 1 })
        #expect(steps.last?.fraction == 1)
        #expect(steps.last?.frames == joined.count)
        // The second range's audio is where its pictures are.
        let shift = try #require(try CompositionTestSupport.avShift(source: Self.mov, output: output,
                                                                     at: Double(expected[0]) / 30 + 0.5))
        #expect(abs(shift) < 10.7, "A/V shift \(shift) ms")
    }

    @Test("cancelling the export's task throws CancellationError and leaves no output and no temporary file (the clips' either)",
          arguments: [0, 1, 40, 200, 700])
    func cancellation(afterPictures: Int) async throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // About 1,300 pictures: every cancel point comes well before the end.
        var composition = Composition()
        for _ in 0..<3 {
            try composition.append(Self.phone, seconds: 0.5, to: 9.5)
            try composition.append(Self.mov, seconds: 0.2)
        }
        var settings = CompositionSettings()
        settings.temporaryDirectory = directory.path
        let output = directory.appendingPathComponent("joined.mp4").path
        let session = CompositionSession(composition: composition, output: output, settings: settings)
        let export = Task { try await session.export() }
        if afterPictures == 0 {
            export.cancel()
        } else {
            // The watcher runs on a thread of its own: in a full run the cooperative pool (2
            // threads here) is held by other suites' blocking waits for long stretches, and a
            // watcher queued there saw the export finish all 1,332 pictures before it ran.
            if #available(macOS 15.0, iOS 18.0, *) {
                let watcher = Task(executorPreference: CompositionTestSupport.watcherThread) {
                    for await step in session.progress where step.frames >= afterPictures { break }
                    export.cancel()
                }
                await watcher.value
            } else {
                for await step in session.progress where step.frames >= afterPictures { break }
                export.cancel()
            }
        }
        // No latency is measured in this process (the export's own thread notices the
        // cancellation at its next access unit or picture).
        await #expect(throws: CancellationError.self) { try await export.value }
        #expect(CompositionTestSupport.contents(directory) == [], "left \(CompositionTestSupport.contents(directory))")
    }

    @Test("a clip with no picture in its range fails naming it, and writes nothing")
    func emptyRange() async throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var composition = Composition()
        composition.append(Self.phone)
        try composition.append(Self.mov, seconds: 50, to: 60)
        var settings = CompositionSettings()
        settings.temporaryDirectory = directory.path
        let output = directory.appendingPathComponent("joined.mp4").path
        do {
            _ = try await CompositionSession(composition: composition, output: output, settings: settings).export()
            Issue.record("exported an empty range")
        } catch let error as NALUError {
            #expect(error.field.hasPrefix("\(Self.mov)@"), "\(error)")
        }
        #expect(CompositionTestSupport.contents(directory) == [])
    }
}
