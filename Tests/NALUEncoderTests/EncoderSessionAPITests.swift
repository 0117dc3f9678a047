import NALU
import NALUEncoder
import NALUX264
import Testing

/// Issue 32 items 13 and 17: the array forms of `encode` and `flush` lose nothing when they throw,
/// `statistics.packetsOut` counts what was handed out, and the session's calls throw
/// `EncoderError` typed, with a `Code` enum to switch over.
@Suite struct EncoderSessionAPITests {
    /// The reported case: an invalid session at frame 100 that survives 25 rebuilds (the session
    /// gives up after 20 and throws). The packets the failed backend gave up (pts 84–99 with
    /// x264's lookahead) come first from the next call; every frame but the refused one is in
    /// the output exactly once, and `packetsOut` agrees.
    @Test func arrayFormsKeepThePacketsOfAFailedCall() throws {
        let plan = FaultPlan(invalidSessionAtFrame: [100: 25])
        let factory = FaultInjectingBackendFactory(wrapping: X264BackendFactory(), plan: plan)
        var configuration = SessionBehaviourTests.configuration(.h264, bFrames: 3)
        configuration.gopLength = 300
        let session = try EncoderSession(configuration: configuration, factory: factory)
        let pattern = try TestPattern(width: 160, height: 96)
        var packets: [EncodedPacket] = []
        var refused: [Int64] = []
        for index in 0..<300 {
            do {
                packets += try session.encode(pattern.frame(Int64(index)))
            } catch {
                // Typed: no cast needed (item 17).
                #expect(error.code == .tooManyFailures)
                refused.append(Int64(index))
            }
        }
        packets += try session.flush()
        #expect(refused == [100])
        let pts = packets.map(\.pts).sorted()
        #expect(pts == Array(0..<300).map(Int64.init).filter { $0 != 100 })
        #expect(session.statistics.packetsOut == packets.count)
        #expect(session.statistics.bytesOut == packets.reduce(0) { $0 + Int64($1.bytes.count) })
        // Decoding order: dts strictly increasing across the failure.
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $0.dts < $1.dts })
    }

    /// `EncoderError.Code` is an enum: a switch over it needs no `default`.
    @Test func codeIsAnEnum() {
        func name(_ code: EncoderError.Code) -> String {
            switch code {
            case .invalidConfiguration, .unsupported, .libraryUnavailable, .backendCreationFailed: "setup"
            case .invalidSession, .encodeFailed, .tooManyFailures, .framesLost: "backend"
            case .frameMismatch, .nonMonotonicTimestamp: "frame"
            case .truncated, .invalidInput, .io: "input"
            }
        }
        #expect(EncoderError.Code.allCases.count == 13)
        #expect(name(.truncatedInput) == "input")
        #expect(EncoderError.Code(rawValue: "invalid configuration") == .invalidConfiguration)
        #expect(EncoderError(.io, field: "read").description == "read: I/O error")
    }

    /// `setBitrate` throws `EncoderError` typed too.
    @Test func setBitrateThrowsTyped() throws {
        let session = try EncoderSession(configuration: SessionBehaviourTests.configuration(.h264), factory: X264BackendFactory())
        do {
            _ = try session.setBitrate(-5)
            Issue.record("a negative bitrate was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }
}
