// Two streams encoded at once from Swift concurrency: each AsyncEncoderSession runs its
// blocking x264/x265 calls on a thread of its own, never on the cooperative pool.
import Logging
import NALU
import NALUEncoder
import NALUX264
import NALUX265

/// Factories are Sendable: a global constant is fine. Their encoders log through swift-log.
let h264 = X264BackendFactory(logger: Logger(label: "capture.x264"))
let hevc = X265BackendFactory(logger: Logger(label: "capture.x265"))

actor Uplink {
    private(set) var bytes: [String: Int] = [:]
    func send(_ packets: [EncodedPacket], stream: String) {
        bytes[stream, default: 0] += packets.reduce(0) { $0 + $1.bytes.count }
    }
}

@available(macOS 14.0, iOS 17.0, *)
func encode(_ codec: Codec, factory: any EncoderBackendFactory, to uplink: Uplink) async throws {
    var configuration = EncoderConfiguration(codec: codec, width: 320, height: 240)
    configuration.preset = "veryfast"
    let session = try AsyncEncoderSession(configuration: configuration, factory: factory)
    let chroma = [UInt8](repeating: 128, count: 320 * 240 / 4)
    for index in 0..<30 {
        let luma = [UInt8](repeating: UInt8(truncatingIfNeeded: 16 + index * 6), count: 320 * 240)
        let frame = try Frame(i420: luma, chroma, chroma, width: 320, height: 240, pts: Int64(index))
        if index == 15 { try await session.setBitrate(1_000_000) }
        await uplink.send(try await session.encode(frame), stream: "\(codec)")
    }
    await uplink.send(try await session.flush(), stream: "\(codec)")
}

if #available(macOS 14.0, iOS 17.0, *) {
    let uplink = Uplink()
    async let first: Void = encode(.h264, factory: h264, to: uplink)
    async let second: Void = encode(.hevc, factory: hevc, to: uplink)
    _ = try await (first, second)
    print(await uplink.bytes)
}
