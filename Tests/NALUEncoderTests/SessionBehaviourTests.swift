import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Retry, rebuild, flush, keyframe and bitrate behaviour of EncoderSession, with a
/// fault-injecting wrapper around the real backends.
@Suite struct SessionBehaviourTests {
    static func configuration(_ codec: Codec, bFrames: Int = 2) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: 160, height: 96)
        configuration.preset = "ultrafast"
        configuration.bFrames = bFrames
        configuration.gopLength = 30
        configuration.sceneCutDetection = false
        configuration.rateControl = .bitrate(300_000)
        configuration.threads = 1
        return configuration
    }

    static func factory(_ codec: Codec) -> any EncoderBackendFactory {
        codec == .h264 ? X264BackendFactory() : X265BackendFactory()
    }

    /// Display-order pts of the first packet of each backend generation.
    static func firstPacketsAfterRebuild(_ run: EncodeRun) -> [EncodedPacket] {
        run.packets.filter { $0.keyframe == .idr }
    }

    @Test(arguments: [Codec.h264, .hevc])
    func retriesBackendCreation(_ codec: Codec) throws {
        let plan = FaultPlan(creationFailures: 5)
        let factory = FaultInjectingBackendFactory(wrapping: Self.factory(codec), plan: plan)
        let (run, session) = try encodePattern(Self.configuration(codec), factory: factory, frames: 12)
        expectEveryFrameOnce(run, frames: 12)
        #expect(session.statistics.creationFailures == 5)
        #expect(session.statistics.backendsCreated == 1)
        #expect(run.events.first == .creationFailed(attempt: 1, error: EncoderError(.backendCreationFailed, field: factory.name, detail: "injected creation failure")))
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: codec) == 12)
    }

    @Test func givesUpAfterFiveRetries() throws {
        let plan = FaultPlan(creationFailures: 6)
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        let session = try EncoderSession(configuration: Self.configuration(.h264), factory: factory)
        let pattern = try TestPattern(width: 160, height: 96)
        var packets = 0
        let error = #expect(throws: EncoderError.self) {
            try session.encode(pattern.frame(0)) { _ in packets += 1 }
        }
        #expect(error?.code == .tooManyFailures)
        #expect(session.statistics.creationFailures == 6)
        #expect(session.statistics.framesIn == 0)
        #expect(packets == 0)
        // The counter resets: the plan has no failures left, so the same frame now encodes.
        var run = EncodeRun()
        try session.encode(pattern.frame(0)) { run.take($0) }
        try session.flush { run.take($0) }
        #expect(run.packets.map(\.pts) == [0])
    }

    @Test(arguments: [Codec.h264, .hevc])
    func rebuildsOnInvalidSession(_ codec: Codec) throws {
        let frames = 45
        // Frame 7 fails once, frame 20 twice in a row, frame 33 once.
        let plan = FaultPlan(invalidSessionAtFrame: [7: 1, 20: 2, 33: 1])
        let factory = FaultInjectingBackendFactory(wrapping: Self.factory(codec), plan: plan)
        let (run, session) = try encodePattern(Self.configuration(codec), factory: factory, frames: frames)

        expectEveryFrameOnce(run, frames: frames)
        #expect(session.statistics.frameFailures == 4)
        #expect(session.statistics.backendsCreated == 5)
        #expect(plan.faultsInjected == 4)
        // Every new backend starts at the re-sent frame with an IDR carrying parameter sets; the
        // GOP (30) adds one more at 30 + 20 = 50, past the end, and at 33 + 30, also past it.
        let idrPTS = run.packets.filter { $0.keyframe == .idr }.map(\.pts)
        #expect(idrPTS == [0, 7, 20, 33])
        let summary = try StreamInspector.inspect(run.stream, codec: codec)
        #expect(summary.accessUnits.count == frames)
        #expect(summary.idrIndices.count == 4)
        #expect(summary.idrIndices.allSatisfy { summary.accessUnits[$0].hasParameterSets })
        #expect(summary.bPictureCount > 0)
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: codec) == frames)
        let failures = run.events.filter { if case .frameFailed = $0 { true } else { false } }
        #expect(failures.count == 4)
    }

    @Test func throwsAfterTwentyConsecutiveFailures() throws {
        let plan = FaultPlan(invalidSessionAtFrame: [3: 20])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        let session = try EncoderSession(configuration: Self.configuration(.h264, bFrames: 0), factory: factory)
        let pattern = try TestPattern(width: 160, height: 96)
        var run = EncodeRun()
        for index in 0..<3 { try session.encode(pattern.frame(Int64(index))) { run.take($0) } }
        let error = #expect(throws: EncoderError.self) {
            try session.encode(pattern.frame(3)) { run.take($0) }
        }
        #expect(error?.code == .tooManyFailures)
        #expect(session.statistics.frameFailures == 20)
        // Nothing before the failing frame was lost: the first backend was drained.
        #expect(run.packets.map(\.pts) == [0, 1, 2])
    }

    @Test func failureCounterResetsOnSuccess() throws {
        // 19 failures, a success, then 19 more: never 20 in a row.
        let plan = FaultPlan(invalidSessionAtFrame: [2: 19, 3: 19])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        let (run, session) = try encodePattern(Self.configuration(.h264), factory: factory, frames: 6)
        expectEveryFrameOnce(run, frames: 6)
        #expect(session.statistics.frameFailures == 38)
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 6)
    }

    @Test(arguments: [Codec.h264, .hevc])
    func flushDrainsBFramesAndEncodingContinues(_ codec: Codec) throws {
        let frames = 30
        let configuration = Self.configuration(codec, bFrames: 3)
        let session = try EncoderSession(configuration: configuration, factory: Self.factory(codec))
        let pattern = try TestPattern(width: 160, height: 96)
        var run = EncodeRun()
        var outBeforeFlush = 0
        for index in 0..<frames {
            try session.encode(pattern.frame(Int64(index))) { run.take($0) }
            if index == 11 {
                outBeforeFlush = run.packets.count
                try session.flush { run.take($0) }
                // Everything given so far is out after the flush.
                #expect(run.packets.map(\.pts).sorted() == (0...11).map { Int64($0) })
            }
        }
        try session.flush { run.take($0) }
        #expect(outBeforeFlush < 12, "B-frames should delay output before the flush")
        expectEveryFrameOnce(run, frames: frames)
        // Both libraries stop their lookahead at a flush, so frame 12 starts a new backend.
        #expect(session.statistics.backendsCreated == 2)
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 12])
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: codec) == frames)
    }

    @Test(arguments: [Codec.h264, .hevc])
    func requestKeyframeForcesAnIDR(_ codec: Codec) throws {
        let (run, session) = try encodePattern(Self.configuration(codec), factory: Self.factory(codec), frames: 20) { session, index in
            if index == 9 || index == 14 { session.requestKeyframe() }
        }
        expectEveryFrameOnce(run, frames: 20)
        #expect(session.statistics.backendsCreated == 1)
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 9, 14])
        let summary = try StreamInspector.inspect(run.stream, codec: codec)
        #expect(summary.idrIndices.allSatisfy { summary.accessUnits[$0].hasParameterSets })
    }

    @Test(arguments: [Codec.h264])
    func setBitrateIsLiveWithVBV(_ codec: Codec) throws {
        var configuration = Self.configuration(codec)
        configuration.vbvMaxBitrate = 400_000
        configuration.vbvBufferSize = 800_000
        let (run, session) = try encodePattern(configuration, factory: Self.factory(codec), frames: 20) { session, index in
            if index == 10 { try session.setBitrate(200_000) }
        }
        expectEveryFrameOnce(run, frames: 20)
        #expect(session.statistics.backendsCreated == 1)
        #expect(session.configuration.rateControl == .bitrate(200_000))
        #expect(run.events.contains(.bitrateChanged(bitsPerSecond: 200_000, live: true)))
    }

    @Test func setBitrateRebuildsWhenItCannotBeLive() throws {
        // x264 changes the bitrate live only with VBV; CRF → ABR always needs a new encoder.
        var configuration = Self.configuration(.h264)
        configuration.rateControl = .crf(28)
        let (run, session) = try encodePattern(configuration, factory: X264BackendFactory(), frames: 20) { session, index in
            if index == 10 { try session.setBitrate(250_000) }
        }
        expectEveryFrameOnce(run, frames: 20)
        #expect(session.statistics.backendsCreated == 2)
        #expect(run.events.contains(.bitrateChanged(bitsPerSecond: 250_000, live: false)))
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 10])
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 20)
    }

    @Test func refreshRebuildsWithNewSettings() throws {
        let (run, session) = try encodePattern(Self.configuration(.hevc), factory: X265BackendFactory(), frames: 16) { session, index in
            if index == 8 {
                var changed = session.configuration
                changed.bFrames = 0
                try session.refresh(configuration: changed)
            }
        }
        expectEveryFrameOnce(run, frames: 16)
        #expect(session.statistics.backendsCreated == 2)
        #expect(session.configuration.bFrames == 0)
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 8])
        // After the refresh: no B-frames.
        #expect(run.packets.suffix(8).allSatisfy { $0.pictureType != .b })
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .hevc) == 16)
    }

    @Test func refreshRejectsBadSettingsAndKeepsTheOldOnes() throws {
        let session = try EncoderSession(configuration: Self.configuration(.h264), factory: X264BackendFactory())
        var bad = session.configuration
        bad.width = 161
        #expect(throws: EncoderError.self) { try session.refresh(configuration: bad) }
        #expect(session.configuration.width == 160)
    }

    @Test func parameterSetsArePrependedWhenNotRepeated() throws {
        // With in-band repetition off, a rebuilt backend's first packet still carries them.
        var configuration = Self.configuration(.h264)
        configuration.repeatParameterSets = false
        let plan = FaultPlan(invalidSessionAtFrame: [5: 1])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        let (run, _) = try encodePattern(configuration, factory: factory, frames: 10)
        let summary = try StreamInspector.inspect(run.stream, codec: .h264)
        #expect(summary.idrIndices.count == 2)
        #expect(summary.idrIndices.allSatisfy { summary.accessUnits[$0].hasParameterSets })
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 10)
    }

    @Test func rejectsMismatchedFramesAndTimestamps() throws {
        let session = try EncoderSession(configuration: Self.configuration(.h264), factory: X264BackendFactory())
        let wrongSize = try TestPattern(width: 320, height: 96)
        #expect { try session.encode(wrongSize.frame(0)) { _ in } } throws: { ($0 as? EncoderError)?.code == .frameMismatch }
        let nv12 = try TestPattern(pixelFormat: .nv12, width: 160, height: 96)
        #expect { try session.encode(nv12.frame(0)) { _ in } } throws: { ($0 as? EncoderError)?.code == .frameMismatch }
        let pattern = try TestPattern(width: 160, height: 96)
        var frame = pattern.frame(5)
        try session.encode(frame) { _ in }
        #expect { try session.encode(pattern.frame(5)) { _ in } } throws: { ($0 as? EncoderError)?.code == .nonMonotonicTimestamp }
        frame = pattern.frame(6)
        frame.plane1.bytesPerRow = 10
        #expect { try session.encode(frame) { _ in } } throws: { ($0 as? EncoderError)?.code == .frameMismatch }
    }

    @Test func handlerErrorsKeepPacketsQueued() throws {
        struct Stop: Error {}
        let session = try EncoderSession(configuration: Self.configuration(.h264, bFrames: 0), factory: X264BackendFactory())
        let pattern = try TestPattern(width: 160, height: 96)
        #expect(throws: Stop.self) { try session.encode(pattern.frame(0)) { _ in throw Stop() } }
        var run = EncodeRun()
        try session.encode(pattern.frame(1)) { run.take($0) }
        try session.flush { run.take($0) }
        #expect(run.packets.map(\.pts) == [0, 1])
    }

    @Test func prepareExposesParameterSetsBeforeTheFirstFrame() throws {
        let session = try EncoderSession(configuration: Self.configuration(.hevc), factory: X265BackendFactory())
        #expect(session.parameterSets.isEmpty)
        try session.prepare()
        #expect(session.parameterSets.map { ($0[0] >> 1) & 0x3F } == [32, 33, 34])
    }
}

