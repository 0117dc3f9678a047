import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Seeded random fault schedules over the real x264/x265 backends (issue 6): creation failures at
/// start and during rebuilds, invalid sessions at random frames (sometimes several in a row),
/// and refreshes mid-GOP, all in one session. Whatever the schedule, every input frame comes out
/// exactly once, in a stream the core splits into one access unit per frame and ffmpeg decodes
/// without a single error message.
@Suite struct FaultScheduleTests {
    struct Schedule: CustomTestStringConvertible, Sendable {
        let codec: Codec
        let seed: UInt64
        var testDescription: String { "\(codec) seed \(seed)" }
    }

    static let schedules: [Schedule] = [1, 2, 3].flatMap { seed in [Schedule(codec: .h264, seed: seed), Schedule(codec: .hevc, seed: seed)] }

    /// SplitMix64, so a schedule is the same on every run and machine.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    @Test(arguments: schedules)
    func everyFrameOnceWhateverFails(_ schedule: Schedule) throws {
        let frames = 40
        let gop = 12
        var random = Random(state: schedule.seed)
        var failures: [Int: Int] = [:]
        while failures.count < 4 { failures[1 + random.below(frames - 1)] = 1 + random.below(3) }
        let creationFailuresAt = 1 + random.below(frames - 1)
        var refreshes: Set<Int> = []
        while refreshes.count < 2 {
            let frame = 1 + random.below(frames - 1)
            if frame % gop != 0 { refreshes.insert(frame) }
        }
        let plan = FaultPlan(creationFailures: 1 + random.below(3), invalidSessionAtFrame: failures)
        let factory = FaultInjectingBackendFactory(wrapping: schedule.codec == .h264 ? X264BackendFactory() : X265BackendFactory(), plan: plan)
        var configuration = SessionBehaviourTests.configuration(schedule.codec)
        configuration.gopLength = gop
        let context = "failures \(failures.sorted { $0.key < $1.key }), creation failures at \(creationFailuresAt), refreshes \(refreshes.sorted())"

        let (run, session) = try encodePattern(configuration, factory: factory, frames: frames) { session, index in
            // Two failed creations for whatever rebuild comes next (a refresh or a failed frame).
            if index == creationFailuresAt { plan.creationFailures = 2 }
            if refreshes.contains(index) { try session.refresh() }
        }

        expectEveryFrameOnce(run, frames: frames)
        #expect(plan.faultsInjected == session.statistics.creationFailures + session.statistics.frameFailures, "\(context)")
        #expect(session.statistics.frameFailures == failures.values.reduce(0, +), "\(context)")
        #expect(session.statistics.framesIn == frames)
        // A backend that fails on its first frame encodes nothing; every other one starts with
        // an IDR carrying its parameter sets at the frame it was built for.
        let restarts = Set([0] + failures.keys.map { Int64($0) } + refreshes.map { Int64($0) })
        let idrPTS = Set(run.packets.filter { $0.keyframe == .idr }.map(\.pts))
        #expect(restarts.isSubset(of: idrPTS), "IDRs at \(idrPTS.sorted()); \(context)")
        let summary = try StreamInspector.inspect(run.stream, codec: schedule.codec)
        #expect(summary.accessUnits.count == frames, "\(context)")
        #expect(summary.idrIndices.allSatisfy { summary.accessUnits[$0].hasParameterSets }, "\(context)")
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: schedule.codec) == frames, "\(context)")
    }
}
