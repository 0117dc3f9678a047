import ArgumentParser
import NALU
import NALUEncoder

/// `--pix-fmt`: any ``PixelFormat`` by its ffmpeg name (`yuv420p`, `nv12`, `yuv422p`, `yuv444p`,
/// `yuv420p10le`, `yuv422p10le`, `yuv444p10le`, `p010le`) or an alias (`i420`, `i422`, `i444`).
struct PixelFormatOption: ExpressibleByArgument, Hashable {
    var pixelFormat: PixelFormat

    init?(argument: String) {
        guard let format = PixelFormat(name: argument) else { return nil }
        pixelFormat = format
    }

    static var allValueStrings: [String] { PixelFormat.allCases.map(\.ffmpegName) }
}

/// `--to annexb|avcc|mp4` (hidden alias `--output-format`).
enum EncodeOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case annexb, avcc, mp4
    /// MPEG-2 transport stream: 188-byte packets, or 192-byte ones with arrival time stamps.
    case ts, m2ts

    var streamFormat: StreamFormat { self == .avcc ? .lengthPrefixed : .annexB }

    var isTransportStream: Bool { self == .ts || self == .m2ts }

    /// The same framing as `nalu convert` names it.
    var outputFraming: OutputFraming {
        switch self {
        case .annexb: .annexb
        case .avcc: .avcc
        case .mp4: .mp4
        case .ts: .ts
        case .m2ts: .m2ts
        }
    }
}

/// A bit rate: `2500k`, `5M`, `1.5M`, `800000bps`; a plain number is kbit/s, as in x264 and
/// x265 (`--bitrate 5000` is 5 Mbit/s).
struct BitRate: ExpressibleByArgument, Hashable {
    var bitsPerSecond: Int

    init?(argument: String) {
        var text = argument.lowercased()
        var scale = 1_000.0
        var inBits = false
        if text.hasSuffix("bps") { text.removeLast(3); inBits = true } else if text.hasSuffix("b") { text.removeLast(); inBits = true }
        switch text.last {
        case "k": scale = 1_000; text.removeLast()
        case "m": scale = 1_000_000; text.removeLast()
        case "g": scale = 1_000_000_000; text.removeLast()
        default: if inBits { scale = 1 }
        }
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        let bits = value * scale
        guard bits < 1e12, let whole = CheckedNumber.int(bits.rounded(.down)) else { return nil }
        bitsPerSecond = whole
    }

    static var defaultValueDescription: String { "5M" }
}

/// A frame size `WxH`.
struct FrameSize: ExpressibleByArgument, Hashable {
    var width: Int
    var height: Int

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        self.width = width
        self.height = height
    }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A frame rate: `30`, `29.97`, `30000/1001` or `30000:1001`, from 0.01 to 1000 fps with a
/// numerator and denominator of 31 bits (what the encoders, the MP4 and TS muxers and the VUI
/// all take). Anything else is refused while parsing: a usage error naming `--fps` (issue 32 item 12).
struct FrameRate: ExpressibleByArgument, Hashable {
    var rational: Rational

    init?(argument: String) {
        guard let rate = Self.parse(argument), rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max),
              (0.01...1000).contains(rate.doubleValue) else { return nil }
        rational = rate
    }

    private static func parse(_ argument: String) -> Rational? {
        for separator in ["/", ":"] where argument.contains(separator) {
            let parts = argument.split(separator: Character(separator), omittingEmptySubsequences: false)
            guard parts.count == 2, let num = Int64(parts[0]), let den = Int64(parts[1]), num > 0, den > 0 else { return nil }
            return Rational(num, den).reduced
        }
        switch argument {
        // The NTSC rates people write as decimals.
        case "23.976", "23.98": return Rational(24000, 1001)
        case "29.97": return Rational(30000, 1001)
        case "59.94": return Rational(60000, 1001)
        case "119.88": return Rational(120000, 1001)
        default: break
        }
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]), whole >= 0 else { return nil }
        var numerator = whole
        var denominator: Int64 = 1
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 6, let digits = Int64(fraction) else { return nil }
            for _ in 0..<fraction.count { denominator *= 10 }
            let (scaled, overflow) = whole.multipliedReportingOverflow(by: denominator)
            let (sum, overflow2) = scaled.addingReportingOverflow(digits)
            guard !overflow, !overflow2, digits >= 0 else { return nil }
            numerator = sum
        }
        guard numerator > 0 else { return nil }
        return Rational(numerator, denominator).reduced
    }
}
