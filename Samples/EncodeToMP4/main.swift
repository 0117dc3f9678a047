// Encodes 60 frames made in memory into capture.mp4 (H.264, avc1).
import NALUEncoder
import NALUIO
import NALUMP4
import NALUX264

let width = 320, height = 240
var configuration = EncoderConfiguration(codec: .h264, width: width, height: height)
configuration.outputFormat = .lengthPrefixed      // MP4 samples: 4-byte lengths
configuration.repeatParameterSets = false         // parameter sets in the avcC record only (avc1)
let session = try EncoderSession(configuration: configuration, factory: X264BackendFactory())
try session.prepare()
guard let record = try session.decoderConfigurationRecord() else { fatalError("no parameter sets") }
let writer = try MP4Writer(sink: try FileSink(path: "capture.mp4"), configuration: MP4WriterConfiguration(
    decoderConfigurationRecord: record, parameterSetCarriage: configuration.parameterSetCarriage,
    width: width, height: height, timeBase: configuration.effectiveTimeBase))
let chroma = [UInt8](repeating: 128, count: width * height / 4)
for index in 0..<60 {
    let luma = (0..<width * height).map { UInt8(truncatingIfNeeded: $0 % width + $0 / width + index * 4) }
    let frame = try Frame(i420: luma, chroma, chroma, width: width, height: height, pts: Int64(index))
    for packet in try session.encode(frame) { try writer.append(packet) }
}
for packet in try session.flush() { try writer.append(packet) }
let summary = try writer.finish()
try writer.output.commit()
print("capture.mp4: \(summary.samples) samples, \(summary.bytes) bytes")
