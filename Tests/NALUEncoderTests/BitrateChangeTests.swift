import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Issue 14, bug 1: a bitrate change must change the bitrate. Measured from packet sizes, not
/// from what the library reports.
@Suite struct BitrateChangeTests {
    static func configuration(_ codec: Codec, vbv: Bool) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: 640, height: 360)
        configuration.preset = "ultrafast"
        configuration.gopLength = 50
        configuration.sceneCutDetection = false
        configuration.rateControl = .bitrate(1_500_000)
        configuration.threads = 1
        if vbv {
            configuration.vbvMaxBitrate = 1_500_000
            configuration.vbvBufferSize = 1_500_000
        }
        return configuration
    }

    /// Bits per second of the packets whose pts is in `range` (one tick per frame at 30 fps).
    static func bitrate(_ packets: [EncodedPacket], _ range: ClosedRange<Int64>) -> Double {
        let bytes = packets.filter { range.contains($0.pts) }.reduce(0) { $0 + $1.bytes.count }
        return Double(bytes * 8) * 30 / Double(range.count)
    }

    /// Encodes `frames` frames of the test pattern with camera-like noise on the luma (the clean
    /// pattern is so easy that x265's ABR cannot spend the rates asked for), calling `during`
    /// before each frame.
    static func encodeNoisy(_ configuration: EncoderConfiguration, factory: any EncoderBackendFactory, frames: Int,
                            during: (EncoderSession, Int) throws -> Void) throws -> EncodeRun {
        let session = try EncoderSession(configuration: configuration, factory: factory)
        var run = EncodeRun()
        var events: [EncoderSession.Event] = []
        session.eventHandler = { events.append($0) }
        let pattern = try TestPattern(width: configuration.width, height: configuration.height)
        var seed: UInt32 = 12345
        for index in 0..<frames {
            try during(session, index)
            let frame = pattern.frame(Int64(index))
            let luma = pattern.buffer.planeBytes(0)
            for offset in 0..<luma.count {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                luma[offset] = UInt8(clamping: Int(luma[offset]) + Int(seed >> 28) - 8)
            }
            try session.encode(frame) { run.take($0) }
        }
        try session.flush { run.take($0) }
        run.events = events
        return run
    }

    @Test(arguments: [(Codec.h264, false), (.h264, true), (.hevc, false), (.hevc, true)])
    func framesAfterTheChangeMeetTheNewTarget(_ codec: Codec, _ vbv: Bool) throws {
        let factory: any EncoderBackendFactory = codec == .h264 ? X264BackendFactory() : X265BackendFactory()
        let run = try Self.encodeNoisy(Self.configuration(codec, vbv: vbv), factory: factory, frames: 240) { session, index in
            if index == 120 { try session.setBitrate(400_000) }
        }
        let before = Self.bitrate(run.packets, 30...119)
        let after = Self.bitrate(run.packets, 150...239)
        // x264 changes the rate live only with VBV; x265 3.5 accepts a live change and ignores
        // it, so the session rebuilds (an IDR at frame 120) and says so.
        let live = codec == .h264 && vbv
        #expect(run.events.contains(.bitrateChanged(bitsPerSecond: 400_000, live: live)))
        #expect(run.events.contains(.backendCreated(generation: 2)) == !live)
        #expect(run.packets.contains { $0.pts == 120 && $0.keyframe == .idr } == !live)
        #expect(abs(before - 1_500_000) <= 375_000, "\(codec): \(Int(before)) bit/s before the change, asked for 1500k")
        #expect(abs(after - 400_000) <= 100_000, "\(codec): \(Int(after)) bit/s after asking for 400k (before: \(Int(before)))")
    }
}
