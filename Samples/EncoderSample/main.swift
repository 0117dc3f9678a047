// encoder-sample: embeds an EncoderSession the way a capture app would.
//
//   swift run encoder-sample [h264|hevc] [output]
//
// It generates frames, hands each packet to a writer as it comes (Annex-B to a file), and shows
// the session's production behaviour: a backend that fails to open twice, a session invalidated
// mid-stream, a forced keyframe, a live bitrate change, a refresh with new settings, and a flush
// after which encoding carries on. The output stays one decodable stream throughout:
//
//   ffprobe -show_frames sample.h264
import NALU
import NALUEncoder
import NALUIO
import NALUX264
import NALUX265

let arguments = CommandLine.arguments.dropFirst()
let codec: Codec = arguments.first == "hevc" ? .hevc : .h264
let outputPath = arguments.dropFirst().first ?? (codec == .hevc ? "sample.h265" : "sample.h264")

// 1. Configure: a 640x360 capture at 30 fps, 2 Mbit/s with a VBV so the bitrate can change live.
var configuration = EncoderConfiguration(codec: codec, width: 640, height: 360)
configuration.preset = "veryfast"
configuration.rateControl = .bitrate(2_000_000)
configuration.vbvMaxBitrate = 2_500_000
configuration.vbvBufferSize = 4_000_000
configuration.gopLength = 60

// 2. The backend: the real library, wrapped in a fault injector so this sample can show the
//    failure handling. An app would pass X264BackendFactory() or X265BackendFactory() directly.
let library: any EncoderBackendFactory = codec == .h264 ? X264BackendFactory() : X265BackendFactory()
let faults = FaultPlan(creationFailures: 2, invalidSessionAtFrame: [45: 1])
let factory = FaultInjectingBackendFactory(wrapping: library, plan: faults)

do {
    // Bad settings would throw here, before any frame.
    let session = try EncoderSession(configuration: configuration, factory: factory)
    session.eventHandler = { event in print("  session: \(event)") }

    // 3. A writer that handles packets as they come.
    let sink = try FileSink(path: outputPath)
    var packets = 0
    func write(_ packet: EncodedPacket) throws {
        try packet.bytes.withUnsafeBytes { try sink.write($0) }
        packets += 1
        if let keyframe = packet.keyframe {
            print("frame pts \(packet.pts) dts \(packet.dts): \(keyframe) keyframe, \(packet.bytes.count) bytes")
        }
    }

    // 4. Feed generated frames.
    let pattern = try TestPattern(pixelFormat: configuration.pixelFormat, width: configuration.width, height: configuration.height)
    for index in 0..<180 {
        switch index {
        case 70:
            print("requestKeyframe() before frame 70")
            session.requestKeyframe()
        case 90:
            print("setBitrate(1 Mbit/s) before frame 90")
            try session.setBitrate(1_000_000)
        case 110:
            print("refresh(configuration:) before frame 110: B-frames off")
            var changed = session.configuration
            changed.bFrames = 0
            try session.refresh(configuration: changed)
        case 150:
            print("flush() before frame 150; encoding continues after it")
            try session.flush(write)
        default:
            break
        }
        try session.encode(pattern.frame(Int64(index)), write)
    }

    // 5. Drain the delayed (B-frame) pictures and finish the file.
    try session.flush(write)
    try sink.commit()
    let stats = session.statistics
    print("wrote \(outputPath): \(stats.framesIn) frames in, \(packets) packets out, \(stats.keyframes) keyframes, \(stats.bytesOut) bytes")
    print("\(stats.backendsCreated) encoder instances, \(stats.creationFailures) failed creations, \(stats.frameFailures) failed frames")
} catch {
    print("encoder-sample: \(error)")
}
