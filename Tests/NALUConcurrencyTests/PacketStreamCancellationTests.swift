import NALU
import NALUEncoder
import Testing

/// Issue 39 item 4: when the task iterating `packets(encoding:)` is cancelled, the stream ends
/// by throwing `CancellationError`, never as a normal end (which a caller would take for a
/// complete encode and commit a truncated file).
@Suite struct PacketStreamCancellationTests {
    @available(macOS 14.0, iOS 17.0, *)
    @Test func cancellingTheConsumerThrowsCancellationError() async throws {
        let configuration = AsyncSessionTests.configuration(.h264)
        // Frames that never end: only cancellation stops the iteration.
        let (frames, continuation) = AsyncStream<Frame>.makeStream()
        let producer = Task {
            let pattern = try TestPattern(width: 96, height: 64)
            var index: Int64 = 0
            while !Task.isCancelled {
                continuation.yield(try pattern.frame(index).copy())
                index += 1
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            continuation.finish()
        }
        defer { producer.cancel() }
        let session = try AsyncEncoderSession(configuration: configuration, factory: h264Factory)
        let consumer = Task { () -> (packets: Int, ending: String) in
            var packets = 0
            do {
                for try await _ in session.packets(encoding: frames) {
                    packets += 1
                    if packets == 5 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return (packets, "normal end")
            } catch is CancellationError {
                return (packets, "CancellationError")
            } catch {
                return (packets, "\(error)")
            }
        }
        let outcome = await consumer.value
        #expect(outcome.ending == "CancellationError")
        #expect(outcome.packets >= 5)
    }

    /// The same stream, not cancelled, ends normally after the flush: the test above can fail.
    @available(macOS 14.0, iOS 17.0, *)
    @Test func uncancelledStreamEndsNormally() async throws {
        let configuration = AsyncSessionTests.configuration(.h264)
        let (frames, continuation) = AsyncStream<Frame>.makeStream()
        let pattern = try TestPattern(width: 96, height: 64)
        for index in 0..<10 { continuation.yield(try pattern.frame(Int64(index)).copy()) }
        continuation.finish()
        let session = try AsyncEncoderSession(configuration: configuration, factory: h264Factory)
        var packets = 0
        for try await _ in session.packets(encoding: frames) { packets += 1 }
        #expect(packets == 10)
    }
}
