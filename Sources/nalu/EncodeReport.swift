#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUEncoder

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `12.3` with `digits` decimals, without Foundation.
func decimal(_ value: Double, _ digits: Int = 1) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return String(value) }
    let whole = Int64(scaled) / Int64(scale)
    let fraction = Int64(scaled) % Int64(scale)
    var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let digitsText = String(fraction)
        text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
    }
    return text
}

/// The progress line and the final summary of `nalu encode`.
struct EncodeReport {
    let frameRate: Rational
    let totalFrames: Int64?
    let start = monotonicSeconds()
    private var lastProgress = 0.0
    private var progressShown = false

    init(frameRate: Rational, totalFrames: Int64?) {
        self.frameRate = frameRate
        self.totalFrames = totalFrames
    }

    /// Bits per second of `bytes` spread over `frames` frames at the frame rate.
    func bitsPerSecond(bytes: Int64, frames: Int) -> Double {
        guard frames > 0 else { return 0 }
        return Double(bytes) * 8 * frameRate.doubleValue / Double(frames)
    }

    /// Redraws the progress line at most twice a second.
    mutating func progress(_ statistics: EncoderSession.Statistics) {
        let now = monotonicSeconds()
        guard now - lastProgress >= 0.5 else { return }
        lastProgress = now
        let elapsed = now - start
        let fps = elapsed > 0 ? Double(statistics.framesIn) / elapsed : 0
        var line = "\r\(statistics.framesIn)"
        if let totalFrames { line += "/\(totalFrames)" }
        line += " frames  \(decimal(fps)) fps  \(decimal(bitsPerSecond(bytes: statistics.bytesOut, frames: statistics.packetsOut) / 1000)) kbit/s"
        if let totalFrames, fps > 0 {
            let remaining = max(0, Double(totalFrames - Int64(statistics.framesIn)) / fps)
            let seconds = Int(remaining)
            line += "  ETA \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + String(seconds % 60)
        }
        StandardError.write(line + "\u{1B}[K")
        progressShown = true
    }

    /// Ends the progress line, if one was drawn.
    func endProgress() {
        if progressShown { StandardError.write("\n") }
    }

    /// The summary line and its JSON form.
    func summary(_ statistics: EncoderSession.Statistics, output: String, codec: Codec) -> EncodeSummary {
        let elapsed = monotonicSeconds() - start
        let fps = elapsed > 0 ? Double(statistics.framesIn) / elapsed : 0
        let average = bitsPerSecond(bytes: statistics.bytesOut, frames: statistics.packetsOut)
        var line = "encoded \(statistics.framesIn) frames (\(statistics.keyframes) keyframes, \(statistics.bFrames) B) "
        line += "in \(decimal(elapsed, 2)) s: \(decimal(fps)) fps, average \(decimal(average / 1000)) kbit/s, \(statistics.bytesOut) bytes → \(output)"
        if statistics.backendsCreated > 1 || statistics.frameFailures > 0 || statistics.creationFailures > 0 {
            line += "; \(statistics.backendsCreated) encoder instances, \(statistics.frameFailures) failed frames, \(statistics.creationFailures) failed creations"
        }
        var members: [(String, JSON)] = []
        members.append(("codec", JSON.string(codec.rawValue)))
        members.append(("output", JSON.string(output)))
        members.append(("frames", JSON.int(Int64(statistics.framesIn))))
        members.append(("packets", JSON.int(Int64(statistics.packetsOut))))
        members.append(("keyframes", JSON.int(Int64(statistics.keyframes))))
        members.append(("b_frames", JSON.int(Int64(statistics.bFrames))))
        members.append(("bytes", JSON.int(statistics.bytesOut)))
        members.append(("average_bitrate", JSON.double(average)))
        members.append(("encode_seconds", JSON.double(elapsed)))
        members.append(("encode_fps", JSON.double(fps)))
        members.append(("encoders_created", JSON.int(Int64(statistics.backendsCreated))))
        members.append(("failed_frames", JSON.int(Int64(statistics.frameFailures))))
        members.append(("failed_creations", JSON.int(Int64(statistics.creationFailures))))
        return EncodeSummary(line: line, object: JSON.object(members))
    }
}

/// The end-of-run summary of `nalu encode`: one line for people, an object for `--stats-json`.
struct EncodeSummary {
    var line: String
    var object: JSON

    /// Says the run was stopped by `signal`: the line starts with "interrupted", the JSON gains
    /// `"interrupted": true`.
    mutating func markInterrupted(signal: Int32) {
        let name = signal == 2 ? "SIGINT" : signal == 15 ? "SIGTERM" : signal == 1 ? "SIGHUP" : "signal \(signal)"
        line = "interrupted by \(name): " + line
        if case .object(var members) = object {
            members.append(("interrupted", JSON.bool(true)))
            object = .object(members)
        }
    }
}
