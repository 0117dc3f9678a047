public import ArgumentParser
import NALU
import NALUDecoder
public import NALUEncoder
import NALUExport

/// `--pix-fmt`: any ``PixelFormat`` by its ffmpeg name (`yuv420p`, `nv12`, `yuv422p`, `yuv444p`,
/// `yuv420p10le`, `yuv422p10le`, `yuv444p10le`, `p010le`) or an alias (`i420`, `i422`, `i444`).
extension PixelFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }

    public static var allValueStrings: [String] { allCases.map(\.ffmpegName) }
}

/// `--to annexb|avcc|mp4|ts|m2ts` (hidden alias `--output-format`).
typealias EncodeOutputFormat = EncodeOutputFraming

extension EncodeOutputFraming: ExpressibleByArgument {}

/// A bit rate (``NALUEncoder/BitRateText``): `2500k`, `5M`, `1.5M`, `800000bps`; a plain number
/// is kbit/s, as in x264 and x265 (`--bitrate 5000` is 5 Mbit/s).
struct BitRate: ExpressibleByArgument, Hashable {
    var bitsPerSecond: Int

    init?(argument: String) {
        guard let bits = BitRateText.bitsPerSecond(argument) else { return nil }
        bitsPerSecond = bits
    }

    static var defaultValueDescription: String { "5M" }
}

/// A frame size `WxH` (``NALUExport/EncodeInputOptions/size(parsing:)``).
struct FrameSize: ExpressibleByArgument, Hashable {
    var width: Int
    var height: Int

    init?(argument: String) {
        guard let size = EncodeInputOptions.size(parsing: argument) else { return nil }
        (width, height) = size
    }
}

/// A frame rate (``NALU/Rational/init(frameRate:)``): `30`, `29.97`, `30000/1001` or
/// `30000:1001`; anything else is refused while parsing, a usage error naming `--fps` (issue 32
/// item 12).
struct FrameRate: ExpressibleByArgument, Hashable {
    var rational: Rational

    init?(argument: String) {
        guard let rate = Rational(frameRate: argument) else { return nil }
        rational = rate
    }
}

/// `--scale WxH`: a size, `-1` for a side that keeps the display aspect ratio.
struct ScaleSize: ExpressibleByArgument, Hashable {
    var width: Int?
    var height: Int?

    init?(argument: String) {
        guard let size = EncodeInputOptions.scale(parsing: argument) else { return nil }
        (width, height) = size
    }
}

/// Runs a library call, its errors in the command line's form: an ``NALUExport/ExportError``
/// with its hint, a decoder's error naming `input`.
func commandLine<T>(input: String, _ body: () throws -> T) throws -> T {
    do {
        return try ExportError.unwrapping(body)
    } catch let error as ExportError {
        if error.code == .decodeFailed, let decoderError = error.underlying as? DecoderError {
            throw decoderError.cliError(input: error.subject ?? input)
        }
        var cli = error.cliError
        cli.hint = error.hint
        throw cli
    } catch let error as DecoderError {
        throw error.cliError(input: input)
    }
}
