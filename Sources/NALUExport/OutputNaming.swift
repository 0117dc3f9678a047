#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NALU
public import NALUMedia
public import NALUMP4
import NALUTS

/// What a file name says about a video output or input: the framing its extension names, the
/// codec, the frame size of a raw video file (`clip_640x360.yuv`), and the name an encode writes
/// next to its input. The decisions `nalu convert`, `trim`, `concat`, `edit` and `encode` make
/// from an output's name, for an app that takes a name from its user.
public enum OutputNaming {
    /// Annex-B elementary streams (ITU-T H.264/H.265 Annex B).
    public static let annexBExtensions = [".h264", ".264", ".avc", ".h265", ".265", ".hevc"]
    /// ISO BMFF files (MP4, QuickTime).
    public static let mp4Extensions = [".mp4", ".m4v", ".mov"]
    /// MPEG-2 transport streams of 188-byte packets (ISO/IEC 13818-1).
    public static let transportStreamExtensions = [".ts"]
    /// MPEG-2 transport streams of 192-byte packets with arrival time stamps (M2TS).
    public static let timestampedTransportStreamExtensions = [".m2ts", ".mts"]
    /// The extensions of H.265 and of H.264 elementary streams.
    static let hevcExtensions = [".h265", ".265", ".hevc"], avcExtensions = [".h264", ".264", ".avc"]

    /// `raw.yuv` → `raw.h265`: `path` with its extension replaced by `newExtension` (in the
    /// same folder); never `path` itself (`clip.h264` with `.h264` gives `clip.h264.h264`).
    public static func replacingExtension(of path: String, with newExtension: String) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        var stem = path
        if let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart {
            stem = String(path[..<dot])
        }
        let candidate = stem + newExtension
        return candidate == path ? path + newExtension : candidate
    }

    /// The frame size in a raw video file's name, as x264 reads it: the last `WxH` token of the
    /// file name (`clip_640x360.yuv`, `cam-1920x1080-nv12.yuv`; each side at most 5 digits and
    /// not 0), or `nil`.
    public static func frameSize(inName path: String) -> (width: Int, height: Int)? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let bytes = Array(name.utf8)
        var found: (width: Int, height: Int)?
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]), index == 0 || !isDigit(bytes[index - 1]) else { index += 1; continue }
            var end = index
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "x") || bytes[end] == UInt8(ascii: "X") else { index = end; continue }
            var heightEnd = end + 1
            while heightEnd < bytes.count, isDigit(bytes[heightEnd]) { heightEnd += 1 }
            if heightEnd > end + 1, end - index <= 5, heightEnd - end - 1 <= 5,
               let width = Int(String(decoding: bytes[index..<end], as: UTF8.self)),
               let height = Int(String(decoding: bytes[(end + 1)..<heightEnd], as: UTF8.self)),
               width > 0, height > 0 {
                found = (width, height)
            }
            index = heightEnd
        }
        return found
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

extension ConversionFormat {
    /// The framing an output's name says (case-insensitive): `.annexb` for
    /// ``OutputNaming/annexBExtensions``, `.mp4` for ``OutputNaming/mp4Extensions``, `.ts` for
    /// `.ts`, `.m2ts` for `.m2ts .mts`; `nil` for any other name (`.avcc` has no extension of
    /// its own).
    public init?(outputName path: String) {
        let lower = path.lowercased()
        if OutputNaming.transportStreamExtensions.contains(where: lower.hasSuffix) {
            self = .ts
        } else if OutputNaming.timestampedTransportStreamExtensions.contains(where: lower.hasSuffix) {
            self = .m2ts
        } else if OutputNaming.annexBExtensions.contains(where: lower.hasSuffix) {
            self = .annexb
        } else if OutputNaming.mp4Extensions.contains(where: lower.hasSuffix) {
            self = .mp4
        } else {
            return nil
        }
    }

    /// The output framing of `nalu convert`, `trim` and `concat`: `chosen`, else what `path`
    /// says (``init(outputName:)``), else Annex-B.
    public init(chosen: ConversionFormat?, outputPath path: String?) {
        self = chosen ?? path.flatMap(ConversionFormat.init(outputName:)) ?? .annexb
    }

