// live-hls-sample DIR SECONDS: a camera and a microphone packaged live as LL-HLS (1 s segments,
// 200 ms parts) — AVCaptureSession + AVAssetWriter (HLS fMP4) in nalu. The camera is a moving
// test pattern flashing white at each whole second, the microphone a beep of 100 ms at each whole
// second, 500, 750, 1000, 1250 Hz in turn (A/V sync shows by content: Scripts/avsync.py). Every segment stays listed; the playlists end with
// EXT-X-ENDLIST.
import Foundation
import NALU
import NALUEncoder
import NALUExport
import NALUMedia
import NALUPackager

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let seconds = Int(arguments[1]), (1...3600).contains(seconds) else {
    FileHandle.standardError.write(Data("usage: live-hls-sample DIR SECONDS (1…3600)\n".utf8))
    exit(64)
}
do {
    var camera = EncoderConfiguration(codec: .h264, width: 640, height: 360)
    camera.gopLength = 30                                   // 30 fps: a keyframe, so a segment, each second
    camera.preset = "veryfast"
    camera.tune = "zerolatency"
    var options = PackagerOptions(segmentDuration: Rational(1, 1))
    options.partDuration = Rational(1, 5)                   // LL-HLS parts
    options.window = .max                                   // no sliding window
    let writer = try LiveCaptureWriter(directory: arguments[0], video: camera, audioSampleRate: 48_000, options: options)
    let pattern = try TestPattern(width: 640, height: 360)
    let start = Date()
    for index in 0..<(seconds * 30) {
        Thread.sleep(until: start.addingTimeInterval(Double(index) / 30))  // real time
        let frame = pattern.frame(Int64(index))
        if index % 30 == 0 { pattern.buffer.planeBytes(0).initializeMemory(as: UInt8.self, repeating: 235) }  // flash
        try writer.append(frame)
        let beep = (index * 1600..<(index + 1) * 1600).map { i in  // 1600 samples a frame at 48 kHz
            let hertz = Double(500 + 250 * (i / 48_000 % 4))    // each second's beep its own pitch
            return i % 48_000 < 4_800 ? Float(0.5 * sin(2 * Double.pi * hertz * Double(i) / 48_000)) : 0
        }
        try writer.append(audio: [beep])
    }
    let summary = try writer.finish()
    print("\(arguments[0]): \(summary.video.first?.segments.count ?? 0) segments; \(summary.manifests.joined(separator: ", "))")
    for note in summary.notes { print("note: \(note)") }
} catch {
    FileHandle.standardError.write(Data("live-hls-sample: error: \(error)\n".utf8))
    exit(1)
}