@Suite struct DecoderConfigurationRecordTests {
    @Test(arguments: [Codec.h264, .hevc])
    func recordsCarryTheEncodersParameterSets(_ codec: Codec) throws {
        var configuration = SessionBehaviourTests.configuration(codec)
        configuration.outputFormat = .lengthPrefixed
        configuration.repeatParameterSets = false
        let session = try EncoderSession(configuration: configuration, factory: SessionBehaviourTests.factory(codec))
        let before = try session.decoderConfigurationRecord()
        #expect(before == nil)
        try session.prepare()
        let record = try #require(try session.decoderConfigurationRecord())
        #expect(record.codec == codec)
        #expect(record.lengthSize == 4)
        #expect(record.parameterSets == session.parameterSets)
        // The core parses what it built back to the same record.
        let parsed = try DecoderConfigurationRecord(parsing: record.bytes, codec: codec)
        #expect(parsed == record)
        if case .hevc(let hvcC) = record {
            #expect(hvcC.arrays.allSatisfy { $0.arrayCompleteness })
            #expect(hvcC.generalProfileIdc == 1)
        }
        if case .avc(let avcC) = record {
            // ultrafast with B-frames: no 8x8 transform, so x264 signals Main.
            #expect(avcC.avcProfileIndication == 77)
        }
    }
}