    /// The output framing of `nalu edit`: `chosen`, else what `path` says, else the input's own
    /// (an MPEG-TS input of 192-byte packets: `.m2ts`).
    public init(chosen: ConversionFormat?, outputPath path: String?, input: MediaContainer) {
        if let format = chosen ?? path.flatMap(ConversionFormat.init(outputName:)) {
            self = format
            return
        }
        switch input {
        case .annexB: self = .annexb
        case .lengthPrefixed: self = .avcc
        case .mp4: self = .mp4
        case .transportStream(let packetSize): self = packetSize == TransportStream.timestampedPacketSize ? .m2ts : .ts
        }
    }

    /// The cut and join writers' form of this framing (``NALUMedia/CutOutputFormat``): MP4 with
    /// `mp4`'s options, Annex-B and MPEG-TS refusing access units over `maxAccessUnitSize`,
    /// MPEG-TS timed at `frameRate` where the input has no times of its own.
    public func cutOutputFormat(mp4: MP4MuxerOptions, maxAccessUnitSize: Int, frameRate: Rational? = nil) -> CutOutputFormat {
        switch self {
        case .mp4: return .mp4(mp4)
        case .annexb: return .annexB(maxAccessUnitSize: maxAccessUnitSize)
        case .avcc: return .lengthPrefixed
        case .ts, .m2ts:
            var options = TransportStreamMuxerOptions(frameRate: frameRate)
            options.maxAccessUnitSize = maxAccessUnitSize
            options.writer.timestampedPackets = self == .m2ts
            return .transportStream(options)
        }
    }
}

extension EncodeOutputFraming {
    /// The same framing as ``ConversionFormat`` names it.
    public var conversionFormat: ConversionFormat {
        switch self {
        case .annexb: .annexb
        case .avcc: .avcc
        case .mp4: .mp4
        case .ts: .ts
        case .m2ts: .m2ts
        }
    }

    /// The framing of an encode's output at `path` (`nalu encode -o`): what its name says
    /// (``ConversionFormat/init(outputName:)``); standard output (`-`) and anything that is not
    /// a regular file (a device, a FIFO: `/dev/null`, a named pipe) take Annex-B; `nil` for a
    /// file name that says nothing.
    public init?(outputPath path: String) {
        if path == "-" {
            self = .annexb
        } else if let format = ConversionFormat(outputName: path) {
            switch format {
            case .annexb, .avcc: self = .annexb
            case .mp4: self = .mp4
            case .ts: self = .ts
            case .m2ts: self = .m2ts
            }
        } else {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
            self = .annexb
        }
    }

    /// The file an encode of `input` writes when no output is named: next to it, its extension
    /// replaced by the codec's (`raw.yuv` → `raw.h264`, `raw.h265`; length-prefixed
    /// `raw.h264.lp`) or the container's (`.mp4`, `.ts`, `.m2ts`), `suffix` (`.part0003` of a
    /// chunk) before it.
    public func defaultOutputPath(forInput input: String, codec: Codec, suffix: String = "") -> String {
        let codecExtension = suffix + (codec == .hevc ? ".h265" : ".h264")
        switch self {
        case .annexb: return OutputNaming.replacingExtension(of: input, with: codecExtension)
        case .avcc: return OutputNaming.replacingExtension(of: input, with: codecExtension + ".lp")
        case .mp4: return OutputNaming.replacingExtension(of: input, with: suffix + ".mp4")
        case .ts: return OutputNaming.replacingExtension(of: input, with: suffix + ".ts")
        case .m2ts: return OutputNaming.replacingExtension(of: input, with: suffix + ".m2ts")
        }
    }
}

extension Codec {
    /// The codec an elementary stream's name implies: `.h265 .265 .hevc` H.265, `.h264 .264
    /// .avc` H.264, else `nil` (case-insensitive).
    public init?(outputName path: String) {
        let lower = path.lowercased()
        if OutputNaming.hevcExtensions.contains(where: lower.hasSuffix) {
            self = .hevc
        } else if OutputNaming.avcExtensions.contains(where: lower.hasSuffix) {
            self = .h264
        } else {
            return nil
        }
    }
}
