#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

// Issue 14: the async API under Swift 6 strict concurrency (this target must compile with no
// warnings): factories are Sendable globals, sessions are actors on their own threads, and two
// tasks encode at once into a collecting actor.

/// A global factory: needs `EncoderBackendFactory: Sendable`.
let h264Factory = X264BackendFactory()
let hevcFactory = X265BackendFactory()

/// Collects packets from several tasks.
actor PacketCollector {
    private(set) var packets: [String: [EncodedPacket]] = [:]

    func add(_ new: [EncodedPacket], stream: String) {
        packets[stream, default: []] += new
    }
}

@available(macOS 14.0, iOS 17.0, *)
extension AsyncEncoderSession {
    /// The thread the actor's methods run on (an extension method is isolated to the actor).
    func currentThread() -> pthread_t { pthread_self() }
}

@Suite struct AsyncSessionTests {
    static func configuration(_ codec: Codec) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: 96, height: 64)
        configuration.preset = "ultrafast"
        configuration.rateControl = .crf(30)
        configuration.threads = 1
        return configuration
    }

    /// Frames made from arrays own their memory, so they can be sent to the session's actor.
    static func frame(_ index: Int, width: Int = 96, height: Int = 64) throws -> Frame {
        let y = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 &+ index &* 3) }
        let chroma = [UInt8](repeating: UInt8(truncatingIfNeeded: 100 + index), count: width * height / 4)
        return try Frame(i420: y, chroma, chroma, width: width, height: height, pts: Int64(index))
    }

    @available(macOS 14.0, iOS 17.0, *)
    static func encode(_ codec: Codec, frames: Int, into collector: PacketCollector) async throws -> EncoderSession.Statistics {
        let factory: any EncoderBackendFactory = codec == .h264 ? h264Factory : hevcFactory
        let session = try AsyncEncoderSession(configuration: configuration(codec), factory: factory)
        for index in 0..<frames {
            let packets = try await session.encode(try frame(index))
            await collector.add(packets, stream: "\(codec)")
        }
        await collector.add(try await session.flush(), stream: "\(codec)")
        return await session.statistics
    }

    @Test func twoTasksEncodeConcurrentlyIntoAnActor() async throws {
        guard #available(macOS 14.0, iOS 17.0, *) else { return }
        let collector = PacketCollector()
        let h264 = Task { try await Self.encode(.h264, frames: 12, into: collector) }
        let hevc = Task.detached { try await Self.encode(.hevc, frames: 12, into: collector) }
        let h264Statistics = try await h264.value
        let hevcStatistics = try await hevc.value
        #expect(h264Statistics.framesIn == 12)
        #expect(hevcStatistics.framesIn == 12)
        let packets = await collector.packets
        #expect(packets["h264"]?.map(\.pts).sorted() == (0..<12).map { Int64($0) })
        #expect(packets["hevc"]?.map(\.pts).sorted() == (0..<12).map { Int64($0) })
        #expect(packets["h264"]?.first?.keyframe == .idr)
        #expect(packets["hevc"]?.first?.keyframe == .idr)
    }

    @Test func theSessionRunsOnOneThreadOfItsOwn() async throws {
        guard #available(macOS 14.0, iOS 17.0, *) else { return }
        let first = try AsyncEncoderSession(configuration: Self.configuration(.h264), factory: h264Factory)
        let second = try AsyncEncoderSession(configuration: Self.configuration(.h264), factory: h264Factory)
        let caller = pthread_self()
        let a1 = await first.currentThread()
        _ = try await first.encode(try Self.frame(0))
        let a2 = await first.currentThread()
        let b = await second.currentThread()
        #expect(pthread_equal(a1, a2) != 0, "one thread per session")
        #expect(pthread_equal(a1, caller) == 0, "not the caller's (cooperative) thread")
        #expect(pthread_equal(a1, b) == 0, "each session has its own thread")
        // Settings and live changes go through the actor too.
        #expect(try await first.setBitrate(300_000) == false)
        #expect(await first.configuration.rateControl == .bitrate(300_000))
    }
}

/// Issue 32 items 13 and 14: frames through an `AsyncStream<Frame>` (Frame is Sendable, `copy()`
/// returns a `sending` frame) into `AsyncEncoderSession.packets(encoding:)`, the packet-stream
/// form, give the same packets as the synchronous session.
@Suite struct FrameStreamTests {
    @available(macOS 14.0, iOS 17.0, *)
    @Test func framesFromAnAsyncStream() async throws {
        let configuration = AsyncSessionTests.configuration(.h264)
        let (frames, continuation) = AsyncStream<Frame>.makeStream()
        let producer = Task {
            for index in 0..<20 {
                // A borrowed frame copied into one that owns its memory, sent to another task.
                let pattern = try TestPattern(width: 96, height: 64)
                continuation.yield(try pattern.frame(Int64(index)).copy())
            }
            continuation.finish()
        }
        let session = try AsyncEncoderSession(configuration: configuration, factory: h264Factory)
        var streamed: [EncodedPacket] = []
        for try await packet in session.packets(encoding: frames) { streamed.append(packet) }
        try await producer.value

        let reference = try EncoderSession(configuration: configuration, factory: h264Factory)
        let pattern = try TestPattern(width: 96, height: 64)
        var expected: [EncodedPacket] = []
        for index in 0..<20 { expected += try reference.encode(pattern.frame(Int64(index))) }
        expected += try reference.flush()
        #expect(streamed.map(\.pts) == expected.map(\.pts))
        #expect(streamed.map(\.bytes) == expected.map(\.bytes))
        #expect(await session.statistics.packetsOut == 20)
    }
}
