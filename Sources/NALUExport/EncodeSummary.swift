#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
public import NALUEncoder
public import NALUMedia
import NALUIO

/// A value of a report's structured form (`nalu encode --stats-json`, `nalu compare --json`):
/// what a JSON writer prints.
public indirect enum ReportValue: Sendable {
    /// An integer.
    case int(Int64)
    /// A number written as the JSON writer writes doubles.
    case double(Double)
    /// A number already written out (`41.234567`).
    case decimal(String)
    /// No value (an infinite PSNR).
    case null
    /// A string.
    case string(String)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([ReportValue])
    /// An object: its members in order.
    case object([(String, ReportValue)])
}

/// The end of an encode in words and as fields (`nalu encode`'s summary line and
/// `--stats-json`): frames, keyframes, B-frames, time, speed, average bitrate, bytes, the encoder
/// instances; the live changes and quality measurements when there were any.
public struct EncodeSummary: Sendable {
    /// The line for people: `encoded 150 frames (1 keyframes, 99 B) in 0.52 s: …`.
    public var line: String
    /// The fields, in order (the JSON keys are a public contract).
    public var fields: [(String, ReportValue)]

    /// The summary of `statistics` after `elapsed` seconds, the bitrate computed at `frameRate`.
    public init(_ statistics: EncoderSession.Statistics, elapsed: Double, frameRate: Rational, output: String, codec: Codec) {
        let fps = elapsed > 0 ? Double(statistics.framesIn) / elapsed : 0
        let average = bitsPerSecond(bytes: statistics.bytesOut, frames: statistics.packetsOut, frameRate: frameRate)
        line = "encoded \(statistics.framesIn) frames (\(statistics.keyframes) keyframes, \(statistics.bFrames) B) "
        line += "in \(decimalText(elapsed, 2)) s: \(decimalText(fps)) fps, average \(decimalText(average / 1000)) kbit/s, \(statistics.bytesOut) bytes → \(output)"
        if statistics.backendsCreated > 1 || statistics.frameFailures > 0 || statistics.creationFailures > 0 {
            line += "; \(statistics.backendsCreated) encoder instances, \(statistics.frameFailures) failed frames, \(statistics.creationFailures) failed creations"
        }
        fields = [
            ("codec", .string(codec.rawValue)), ("output", .string(output)), ("frames", .int(Int64(statistics.framesIn))),
            ("packets", .int(Int64(statistics.packetsOut))), ("keyframes", .int(Int64(statistics.keyframes))),
            ("b_frames", .int(Int64(statistics.bFrames))), ("bytes", .int(statistics.bytesOut)), ("average_bitrate", .double(average)),
            ("encode_seconds", .double(elapsed)), ("encode_fps", .double(fps)), ("encoders_created", .int(Int64(statistics.backendsCreated))),
            ("failed_frames", .int(Int64(statistics.frameFailures))), ("failed_creations", .int(Int64(statistics.creationFailures))),
        ]
    }

    /// Says the run was stopped by `signal`: the line starts with "interrupted", the fields gain
    /// `interrupted: true`.
    public mutating func markInterrupted(signal: Int32) {
        let name = signal == 2 ? "SIGINT" : signal == 15 ? "SIGTERM" : signal == 1 ? "SIGHUP" : "signal \(signal)"
        line = "interrupted by \(name): " + line
        fields.append(("interrupted", .bool(true)))
    }

    /// Adds the live changes: `; bitrate 400 kbit/s at frame 120 (rebuild)`, `; IDR at frame 60`,
    /// and `live_changes` (`frame`, `kind` "bitrate"/"idr", `bitrate`, `live`).
    public mutating func add(_ changes: [EncoderLiveChanges.Applied]) {
        guard !changes.isEmpty else { return }
        for change in changes {
            if let rate = change.bitsPerSecond {
                line += "; bitrate \(decimalText(Double(rate) / 1000)) kbit/s at frame \(change.frame) (\(change.live ? "live" : "rebuild"))"
            } else {
                line += "; IDR at frame \(change.frame)"
            }
        }
        fields.append(("live_changes", .array(changes.map { change in
            var members: [(String, ReportValue)] = [("frame", .int(change.frame)), ("kind", .string(change.bitsPerSecond == nil ? "idr" : "bitrate"))]
            if let rate = change.bitsPerSecond { members.append(("bitrate", .int(Int64(rate)))) }
            members.append(("live", .bool(change.live)))
            return .object(members)
        })))
    }

