// live-hls-sample DIR SECONDS: a camera and a microphone packaged live as LL-HLS (CMAF segments
// of 1 s, parts of 200 ms) — AVCaptureSession + AVAssetWriter's HLS fMP4 output in nalu. The
// camera is a moving test pattern that flashes white at each whole second, the microphone a
// 1 kHz beep of 100 ms at each whole second, so A/V sync can be checked by content. Frames are
// made in real time; every segment stays listed and the playlists end with EXT-X-ENDLIST.
import Foundation
import NALU
import NALUAVCodec
import NALUEncoder
import NALUMedia
import NALUTS
import NALUX264

@main
struct LiveHLSSample {
    static let (width, height, fps, rate) = (640, 360, 30, 48_000)

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, let seconds = Int(arguments[1]), (1...3600).contains(seconds) else {
            FileHandle.standardError.write(Data("usage: live-hls-sample DIR SECONDS (1…3600)\n".utf8))
            exit(64)
        }
        do {
            try FileManager.default.createDirectory(atPath: arguments[0], withIntermediateDirectories: true)
            // The capture writes an MPEG-TS into a pipe; the packager reads it as it comes.
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else { throw NALUError(.io, field: "pipe", detail: String(cString: strerror(errno))) }
            let input = try LiveInput(path: "/dev/fd/\(descriptors[0])")
            close(descriptors[0])
            let failure = Failure()
            let camera = Thread { [writeEnd = descriptors[1]] in
                do { try capture(seconds: seconds, into: writeEnd) } catch { failure.set(error) }
            }
            camera.start()
            var options = PackagerOptions(segmentDuration: Rational(1, 1))
            options.partDuration = Rational(1, 5)       // LL-HLS parts
            options.window = .max                       // every segment stays listed
            let summary = try LivePackager(directory: arguments[0], options: options).package(input)
            if let error = failure.error { throw error }
            print("\(arguments[0]): \(summary.video.first?.segments.count ?? 0) segments; \(summary.manifests.joined(separator: ", "))")
            for note in summary.notes { print("note: \(note)") }
        } catch {
            FileHandle.standardError.write(Data("live-hls-sample: error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The capture: camera frames → x264, microphone samples → AAC, both into one MPEG-TS.
    static func capture(seconds: Int, into descriptor: Int32) throws {
        defer { close(descriptor) }
        var configuration = EncoderConfiguration(codec: .h264, width: width, height: height)
        configuration.frameRate = Rational(Int64(fps), 1)
        configuration.gopLength = fps                  // a keyframe each second: 1 s segments
        configuration.bFrames = 0
        configuration.preset = "veryfast"
        configuration.tune = "zerolatency"
        let video = try EncoderSession(configuration: configuration, factory: X264BackendFactory())
        let audio = try AACEncoder(sampleRate: rate, channels: 1)
        let muxer = try TransportStreamMuxer(codec: .h264, sink: PipeSink(descriptor: descriptor),
                                             options: TransportStreamMuxerOptions(frameRate: configuration.frameRate))
        _ = try muxer.addAudio(audioSpecificConfig: audio.audioSpecificConfig)
        // AAC frames wait until the video reaches their time (90 kHz from the first picture).
        var waiting: [AACPacket] = []
        muxer.alsoBeforeVideo { videoTime in
            while let next = waiting.first, videoTime.map({ next.pts * 90_000 / Int64(rate) <= $0 }) ?? true {
                try next.bytes.withUnsafeBytes { try muxer.pushAudio($0, time: next.pts, timescale: Int64(rate)) }
                waiting.removeFirst()
            }
        }
        let pattern = try TestPattern(width: width, height: height)
        let start = Date()
        let samplesPerFrame = rate / fps
        for index in 0..<(seconds * fps) {
            // Real time: frame `index` is captured at index / fps seconds.
            let due = start.addingTimeInterval(Double(index) / Double(fps))
            if due > Date() { Thread.sleep(until: due) }
            let frame = pattern.frame(Int64(index))
            if index % fps == 0 { pattern.buffer.planeBytes(0).initializeMemory(as: UInt8.self, repeating: 235) }  // the flash
            let samples = (0..<samplesPerFrame).map { offset -> Float in
                let sample = index * samplesPerFrame + offset
                return sample % rate < rate / 10 ? 0.5 * Float(sin(2 * Double.pi * 1000 * Double(sample) / Double(rate))) : 0  // the beep
            }
            waiting += try audio.encode([samples])
            for packet in try video.encode(frame) { try push(packet, to: muxer) }
        }
        waiting += try audio.flush()
        for packet in try video.flush() { try push(packet, to: muxer) }
        _ = try muxer.finish()
    }

    /// An encoded picture's NAL units into the muxer.
    static func push(_ packet: EncodedPacket, to muxer: TransportStreamMuxer<PipeSink>) throws {
        for unit in EncoderFraming.nalUnits(in: packet.bytes, format: packet.format) { try muxer.push(nalUnit: unit) }
    }
}

/// Writes the capture's MPEG-TS into the pipe the packager reads.
struct PipeSink: ByteSink {
    let descriptor: Int32
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let count = Foundation.write(descriptor, base + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw NALUError(.io, field: "pipe", detail: String(cString: strerror(errno))) }
            offset += count
        }
    }
}

/// The capture thread's error, read by the main thread after the packager ends.
final class Failure: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    var error: (any Error)? { lock.withLock { stored } }
    func set(_ error: any Error) { lock.withLock { stored = error } }
}