/// Issue 14, bug 3: giving up on a frame resets the failure counter, and lost frames are named.
@Suite struct FailureRecoveryTests {
    @Test func theCallAfterTooManyFailuresGetsEveryAttemptAgain() throws {
        // 25 failures for frame 3 and a limit of 20: the first call gives up after 20, the second
        // has 20 attempts again and gets the frame through after 5 more.
        let plan = FaultPlan(invalidSessionAtFrame: [3: 25])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        let session = try EncoderSession(configuration: SessionBehaviourTests.configuration(.h264, bFrames: 0), factory: factory)
        let pattern = try TestPattern(width: 160, height: 96)
        var run = EncodeRun()
        for index in 0..<3 { try session.encode(pattern.frame(Int64(index))) { run.take($0) } }
        let error = #expect(throws: EncoderError.self) { try session.encode(pattern.frame(3)) { run.take($0) } }
        #expect(error?.code == .tooManyFailures)
        #expect(session.statistics.frameFailures == 20)
        // The frame was not accepted: sending it again (same pts) is allowed, and one call does it.
        try session.encode(pattern.frame(3)) { run.take($0) }
        #expect(session.statistics.frameFailures == 25)
        for index in 4..<8 { try session.encode(pattern.frame(Int64(index))) { run.take($0) } }
        try session.flush { run.take($0) }
        expectEveryFrameOnce(run, frames: 8)
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 8)
    }

    @Test(arguments: [Codec.h264, .hevc])
    func framesLostNamesTheFramesByPTS(_ codec: Codec) throws {
        // B-frames and lookahead keep frames inside the backend; an invalid session at frame 12
        // whose drain also fails loses exactly the frames not yet out.
        let plan = FaultPlan(invalidSessionAtFrame: [12: 1], flushFailures: 1)
        let factory = FaultInjectingBackendFactory(wrapping: SessionBehaviourTests.factory(codec), plan: plan)
        let session = try EncoderSession(configuration: SessionBehaviourTests.configuration(codec, bFrames: 3), factory: factory)
        let pattern = try TestPattern(width: 160, height: 96)
        var run = EncodeRun()
        for index in 0..<12 { try session.encode(pattern.frame(Int64(index))) { run.take($0) } }
        let error = #expect(throws: EncoderError.self) { try session.encode(pattern.frame(12)) { run.take($0) } }
        #expect(error?.code == .framesLost)
        let out = Set(run.packets.map(\.pts))
        let lost = (0..<12).map { Int64($0) }.filter { !out.contains($0) }
        #expect(!lost.isEmpty)
        #expect(error?.lostFramePTS == lost)
        // The refused frame 12 was not accepted: it can be sent again, and the stream goes on
        // from a new backend's IDR.
        for index in 12..<16 { try session.encode(pattern.frame(Int64(index))) { run.take($0) } }
        try session.flush { run.take($0) }
        #expect(run.packets.map(\.pts).sorted() == ((0..<16).map { Int64($0) }.filter { !lost.contains($0) }))
        #expect(run.packets.contains { $0.pts == 12 && $0.keyframe == .idr })
    }
}