    /// Adds the quality means as the x264/x265 CLIs print them (`PSNR Mean Y:… Global:…`,
    /// `SSIM Mean Y:… (… dB)`) and `psnr` {y, u, v, average, global}, `ssim` {all, db}.
    public mutating func add(_ quality: QualityTotals) {
        if let psnr = quality.psnr {
            line += "; PSNR Mean Y:\(decimalText(psnr.y, 3)) U:\(decimalText(psnr.u, 3)) V:\(decimalText(psnr.v, 3)) Avg:\(decimalText(psnr.average, 3)) Global:\(decimalText(psnr.global, 3))"
            fields.append(("psnr", .object([("y", .double(psnr.y)), ("u", .double(psnr.u)), ("v", .double(psnr.v)),
                                            ("average", .double(psnr.average)), ("global", .double(psnr.global))])))
        }
        if let ssim = quality.ssim {
            line += "; SSIM Mean Y:\(decimalText(ssim.all, 7)) (\(decimalText(ssim.decibels, 3)) dB)"
            fields.append(("ssim", .object([("all", .double(ssim.all)), ("db", .double(ssim.decibels))])))
        }
    }
}

/// The progress line of an encode, redrawn at most twice a second:
/// `\r120/300 frames  48.2 fps  2410.5 kbit/s  ETA 0:03`.
public struct EncodeProgressLine: Sendable {
    private let frameRate: Rational
    private let totalFrames: Int64?
    /// When the encode started (seconds on the monotonic clock).
    public let start = monotonicSeconds()
    private var lastDrawn = 0.0
    /// Whether a line was drawn (then it needs ending with a newline).
    public private(set) var drawn = false

    /// A line for an encode at `frameRate` (the bitrate's time) of `totalFrames` frames, when
    /// known (the ETA).
    public init(frameRate: Rational, totalFrames: Int64?) {
        self.frameRate = frameRate
        self.totalFrames = totalFrames
    }

    /// The text to draw now (ending in an erase-to-end-of-line), or `nil` within half a second
    /// of the last.
    public mutating func text(_ statistics: EncoderSession.Statistics) -> String? {
        let now = monotonicSeconds()
        guard now - lastDrawn >= 0.5 else { return nil }
        lastDrawn = now
        let elapsed = now - start
        let fps = elapsed > 0 ? Double(statistics.framesIn) / elapsed : 0
        var line = "\r\(statistics.framesIn)"
        if let totalFrames { line += "/\(totalFrames)" }
        line += " frames  \(decimalText(fps)) fps  \(decimalText(bitsPerSecond(bytes: statistics.bytesOut, frames: statistics.packetsOut, frameRate: frameRate) / 1000)) kbit/s"
        if let totalFrames, fps > 0 {
            let remaining = max(0, Double(totalFrames - Int64(statistics.framesIn)) / fps)
            let seconds = Int(remaining)
            line += "  ETA \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + String(seconds % 60)
        }
        drawn = true
        return line + "\u{1B}[K"
    }

    /// Seconds since ``start``.
    public var elapsed: Double { monotonicSeconds() - start }
}

/// Bits per second of `bytes` spread over `frames` frames at `frameRate`.
func bitsPerSecond(bytes: Int64, frames: Int, frameRate: Rational) -> Double {
    guard frames > 0 else { return 0 }
    return Double(bytes) * 8 * frameRate.doubleValue / Double(frames)
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `12.3` with `digits` decimals, without Foundation.
func decimalText(_ value: Double, _ digits: Int = 1) -> String {
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

extension JSONValue {
    /// A report's structured form (``ReportValue``) as JSON, member order kept.
    public init(_ value: ReportValue) {
        switch value {
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .decimal(let text): self = .decimal(text)
        case .null: self = .null
        case .string(let text): self = .string(text)
        case .bool(let flag): self = .bool(flag)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let members): self = .object(members.map { ($0.0, JSONValue($0.1)) })
        }
    }
}

extension EncodeSummary {
    /// Writes ``fields`` as pretty-printed JSON and a newline (`nalu encode --stats-json`) to
    /// `path`, through ``NALUIO/FileSink`` (a temporary name renamed into place on commit).
    public func writeJSON(to path: String) throws(NALUError) {
        let file = try FileSink(path: path, bufferSize: 4096)
        try file.write(Array((JSONValue(.object(fields)).prettyText + "\n").utf8))
        try file.commit()
    }
}
